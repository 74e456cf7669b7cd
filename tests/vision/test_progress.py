"""Progress of the long commands (``vision.progress``, tqdm): one line redrawn at a terminal,
plain lines without carriage returns in a log (``replay``'s own: tests/vision/test_replay.py)."""

from __future__ import annotations

import fcntl
import io
import os
import select
import struct
import termios

from vision.progress import progress, say


def test_away_from_a_terminal_the_bar_writes_lines_without_carriage_returns():
    log = io.StringIO()
    with progress(40, "replay", "frame", stream=log) as bar:
        for _ in range(40):
            bar.update()
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].startswith("replay:") and "0/40" in lines[0]
    assert lines[-1].startswith("replay: 100%") and "40/40" in lines[-1]


def test_at_a_terminal_the_bar_redraws_its_line():
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    with os.fdopen(slave, "w") as terminal:
        with progress(5, "synth", "img", stream=terminal) as bar:
            for _ in range(5):
                bar.update()
        terminal.flush()
        shown = ""
        while select.select([master], [], [], 0.5)[0]:
            shown += os.read(master, 65536).decode()
    os.close(master)
    assert "\r" in shown and "5/5" in shown


def test_quiet_is_silent_and_say_prints_a_line(capsys):
    log = io.StringIO()
    with progress(3, "eval", stream=log, enabled=False) as bar:
        bar.update(3)
        say("  1.0s  [ANNOUNCE] a line")
    assert log.getvalue() == ""
    assert capsys.readouterr().out == "  1.0s  [ANNOUNCE] a line\n"

"""``cardref play`` driven as a person types at a terminal (a pseudo-terminal, pexpect): the
legal moves in the form one types them, a number from that list played, cards in lower case,
"did you mean" for a mistyped zone, the up arrow and Tab, a refused line kept out of the log,
and a resume that says whose turn it is. Piped input (no terminal) reads plain lines."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pexpect
from pexpect import fdpexpect

from referee.games import load_game
from referee.simulate import playout

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
UP = "\x1b[A"


def terminal(*args: str) -> fdpexpect.fdspawn:
    """``cardref ARGS`` on a pseudo-terminal of 60x160, read and typed at by pexpect. The
    process is started by ``subprocess`` (fork and exec with no Python between them): a test
    process that holds native threads (OpenVINO, a Dask cluster, a browser driver, as under
    pytest-xdist) made ``pexpect.spawn``'s forked child crash before its exec."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 160, 0, 0))
    env = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    # setsid --ctty: the program in a session of its own, the terminal its controlling one
    command = ["setsid", "--ctty", sys.executable, "-m", "vision.commands.main", *args]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    child = fdpexpect.fdspawn(master, encoding="utf-8", timeout=20)
    child.proc = proc  # waited for by the caller once the terminal shows its end
    return child


def spawn(*args: str) -> fdpexpect.fdspawn:
    child = terminal("play", *args)
    child.expect_exact("Type 'help'")
    return child


def say(child: pexpect.spawn, line: str, until: str) -> str:
    """Type a line and Enter; return what the screen showed until ``until`` (escapes removed)."""
    child.send(line + "\r")
    child.expect(until)
    return ANSI.sub("", child.before + child.after)


def logged(log: Path) -> list[str]:
    from referee.observations import Observation

    lines = log.read_text().splitlines()[1:]
    return [Observation.from_json(json.loads(x)).short() for x in lines]


def test_play_at_a_terminal(tmp_path):
    log = tmp_path / "game.jsonl"
    child = spawn("royal_family", "--log", str(log))

    shown = say(child, "legal", r"JK draw_pile -> flop_1")
    listed = dict(
        (m[2], int(m[1]))
        for m in re.finditer(r"^\s*(\d+)\. (\S+ draw_pile -> flop_1)\s*$", shown + "\n", re.M)
    )
    assert re.search(r"\d+ legal moves \(type a number to play it\)", shown)
    assert (
        listed["2S draw_pile -> flop_1"]
        < listed["10S draw_pile -> flop_1"]
        < listed["JS draw_pile -> flop_1"]
    )
    assert "FlopCard(" not in shown  # the typed form, not the program's
    number = listed["7S draw_pile -> flop_1"]
    assert len(listed) == max(listed.values())  # every move listed, none cut

    shown = say(child, str(number), r"noted: 7S draw_pile -> flop_1")  # the number plays that move
    assert "7S draw_pile -> flop_1" in shown

    say(child, "4h draw_pile -> flop_2", r"noted: 4H draw_pile -> flop_2")  # a card in lower case

    shown = say(child, "9C draw_pile -> fort_heart", r"did you mean [^\n]*")
    assert "unknown zone 'fort_heart' for royal_family: did you mean fort_hearts" in shown

    shown = say(child, "KS draw_pile -> staging", r"\[REJECT\][^\n]*")  # flop_3 comes first
    child.send(UP)  # the line comes back from the history
    child.expect_exact("KS draw_pile -> staging")
    # Enter sends it again, refused again. (Ctrl-U to clear it raced prompt_toolkit's redraw,
    # which leaves the letters of the old line that the new one shares on the screen.)
    say(child, "", r"\[REJECT\][^\n]*")

    child.send("9c draw_p\t")  # Tab completes the zone
    child.expect_exact("draw_pile")
    say(child, " -> flop_3", r"\[\w+\] [^\n]*")
    child.send("quit\r")
    child.expect(pexpect.EOF)

    assert logged(log) == ["7S draw_pile -> flop_1", "4H draw_pile -> flop_2", "9C draw_pile -> flop_3"]

    assert child.proc.wait(timeout=20) == 0
    child = terminal("play", "royal_family", "--log", str(log))
    child.expect(r"Resumed [^\n]*: 3 observations replayed\.")
    child.expect(r"Now: [^\n]*")
    now = ANSI.sub("", child.after)
    assert "red to play" in now and "round 1" in now and "phase take" in now, now
    child.expect_exact("Type 'help'")
    child.send(UP)  # the resumed game's lines are in the history
    child.expect_exact("9C draw_pile -> flop_3")
    child.send("\x15quit\r")
    child.expect(pexpect.EOF)
    assert child.proc.wait(timeout=20) == 0


def cardref(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_piped_lines_refused_lines_stay_out_of_the_log(tmp_path):
    log = tmp_path / "game.jsonl"
    typed = ["7s draw_pile -> flop_1", "KS draw_pile -> staging", "8S draw_pile -> flop_2", "answer 3"]
    r = cardref("play", "royal_family", "--log", str(log), stdin="\n".join(typed) + "\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("[REJECT]") == 2
    assert logged(log) == ["7S draw_pile -> flop_1", "8S draw_pile -> flop_2"]
    r = cardref("play", "royal_family", "--log", str(log), stdin="9S draw_pile -> flop_3\n")
    assert "Resumed" in r.stdout and "2 observations replayed" in r.stdout
    assert re.search(r"Now: age \w+, round 1, phase flop\.", r.stdout), r.stdout
    assert "[REJECT]" not in r.stdout
    assert logged(log)[-1] == "9S draw_pile -> flop_3"


def test_a_number_needs_a_fresh_list(tmp_path):
    r = cardref("play", "royal_family", stdin="1\nlegal\n1\n1\n")
    assert "type 'legal' first" in r.stderr
    assert r.stdout.count("AD draw_pile -> flop_1") >= 2  # listed, then played
    assert r.stderr.count("type 'legal' first") == 2  # the list was of the state before


def test_while_a_question_is_open_legal_lists_the_answers(tmp_path):
    """Dukes Up! asks who plays first once the dukes are shown; in a simulated Royal Family
    game (seed 6) the referee asks what a discard meant. Both times ``legal`` lists the
    answers as typed, and a number gives one."""
    setup = [f"BACK draw_pile_{p} -> hand_{p}" for p in ("black",) for _ in range(4)]
    setup += [
        "BACK hand_black -> castle_black",
        "BACK hand_black -> dukes_black",
        "BACK hand_black -> dukes_black",
    ]
    setup += [line.replace("black", "red") for line in setup]
    typed = [*setup, "dukes_up black=QS,3S red=4D,6H", "legal", "2"]
    log = tmp_path / "game.jsonl"
    r = cardref("play", "dukes_up", "--log", str(log), stdin="\n".join(typed) + "\n")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^ +1\. answer black$", r.stdout, re.M) and re.search(
        r"^ +2\. answer red$", r.stdout, re.M
    )
    assert "[ANNOUNCE] red plays first" in r.stdout
    assert logged(log)[-1] == "answer red"

    observations = list(playout(load_game("royal_family"), 6).observations)
    asked = next(i for i, o in enumerate(observations) if o.type == "answer")
    meant = observations[asked].short()
    typed = [o.short() for o in observations[:asked]] + ["legal"]
    r = cardref("play", "royal_family", stdin="\n".join(typed) + "\n")
    assert "[ASK]" in r.stdout and "The referee asks: " in r.stdout
    answers = dict((m[2], m[1]) for m in re.finditer(r"^ +(\d+)\. (answer \S+)$", r.stdout, re.M))
    assert meant in answers and len(answers) >= 2
    r = cardref("play", "royal_family", stdin="\n".join([*typed, answers[meant], "status"]) + "\n")
    assert f"> {meant}" in r.stdout and "Open question" not in r.stdout.split("> " + meant)[-1]

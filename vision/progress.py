"""The one place that makes a progress bar (tqdm), for every long command: replay, eval,
synth, render-game, collect.

At a terminal the bar redraws one line on stderr. Anywhere else (a log file, a pipe, CI) a
redrawn line would be a run of carriage returns, so the bar writes a plain line now and then
instead, and its last state when it closes. Lines printed while a bar runs go through ``say``,
which keeps them from tearing the bar.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

LOG_EVERY_S = 10.0  # away from a terminal: one line at most this often


class _Lines:
    """A stream for tqdm away from a terminal: each redraw becomes one line of its own."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()


def progress(
    total: int | None,
    label: str,
    unit: str = "it",
    enabled: bool = True,
    stream: TextIO | None = None,
    iterable=None,
):
    """A bar counting ``total`` steps (None: an open count), labelled for the command, in
    ``unit``s; ``enabled=False`` (``--quiet``) makes it silent. Use it as tqdm: ``update()``,
    ``close()``, a ``with`` block, or iterate it when ``iterable`` is given."""
    stream = stream or sys.stderr
    terminal = stream.isatty()
    return tqdm(
        iterable,
        total=total,
        desc=label,
        unit=unit,
        disable=not enabled,
        file=stream if terminal else _Lines(stream),
        mininterval=0.25 if terminal else LOG_EVERY_S,
        ascii=not terminal,
        dynamic_ncols=terminal,
        ncols=None if terminal else 80,
        leave=True,
    )


def say(text: str, stream: TextIO | None = None) -> None:
    """Print a line (stdout by default) without tearing a bar that is running on the terminal."""
    tqdm.write(text, file=stream or sys.stdout)
    (stream or sys.stdout).flush()

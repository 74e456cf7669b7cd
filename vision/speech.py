"""Spoken announcements: espeak-ng fed from a queue by its own thread, so the video never waits
for a sentence to finish. ``quiet_routine`` leaves out the routine lines (legal moves,
clean-up instructions) and speaks only turns, damage, rejects, questions and results."""

from __future__ import annotations

import contextlib
import queue
import shutil
import subprocess
import threading

from referee.announcements import Announcement
from referee.errors import CardrefError

ROUTINE = {"LEGAL", "STATE"}


class Speaker:
    def __init__(
        self,
        quiet_routine: bool = False,
        voice: str = "en",
        words_per_minute: int = 170,
        program: str = "espeak-ng",
    ):
        path = shutil.which(program)
        if path is None:
            raise CardrefError(f"--speak needs {program} (Debian: apt-get install espeak-ng)")
        self.command = [path, "-v", voice, "-s", str(words_per_minute)]
        self.quiet_routine = quiet_routine
        self.queue: queue.Queue[str | None] = queue.Queue(maxsize=20)
        self.thread = threading.Thread(target=self._run, name="speech", daemon=True)
        self.thread.start()

    def say(self, a: Announcement) -> None:
        if self.quiet_routine and a.kind in ROUTINE:
            return
        with contextlib.suppress(queue.Full):  # far behind: drop rather than speak stale news
            self.queue.put_nowait(a.text)

    def _run(self) -> None:
        while (text := self.queue.get()) is not None:
            subprocess.run(
                [*self.command, text], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=5)

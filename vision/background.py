"""A second thread for output work (annotating, encoding, writing video frames), so that it
overlaps with decoding and detecting on a 2-core machine. OpenCV releases the GIL while it
draws and encodes, so the two threads really run side by side."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any


class BackgroundWorker:
    """Calls ``work(item)`` on a second thread for each ``put`` item, in order. A bounded queue
    keeps memory flat; an error on the worker is raised by the next ``put`` or by ``close``."""

    def __init__(self, work: Callable[[Any], None], depth: int = 8):
        self.work = work
        self.error: Exception | None = None
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self.error is not None:
                continue  # keep emptying the queue so that put() never blocks
            try:
                self.work(item)
            except Exception as e:  # raised again on the caller's thread
                self.error = e

    def put(self, item: Any) -> None:
        if self.error is not None:
            raise self.error
        self._queue.put(item)

    def close(self) -> None:
        """Wait until every item is done; raise the worker's error, if any."""
        self._queue.put(None)
        self._thread.join()
        if self.error is not None:
            raise self.error

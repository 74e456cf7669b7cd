"""Writes that never leave half a file: a killed process or a full disk keeps what was written.

Every file goes to a temporary name in the same folder first and is renamed over the target
(``os.replace`` is atomic on one file system), so a reader sees the old file or the new one.
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.errors import CardrefError


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; a failure (disk full) leaves no trace and says so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise CardrefError(f"{path}: cannot write: {e.strerror or e}") from None


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def append_line(path: Path, line: str) -> None:
    """Append one line with a single write and fsync. A torn last line (killed mid-write) is
    the only possible damage, and :func:`read_jsonl_lines` ignores it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise CardrefError(f"{path}: cannot append: {e.strerror or e}") from None


def read_jsonl_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the complete lines of a JSONL file (a torn last line is dropped)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        lines.pop()  # no newline at the end: the last write was cut short
    return [(n, ln) for n, ln in enumerate(lines, 1) if ln.strip()]

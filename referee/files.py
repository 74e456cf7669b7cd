"""Every file a command reads or writes goes through here, so that every failure is one line.

Reading: a file that is missing, a folder, not UTF-8, not JSON or not YAML raises
:class:`FileError` naming the file and the line (``path:line: what is wrong``), never a
decoder's traceback. Writing: every output goes to a temporary name in its own folder and is
renamed into place (``os.replace`` is atomic on one file system), so a killed command or a
full disk leaves the old file or the new one, never half of one; an append-only JSON Lines
log gets one ``write`` and ``fsync`` per line, and a line torn by a crash is repaired before
the next one is appended.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from referee.errors import CardrefError, FileError


def _read_error(path: Path, what: str, e: OSError) -> FileError:
    if isinstance(e, IsADirectoryError) or path.is_dir():
        return FileError(f"{path}: is a folder, expected a file ({what})")
    if isinstance(e, FileNotFoundError):
        return FileError(f"{path}: no such file ({what})")
    return FileError(f"{path}: cannot read {what}: {e.strerror or e}")


def read_bytes(path: str | Path, what: str = "input") -> bytes:
    p = Path(path)
    try:
        return p.read_bytes()
    except OSError as e:
        raise _read_error(p, what, e) from None


def decode(data: bytes, path: str | Path) -> str:
    """UTF-8 text of ``data`` (a byte-order mark, as some editors write, is dropped); a byte
    that is not UTF-8 names its line and column."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise FileError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at column {column})"
        ) from None


def read_text(path: str | Path, what: str = "input") -> str:
    """The UTF-8 text of a file, or a one-line :class:`FileError`."""
    return decode(read_bytes(path, what), path)


def parse_json(text: str, loc: str, error: type[CardrefError] = FileError, whole_file: bool = False) -> Any:
    """``json.loads`` whose ``error`` names ``loc`` (``file:line``) and the column; with
    ``whole_file``, ``loc`` is a file and the error adds the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        at = f"{loc}:{e.lineno}" if whole_file else loc
        raise error(f"{at}: not valid JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:
        raise error(f"{loc}: not valid JSON: nested too deeply") from None


def read_json(path: str | Path, what: str = "input") -> Any:
    return parse_json(read_text(path, what), str(path), whole_file=True)


def read_json_object(path: str | Path, what: str = "input") -> dict[str, Any]:
    data = read_json(path, what)
    if not isinstance(data, dict):
        raise FileError(f"{path}: expected a JSON object ({what}), got {type(data).__name__}")
    return data


def parse_yaml(text: str, path: str | Path) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        problem = " ".join(str(getattr(e, "problem", None) or e).split())
        raise FileError(f"{path}{line}: not valid YAML: {problem}") from None


def read_yaml(path: str | Path, what: str = "input") -> Any:
    """The YAML document in a file; unreadable, not UTF-8 or not YAML is one line."""
    return parse_yaml(read_text(path, what), path)


def read_yaml_mapping(path: str | Path, what: str = "input") -> dict[str, Any]:
    data = read_yaml(path, what)
    if not isinstance(data, dict):
        raise FileError(f"{path}: expected a mapping of {what} settings, got {type(data).__name__}")
    return data


def jsonl_lines(data: bytes, path: str | Path) -> list[tuple[int, str]]:
    """(line number, text) of the non-blank lines of a JSON Lines file, a torn last line left
    out: one without its newline that is not valid JSON (a write cut short). A last line that
    is complete but for its newline is kept, and :func:`append_line` completes it."""
    text = decode(data, path)
    lines = text.split("\n")
    tail = lines.pop()  # "" when the file ends with a newline
    out = [(n, ln) for n, ln in enumerate(lines, 1) if ln.strip()]
    if tail.strip() and _is_json(tail):
        out.append((len(lines) + 1, tail))
    return out


def read_jsonl_lines(path: str | Path, what: str = "input", missing_ok: bool = True) -> list[tuple[int, str]]:
    """:func:`jsonl_lines` of a file; a missing file reads as empty when ``missing_ok``."""
    p = Path(path)
    if missing_ok and not p.exists():
        return []
    return jsonl_lines(read_bytes(p, what), p)


def read_jsonl(path: str | Path, what: str = "input", missing_ok: bool = True) -> list[tuple[int, Any]]:
    """(line number, decoded value) of each line of a JSON Lines file (see :func:`jsonl_lines`);
    a missing file reads as empty when ``missing_ok``."""
    return [(n, parse_json(ln, f"{path}:{n}")) for n, ln in read_jsonl_lines(path, what, missing_ok)]


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


# --- writing ---------------------------------------------------------------------------------


def _write_error(path: Path, e: OSError, doing: str = "write") -> FileError:
    if e.errno == errno.ENOSPC:
        return FileError(f"{path}: cannot {doing}: the disk is full")
    if isinstance(e, IsADirectoryError) or path.is_dir():
        return FileError(f"{path}: is a folder, expected a file name")
    if isinstance(e, NotADirectoryError) or e.errno == errno.EEXIST:
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), path.parent)
        return FileError(f"{path}: cannot {doing}: {blocker} is a file, not a folder")
    return FileError(f"{path}: cannot {doing}: {e.strerror or e}")


def ensure_dir(path: str | Path, what: str = "output") -> Path:
    """Create the folder ``path`` (and its parents); a file in the way is a one-line error."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise FileError(f"{p}: is a file, expected a folder for the {what}")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _write_error(p, e, "create the folder") from None
    return p


def _fsync(fd: int) -> None:
    with contextlib.suppress(OSError):  # /dev/full and pipes cannot be synced, and need not be
        os.fsync(fd)


def temporary_beside(path: str | Path) -> Path:
    """A hidden temporary name in the folder of ``path`` (created), with its suffix, for a
    writer that takes a file name (a video writer, an image library); :func:`move_into_place`
    then renames it over ``path``."""
    p = Path(path)
    if p.is_dir():
        raise FileError(f"{p}: is a folder, expected a file name")
    if p.exists() and not p.is_file():  # a device: renaming over it would replace it
        raise FileError(f"{p}: not a regular file, expected a file name")
    ensure_dir(p.parent, f"file {p.name}")
    return p.with_name(f".{p.stem}.{os.getpid()}.tmp{p.suffix}")


def move_into_place(tmp: Path, path: str | Path) -> None:
    try:
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise _write_error(Path(path), e) from None


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to (a library's ``save``); moved over
    ``path`` when the block ends without error, removed otherwise. A device (/dev/stdout,
    /dev/full) is written straight, never renamed over."""
    p = Path(path)
    if p.exists() and not p.is_file() and not p.is_dir():
        try:
            yield p
        except OSError as e:
            raise _write_error(p, e) from None
        return
    tmp = temporary_beside(path)
    try:
        yield tmp
        move_into_place(tmp, path)
    except OSError as e:
        raise _write_error(Path(path), e) from None
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; a failure (disk full) leaves no trace and says so."""
    p = Path(path)
    with replacing(p) as tmp, open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        _fsync(f.fileno())


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, data: Any, indent: int | None = 1) -> None:
    write_text(path, json.dumps(data, indent=indent) + "\n")


def repair_tail(path: str | Path) -> None:
    """Make a JSON Lines file end with a newline before more is appended: a last line complete
    but for its newline gets it (it was read, so it must stay), a torn one is cut off (it was
    never read). Anything else would glue the next line onto it."""
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size == 0:
            return
        with open(p, "r+b") as fh:
            data = fh.read()
            if data.endswith(b"\n"):
                return
            start = data.rfind(b"\n") + 1
            if _is_json(data[start:].decode("utf-8", errors="replace")):
                fh.seek(0, os.SEEK_END)
                fh.write(b"\n")
            else:
                fh.truncate(start)
            fh.flush()
            _fsync(fh.fileno())
    except OSError as e:
        raise _write_error(p, e, "repair") from None


def _ends_with_newline(path: Path) -> bool:
    """Whether a file is empty or ends with a newline (one byte read, not the whole file)."""
    try:
        with open(path, "rb") as fh:
            if fh.seek(0, os.SEEK_END) == 0:
                return True
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"
    except OSError:
        return True  # a device such as /dev/full: nothing to repair, the append says what fails


def append_line(path: str | Path, line: str) -> None:
    """Append one line with a single write and fsync. A torn last line (killed mid-write) is
    the only possible damage; readers leave it out, and the next append repairs it first
    (:func:`repair_tail`)."""
    p = Path(path)
    if not p.exists():
        ensure_dir(p.parent, f"file {p.name}")
    elif not _ends_with_newline(p):
        repair_tail(p)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, "short write")
            _fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise _write_error(p, e, "append to") from None

"""referee.files, where every command reads and writes: one-line errors naming file, line and
column; a torn last line left out and cut, a line complete but for its newline kept; writes
that leave the old file or the new one, and say why they failed (issue 24)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee import files
from referee.errors import FileError

ROOT = Path(__file__).resolve().parents[2]


def test_a_byte_that_is_not_utf8_names_its_line_and_column(tmp_path):
    path = tmp_path / "obs.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "caf\xe9"}\n')
    with pytest.raises(FileError, match=rf"^{path}:2: not UTF-8 text \(byte 0xe9 at column 11\)$"):
        files.read_text(path)


def test_a_byte_order_mark_is_read_past(tmp_path):
    path = tmp_path / "obs.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n')
    assert files.read_jsonl(path) == [(1, {"a": 1})]


@pytest.mark.parametrize(("text", "line"), [("a: 1\nb: [1, 2\nc: 3\n", 3), ("a: 1\n  b: 2\n", 2)])
def test_yaml_errors_are_one_line_with_the_line_number(tmp_path, text, line):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(FileError) as err:
        files.read_yaml(path)
    assert str(err.value).startswith(f"{path}:{line}: not valid YAML: ") and "\n" not in str(err.value)


def test_json_errors_name_line_and_column(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{\n  "a": 1,\n  "b": ]\n}')
    with pytest.raises(FileError, match=rf"^{path}:3: not valid JSON: .* \(column 8\)$"):
        files.read_json(path)


@pytest.mark.parametrize(("tail", "kept"), [(b'{"n": 3}', 3), (b'{"n": 3', 2), (b"", 2)])
def test_a_whole_last_line_without_newline_is_kept_and_completed_a_torn_one_cut(tmp_path, tail, kept):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"n": 1}\n{"n": 2}\n' + tail)
    assert [v["n"] for _, v in files.read_jsonl(path)] == list(range(1, kept + 1))
    files.append_line(path, '{"n": 9}')
    assert [v["n"] for _, v in files.read_jsonl(path)] == [*range(1, kept + 1), 9]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    files.write_text(path, "old")

    class Boom(Exception):
        pass

    with pytest.raises(Boom), files.replacing(path) as tmp:
        tmp.write_text("half")
        raise Boom
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["out.json"]


def test_write_errors_say_what_is_in_the_way(tmp_path):
    (tmp_path / "file.jpg").write_text("x")
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileError, match="file.jpg: is a file, expected a folder"):
        files.write_text(tmp_path / "file.jpg" / "a.txt", "x")
    with pytest.raises(FileError, match="file.jpg is a file, not a folder"):
        files.write_text(tmp_path / "file.jpg" / "sub" / "a.txt", "x")
    with pytest.raises(FileError, match="dir: is a folder, expected a file name"):
        files.write_text(tmp_path / "dir", "x")
    with pytest.raises(FileError, match="^/dev/full: cannot write: the disk is full$"):
        files.write_text("/dev/full", "x")
    with pytest.raises(FileError, match="^/dev/full: cannot append to: the disk is full$"):
        files.append_line(Path("/dev/full"), "{}")
    with pytest.raises(FileError, match="^/dev/full: cannot write: the disk is full$"), \
            files.replacing("/dev/full") as target:
        Path(target).write_bytes(b"x")
    assert Path("/dev/full").is_char_device()  # written to, never renamed over


def test_a_closed_pipe_ends_cardref_quietly(tmp_path):
    """``cardref referee ... | head -1``: the reader goes away; no traceback, no message."""
    obs = tmp_path / "obs.jsonl"
    obs.write_text('{"card": "7S", "from": "draw_pile", "to": "flop_1"}\n' * 3000)
    cmd = [sys.executable, "-m", "vision.commands.main", "referee", "royal_family",
           "--observations", str(obs)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b'{"v":1,"kind":"ANNOUNCE"')
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait() == 141 and stderr == ""

"""A game log cut short at any byte resumes without losing an observation (issue 24, defect 1):
the last line of a log may be complete but for its newline, and is then part of the game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games import load_game
from referee.simulate import playout

ROOT = Path(__file__).resolve().parents[2]


def cardref(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.commands.main", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def observations():
    return playout(load_game("royal_family"), 3).observations[:24]


def logged(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    return [json.loads(x) for x in lines[1:]]


@pytest.mark.parametrize("cut", [1, 5])
def test_play_resumes_a_log_whose_last_newline_is_missing(tmp_path, observations, cut):
    log = tmp_path / "g.jsonl"
    first = "".join(o.short() + "\n" for o in observations[:12])
    assert cardref("play", "royal_family", "--log", str(log), stdin=first).returncode == 0
    data = log.read_bytes()
    log.write_bytes(data[:-cut])  # 1: only the newline is lost; 5: the line is torn
    rest = observations[11 if cut > 1 else 12:]
    r = cardref("play", "royal_family", "--log", str(log), stdin="".join(o.short() + "\n" for o in rest))
    assert r.returncode == 0, r.stderr
    assert "[REJECT]" not in r.stdout
    assert logged(log) == [o.to_json() for o in observations]
    again = cardref("referee", "royal_family", "--observations", str(log))
    assert again.returncode == 0 and '"REJECT"' not in again.stdout


def test_referee_resumes_a_log_whose_last_newline_is_missing(tmp_path, observations):
    obs = tmp_path / "obs.jsonl"
    obs.write_text("".join(o.to_line() + "\n" for o in observations))
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text("".join(o.to_line() + "\n" for o in observations[:12]))
    log = tmp_path / "g.jsonl"
    first = cardref("referee", "royal_family", "--observations", str(prefix), "--log", str(log))
    assert first.returncode == 0, first.stderr
    log.write_bytes(log.read_bytes()[:-1])
    r = cardref("referee", "royal_family", "--observations", str(obs), "--log", str(log))
    assert r.returncode == 0, r.stderr
    assert logged(log) == [o.to_json() for o in observations]


def test_a_log_cut_at_any_byte_of_its_last_lines_resumes_to_the_whole_game(tmp_path, observations):
    """Every place a kill can cut the last two writes: the resumed game, fed what was not yet
    logged, logs every observation once and ends in the state of the game never cut."""
    from vision.commands.common import open_referee

    game = load_game("royal_family")
    whole = tmp_path / "whole.jsonl"
    ref, _ = open_referee(game, str(whole))
    for o in observations:
        ref.feed(o)
    data = whole.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n", 0, data.rstrip(b"\n").rfind(b"\n")) + 1
    for cut in range(start, len(data) + 1):
        log = tmp_path / f"cut{cut}.jsonl"
        log.write_bytes(data[:cut])
        resumed, replayed = open_referee(game, str(log))
        for o in observations[replayed:]:
            resumed.feed(o)
        assert logged(log) == [o.to_json() for o in observations], cut
        assert resumed.snapshot() == ref.snapshot(), cut

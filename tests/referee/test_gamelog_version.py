"""A game log's header carries the version of its game's rules; a log written under another
version is resumed all the same, with one line of warning, and refused only when its header
cannot be read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.gamelog import read_log, version_note
from referee.games import GAMES, load_game
from referee.paths import project_root
from referee.simulate import playout

ROOT = project_root()


def cardref(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.commands.main", *args], capture_output=True,
                          text=True,
                          cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def game_file(tmp_path_factory) -> Path:
    observations = playout(load_game("royal_family"), 3).observations
    path = tmp_path_factory.mktemp("obs") / "game.jsonl"
    path.write_text("".join(o.to_line() + "\n" for o in observations))
    return path


@pytest.fixture(scope="module")
def straight(game_file) -> list[str]:
    """What the referee prints for the whole game played in one go."""
    return cardref("referee", "royal_family", "--observations", str(game_file)).stdout.splitlines()


def _half_played_log(game_file: Path, straight: list[str], tmp_path: Path,
                     header_change) -> tuple[Path, list[str]]:
    """A log of the first 20 observations whose header ``header_change`` then rewrites, and what
    the referee prints after those 20 when the whole game is played straight."""
    lines = game_file.read_text().splitlines(keepends=True)
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text("".join(lines[:20]))
    log = tmp_path / "log.jsonl"
    first = cardref("referee", "royal_family", "--observations", str(prefix), "--log", str(log))
    assert first.returncode == 0, first.stderr
    logged = log.read_text().splitlines(keepends=True)
    header = json.loads(logged[0])
    header_change(header)
    log.write_text(json.dumps(header) + "\n" + "".join(logged[1:]))
    return log, straight[len(first.stdout.splitlines()):]


@pytest.mark.parametrize("name", GAMES)
def test_a_new_log_names_its_games_rules_version(name, tmp_path):
    game = load_game(name)
    log = tmp_path / "log.jsonl"
    r = cardref("referee", name, "--observations", "/dev/null", "--log", str(log))
    assert r.returncode == 0, r.stderr
    header = json.loads(log.read_text().splitlines()[0])
    assert header["rules"] == game.rules_version == read_log(log).rules_version
    assert version_note(log, read_log(log), game.rules_version) is None


def test_a_log_of_the_same_rules_resumes_without_a_word(game_file, straight, tmp_path):
    log, _ = _half_played_log(game_file, straight, tmp_path, lambda header: None)
    r = cardref("referee", "royal_family", "--observations", str(game_file), "--log", str(log))
    assert r.returncode == 0 and r.stderr == ""


def test_a_log_of_other_rules_is_resumed_with_one_line_of_warning(game_file, straight, tmp_path):
    log, rest = _half_played_log(game_file, straight, tmp_path, lambda header: header.update(rules=7))
    r = cardref("referee", "royal_family", "--observations", str(game_file), "--log", str(log))
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        f"warning: {log}: written under royal_family rules version 7, replayed under version 1: "
        "the referee may not say what it said during the game"]
    assert r.stdout.splitlines() == rest  # the game goes on as if it had never stopped
    assert len(log.read_text().splitlines()) == 1 + len(game_file.read_text().splitlines())


def test_a_log_written_before_versions_were_recorded_says_so(game_file, straight, tmp_path):
    log, _ = _half_played_log(game_file, straight, tmp_path, lambda header: header.pop("rules"))
    r = cardref("referee", "royal_family", "--observations", str(game_file), "--log", str(log))
    assert r.returncode == 0, r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert "written before rules versions were recorded, replayed under version 1" in r.stderr


@pytest.mark.parametrize("value", ["two", 0, True, 1.5])
def test_a_header_whose_version_cannot_be_read_is_refused(game_file, straight, tmp_path, value):
    log, _ = _half_played_log(game_file, straight, tmp_path, lambda header: header.update(rules=value))
    before = log.read_text()
    r = cardref("referee", "royal_family", "--observations", str(game_file), "--log", str(log))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        f"cardref referee: error: {log}:1: field 'rules': expected a rules version (a whole number "
        f"from 1), got {value!r}"]
    assert log.read_text() == before  # nothing lost, nothing appended

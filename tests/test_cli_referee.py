"""The referee commands end to end, as a user runs them: real files, real processes."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games import load_game
from referee.paths import project_root
from referee.simulate import playout

ROOT = project_root()


def cardref(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "vision.commands.main", *args], input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=300)


@pytest.fixture(scope="module")
def game_file(tmp_path_factory) -> Path:
    observations = playout(load_game("royal_family"), 3).observations
    path = tmp_path_factory.mktemp("obs") / "game.jsonl"
    path.write_text("".join(o.to_line() + "\n" for o in observations))
    return path


def test_referee_prints_a_whole_game(game_file):
    r = cardref("referee", "royal_family", "--observations", str(game_file))
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert records[-1]["kind"] == "RESULT" and "wins" in records[-1]["text"]
    assert not [x for x in records if x["kind"] == "REJECT"]
    text = cardref("referee", "royal_family", "--observations", str(game_file), "--text").stdout
    assert text.splitlines()[-1].startswith("[RESULT]")


@pytest.mark.parametrize("cut", [1, 17, 40])
def test_killed_and_resumed_from_the_log(game_file, tmp_path, cut):
    lines = game_file.read_text().splitlines(keepends=True)
    straight = cardref("referee", "royal_family", "--observations", str(game_file)).stdout.splitlines()
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text("".join(lines[:cut]))
    log = tmp_path / "log.jsonl"
    first = cardref("referee", "royal_family", "--observations", str(prefix), "--log", str(log))
    assert first.returncode == 0, first.stderr
    with log.open("a") as fh:  # a crash in the middle of writing the next line
        fh.write(lines[cut][:7])
    second = cardref("referee", "royal_family", "--observations", str(game_file), "--log", str(log))
    assert second.returncode == 0, second.stderr
    assert first.stdout.splitlines() + second.stdout.splitlines() == straight
    logged = log.read_text().splitlines()
    assert json.loads(logged[0])["type"] == "header"
    assert [json.loads(x) for x in logged[1:]] == [json.loads(x) for x in lines]


BAD_LINES = [
    ('{"card": "7X", "from": "draw_pile", "to": "flop_1"}', "field 'card'"),
    ('{"card": "7S", "from": "draw_pile", "to": "flop_9"}', "field 'to': unknown zone 'flop_9'"),
    ('{"card": "7S", "from": "draw_pile"', "not valid JSON"),
    ('{"type": "dance"}', "field 'type': unknown observation type 'dance'"),
]


@pytest.mark.parametrize("bad, message", BAD_LINES)
def test_bad_observation_lines(tmp_path, game_file, bad, message):
    obs = tmp_path / "bad.jsonl"
    obs.write_text("".join(game_file.read_text().splitlines(keepends=True)[:3]) + bad + "\n")
    log = tmp_path / "log.jsonl"
    r = cardref("referee", "royal_family", "--observations", str(obs), "--log", str(log))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert f"{obs}:4" in r.stderr and message in r.stderr
    assert not log.exists() and r.stdout == ""


@pytest.mark.parametrize(
    "option, message",
    [("castle_model=weird", "variant 'castle_model': expected one of damage_20, hit_points_10"),
     ("speed=fast", "unknown variant 'speed'"),
     ("max_rounds=0", "variant 'max_rounds': expected 1..100000")],
)
def test_bad_variants(game_file, option, message):
    r = cardref("referee", "royal_family", "--observations", str(game_file), "--set", option)
    assert r.returncode == 2 and message in r.stderr and "royal_family.yaml" in r.stderr


def test_malformed_yaml_names_file_and_line(tmp_path, game_file):
    home = tmp_path / "home"
    shutil.copytree(ROOT / "configs", home / "configs")
    cfg = home / "configs" / "games" / "royal_family.yaml"
    cfg.write_text(cfg.read_text().replace("  castle_model:\n", "  castle_model: [\n", 1))
    r = cardref("referee", "royal_family", "--observations", str(game_file), env={"CARDREF_HOME": str(home)})
    assert r.returncode == 2 and f"{cfg}:" in r.stderr and "not valid YAML" in r.stderr


def test_play_a_game_by_typing(game_file, tmp_path):
    typed = "\n".join(json_to_short(line) for line in game_file.read_text().splitlines())
    log = tmp_path / "play.jsonl"
    r = cardref("play", "royal_family", "--log", str(log), stdin=typed + "\n")
    assert r.returncode == 0, r.stderr
    assert "[RESULT]" in r.stdout and "[REJECT]" not in r.stdout
    r = cardref("play", "royal_family", stdin="7S draw_pile -> nowhere\nhelp\nquit\n")
    assert "unknown zone 'nowhere'" in r.stdout + r.stderr


def json_to_short(line: str) -> str:
    from referee.observations import Observation

    return Observation.from_json(json.loads(line)).short()


def test_simulate_summary():
    r = cardref("simulate", "royal_family", "--games", "30", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["games"] == 30 and summary["rejects"] == 0 and summary["invariant_failures"] == 0
    assert sum(summary["winners"].values()) == 30


def test_help_for_every_command():
    assert "referee" in cardref("--help").stdout
    for name in ("referee", "play", "simulate"):
        r = cardref(name, "--help")
        assert r.returncode == 0 and "usage: cardref " + name in r.stdout


def test_play_takes_a_strange_digit_as_a_word_and_goes_on(game_file):
    """``answer ²`` (a digit Python's isdigit accepts and int refuses) crashed ``play``."""
    typed = "\n".join(json_to_short(line) for line in game_file.read_text().splitlines())
    r = cardref("play", "royal_family", stdin="answer \u00b2\n\u00b2\n" + typed + "\n")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "[RESULT]" in r.stdout


def test_play_takes_typed_bytes_that_are_not_utf8_as_an_error_line():
    r = subprocess.run([sys.executable, "-m", "vision.commands.main", "play", "royal_family"],
                       input=b"caf\xe9 draw_pile -> flop_1\nquit\n", capture_output=True, cwd=ROOT,
                       env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})  # as a UTF-8 locale reads
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    assert r.stderr.decode().lower().startswith("error: not a card: 'caf")  # play reads cards in any case

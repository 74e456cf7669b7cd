"""Royal Shuffle through the command line: a whole game typed into ``cardref play``, a logged
game through ``cardref referee``, bad input, and ``cardref simulate``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from referee.games import load_game
from referee.paths import project_root
from referee.simulate import playout


def cardref(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(project_root()))
    return subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args], input=stdin, capture_output=True, text=True,
        cwd=project_root(), env=env, timeout=120,
    )


def _long_game(variants: dict[str, str] | None = None):
    """The first seed whose playout lasts 10 turns or more, with an ASK in it."""
    game = load_game("royal_shuffle", variants)
    for seed in range(1, 200):
        sim = playout(game, seed)
        if sim.stats["turns"] >= 10 and any(o.type == "answer" for o in sim.observations):
            return sim
    raise AssertionError("no long game among 200 seeds")


def test_play_a_whole_game_by_typed_observations():
    sim = _long_game()
    assert sim.by_rules and not sim.rejects
    header = ["# a game typed line by line", "help", "legal"]
    typed = "\n".join([*header, *(o.short() for o in sim.observations)])
    run = cardref("play", "royal_shuffle", stdin=typed + "\n")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("[ANNOUNCE] Royal Shuffle, 2 players p1 and p2")
    assert not [line for line in lines if line.startswith("[REJECT]")]
    assert [line for line in lines if line.startswith("[ASK]")]
    turns = [line for line in lines if line.startswith("[ANNOUNCE] Turn ")]
    assert len(turns) == sim.stats["turns"]
    result = lines[-1]
    assert result.startswith("[RESULT] Joker")
    verdict = f"{sim.winner} wins" if sim.winner else "draw"
    assert verdict in result
    assert f"p1 {sim.stats['score_p1']}, p2 {sim.stats['score_p2']}" in result


def test_play_reports_mistakes_and_goes_on():
    typed = "\n".join([
        "deal",
        "first player=p3",  # malformed: unknown player
        "first player=p1",
        "QC hand_p1 -> village_p1",  # illegal
        "7S draw_pile -> village_p1",
        "hand_count player=p1 count=four",  # malformed
        "legal",
    ])
    run = cardref("play", "royal_shuffle", stdin=typed + "\n")
    assert run.returncode == 0
    assert "unknown player 'p3'" in run.stderr
    assert "field 'count': expected an integer" in run.stderr
    assert "[REJECT] Royal cards go to the court (QC to court_queen)" in run.stdout
    assert "[ANNOUNCE] Scores: p1 -3 (homeless 7S), p2 0" in run.stdout
    assert "Draw(player=p1)" in run.stdout


def test_referee_a_logged_game(tmp_path):
    variants = {"joker_mode": "second_ends", "step_order": "strict"}
    sim = _long_game(variants)
    path = tmp_path / "shuffle.jsonl"
    path.write_text("".join(o.to_line() + "\n" for o in sim.observations))
    run = cardref("referee", "royal_shuffle", "--set", "joker_mode=second_ends", "--set", "step_order=strict",
                  "--observations", str(path))
    assert run.returncode == 0, run.stderr
    said = [json.loads(line) for line in run.stdout.splitlines()]
    assert not [a for a in said if a["kind"] == "REJECT"]
    assert said[-1]["kind"] == "RESULT" and said[-1]["data"]["by_rules"]
    assert said[-1]["data"]["winner"] == sim.winner
    interim = [a for a in said if a["data"].get("interim")]
    assert len(interim) == 1 and interim[0]["data"]["event"] == "JokerPlayed"


def test_bad_variant_is_one_clear_line():
    run = cardref("simulate", "royal_shuffle", "--set", "rounding=up")
    assert run.returncode != 0
    assert "variant 'rounding': expected one of floor, toward_zero, got 'up'" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_simulate_command():
    run = cardref("simulate", "royal_shuffle", "--games", "30", "--seed", "1", "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["games"] == 30 and summary["ended_by_rules"] == 30
    assert summary["rejects"] == 0 and summary["invariant_failures"] == 0
    assert summary["mean"]["turns"] > 1

"""Dukes Up! through the command line: a whole game typed into ``cardref play``, a logged
game through ``cardref referee``, and ``cardref simulate``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from referee.games import load_game
from referee.paths import project_root
from referee.simulate import playout

GAME_SEED = 2


def cardref(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(project_root()))
    return subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args], input=stdin, capture_output=True, text=True,
        cwd=project_root(), env=env, timeout=120,
    )


def test_play_a_whole_game_by_typed_observations() -> None:
    sim = playout(load_game("dukes_up"), GAME_SEED)
    assert sim.by_rules and not sim.rejects
    typed = "\n".join([
        "# a game typed line by line", "help",
        "dukes_up black=7S,2S,9C red=8D,JH",  # illegal before set-up: refused, the game goes on
        "dukes_up black=7S",  # malformed: an error line, nothing logged
        *(o.short() for o in sim.observations),
    ])
    run = cardref("play", "dukes_up", stdin=typed + "\n")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "[ANNOUNCE] Dukes Up!: black has spades and clubs, red hearts and diamonds"
    assert "field 'red': missing" in run.stderr
    rejects = [line for line in lines if line.startswith("[REJECT]")]
    assert rejects == ["[REJECT] Exactly 2 dukes: black shows 3"]
    assert "[ASK] Who plays first? (answer: black / red)" in lines
    turns = [line for line in lines if line.startswith("[ANNOUNCE] Turn ")]
    assert len(turns) == sim.stats["turns"]
    verdict = f"{sim.winner} wins" if sim.winner else "a draw"
    assert lines[-1].startswith("[RESULT] ") and lines[-1].endswith(verdict)
    scores = f"black {sim.stats['score_black']}, red {sim.stats['score_red']}"
    assert scores in lines[-1]


def test_referee_a_logged_game(tmp_path) -> None:
    game = load_game("dukes_up", {"first_player": "black", "draw_from_discard": "true"})
    sim = playout(game, 5)
    path = tmp_path / "dukes.jsonl"
    path.write_text("".join(o.to_line() + "\n" for o in sim.observations))
    run = cardref("referee", "dukes_up", "--set", "first_player=black", "--set", "draw_from_discard=true",
                  "--observations", str(path))
    assert run.returncode == 0, run.stderr
    said = [json.loads(line) for line in run.stdout.splitlines()]
    assert not [a for a in said if a["kind"] == "REJECT"]
    assert said[-1]["kind"] == "RESULT" and said[-1]["data"]["winner"] == sim.winner
    assert said[-1]["data"]["scores"] == {"black": sim.stats["score_black"], "red": sim.stats["score_red"]}


def test_simulate_command() -> None:
    run = cardref("simulate", "dukes_up", "--games", "20", "--seed", "1", "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["games"] == 20 and summary["ended_by_rules"] == 20
    assert summary["rejects"] == 0 and summary["invariant_failures"] == 0
    assert summary["mean"]["turns"] > 10

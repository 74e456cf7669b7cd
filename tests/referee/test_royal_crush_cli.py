"""Royal Crush through the command line: a whole game typed into ``cardref play``, a logged
game through ``cardref referee``, and ``cardref simulate``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from referee.games import load_game
from referee.paths import project_root
from referee.simulate import playout

SHORT_GAME_SEED = 195  # a short simulated game (85 observations)


def cardref(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(project_root()))
    return subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args], input=stdin, capture_output=True, text=True,
        cwd=project_root(), env=env, timeout=120,
    )


def test_play_a_whole_game_by_typed_observations():
    game = load_game("royal_crush")
    sim = playout(game, SHORT_GAME_SEED)
    assert sim.by_rules and not sim.rejects
    typed = "\n".join(["# a game typed line by line", "help", *(o.short() for o in sim.observations)])
    run = cardref("play", "royal_crush", stdin=typed + "\n")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("[ANNOUNCE] Royal Crush, 4 players")
    assert not [line for line in lines if line.startswith("[REJECT]")]
    assert lines[-1].startswith(f"[RESULT] {sim.winner.replace('+', ' and ')} win")
    declared = [line for line in lines if re.match(r"\[ANNOUNCE\] Conquest \d+: p\d attacks p\d$", line)]
    assert len(declared) == sim.stats["conquests"]


def test_play_reports_mistakes_and_goes_on():
    typed = "\n".join([
        "deal",
        "dice player=p9 values=3,3",  # malformed: unknown player
        "dice player=p1 values=3",  # illegal: two dice
        "dice player=p1 values=6,6",
        "legal",
    ])
    run = cardref("play", "royal_crush", stdin=typed + "\n")
    assert run.returncode == 0
    assert "unknown player 'p9'" in run.stderr
    assert "[REJECT] A roll is 2 die values 1-6 (dice: 2d6), got [3]" in run.stdout
    assert "[STATE] p1 rolls 6+6 = 12" in run.stdout
    assert re.search(r"^ +\d+\. dice player=p2 values=1,1$", run.stdout, re.M)  # as typed


def test_referee_a_logged_game(tmp_path):
    game = load_game("royal_crush", {"players": "5", "combo_mode": "true"})
    sim = playout(game, 3)
    path = tmp_path / "crush.jsonl"
    path.write_text("".join(o.to_line() + "\n" for o in sim.observations))
    run = cardref("referee", "royal_crush", "--set", "players=5", "--set", "combo_mode=true",
                  "--observations", str(path))
    assert run.returncode == 0, run.stderr
    said = [json.loads(line) for line in run.stdout.splitlines()]
    assert not [a for a in said if a["kind"] == "REJECT"]
    assert said[-1]["kind"] == "RESULT" and said[-1]["data"]["by_rules"]
    assert "+".join(said[-1]["data"]["winners"]) == sim.winner


def test_simulate_command():
    run = cardref("simulate", "royal_crush", "--games", "20", "--seed", "1", "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["games"] == 20 and summary["ended_by_rules"] == 20
    assert summary["rejects"] == 0 and summary["invariant_failures"] == 0
    assert summary["mean"]["conquests"] > 1

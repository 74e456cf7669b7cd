"""The camera referee on a rendered game filmed as a game night would film it
(``vision.synth.conditions``): a hand hiding the staging square, a knocked camera, an arm
over part of the table. The renderer's labels stand in for the detector, so what is tested
is the pipeline's own recovery: when it reads, what it reads, and what the rules make of it."""

from __future__ import annotations

import json

from run_cardref import cardref, replay

from vision.replay_eval import read_jsonl, score_replay, truth_detections
from vision.synth.conditions import BUMP_AT, Arms, perturb


def replay_of(game, tmp_path, condition: str, arms: Arms | None = None):
    filmed = perturb(game, tmp_path / condition, condition, seed=11, arms=arms)
    dets = truth_detections(filmed / "labels.jsonl", tmp_path / f"{condition}.jsonl")
    out = tmp_path / f"replay_{condition}"
    r = replay(filmed, out, "--detections", str(dets), "--no-video")
    assert r.returncode == 0, r.stderr
    return filmed, out, read_jsonl(out / "events.jsonl")


def test_a_card_whose_staging_the_camera_never_saw_is_recovered(game_video, tmp_path):
    """A hand moves over every drawn card while it lies in staging: each such card seems to
    jump from the draw pile to its destination, which the rules refuse. The missed step is
    found among the legal moves, fed and flagged; nothing is lost."""
    filmed, out, events = replay_of(game_video, tmp_path, "staging")
    recovered = [e for e in events if e["kind"] == "recovered"]
    assert recovered and all(m["to"] == "staging" for e in recovered for m in e["data"]["missed"])
    assert not [e for e in events if e["kind"] == "desync"]
    assert json.loads((out / "summary.json").read_text())["recoveries"] == len(recovered)
    # The game log holds what was fed, never the steps only tried: it re-referees cleanly.
    again = cardref("referee", "royal_family", "--observations", str(out / "observations.jsonl"))
    assert again.returncode == 0 and "REJECT" not in again.stdout
    score = score_replay(filmed, out)
    assert score.recovered == 1.0 and score.wrong_scored == [], score


def test_a_bumped_camera_is_recalibrated_before_the_next_read(game_video, tmp_path):
    """The camera turns by a degree and shifts mid-game: the markers' drift is noticed as the
    table is about to be read, the calibration is redone first, and no observation is lost."""
    filmed, out, events = replay_of(game_video, tmp_path, "bump")
    bumped_at = BUMP_AT * json.loads((filmed / "render.json").read_text())["video_seconds"]
    after = [e for e in events if e["t"] >= bumped_at and e["kind"] in ("read", "drift")]
    assert after and after[0]["kind"] == "drift", after[:2]
    assert not [e for e in events if e["kind"] == "desync"]
    assert score_replay(filmed, out).recovered == 1.0


def test_the_zones_still_are_read_while_an_arm_moves_over_others(game_video, tmp_path):
    """An arm reaches in from black's edge and moves over the left of the table for 6 s, while
    a player makes a move elsewhere: the zones that stayed still are read and the move is
    fed before the arm leaves; the zones under the arm keep their cards."""
    labels = read_jsonl(game_video / "labels.jsonl")
    meta = json.loads((game_video / "render.json").read_text())
    w, h = meta["size"]
    # The first move that starts after 8 s: the arm is there from 1 s before until 5 s after.
    start = next(r["t"] for r in labels if r["t"] > 8 and r["phase"] == "moving")
    arm = Arms([(start - 1.0, (0.12 * w, 1.1 * h), (0.12 * w, 0.45 * h))], 0.07 * w, duration=6.0)
    filmed, out, events = replay_of(game_video, tmp_path, "arms", arms=arm)
    partial = [e for e in events if e["kind"] == "read" and e["data"].get("covered")]
    assert partial, "no zone was read while the arm moved"
    fed = [e for e in events if e["kind"] == "observation" and start < e["t"] < start + 5.0]
    assert fed, "the move waited for the arm to leave"
    assert not [e for e in events if e["kind"] == "desync"]
    score = score_replay(filmed, out)
    assert score.recovered == 1.0 and score.wrong_scored == [], score

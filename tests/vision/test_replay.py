"""End to end: a seeded game rendered as a video, replayed through the camera referee, and the
events compared with the true observation log. Once with the renderer's labels standing in
for the detector (the pipeline's own errors), once through the shipped detector."""

from __future__ import annotations

import json
import re

import cv2
from run_cardref import cardref, replay

from referee.cards import Card
from referee.observations import Observation
from vision.detector import shipped_model
from vision.recovery import Explanation, RecoveryQuestion
from vision.replay_eval import TablePlayers, read_jsonl, score_replay


def test_replay_of_true_detections_recovers_every_observation(game_video, true_detections, tmp_path):
    dets = true_detections
    out = tmp_path / "replay"
    r = replay(game_video, out, "--detections", str(dets))
    assert r.returncode == 0, r.stderr
    score = score_replay(game_video, out)
    assert score.true_moves == 14 and score.recovered == 1.0, score
    assert score.wrong_scored == [] and score.missed_scored == []
    # Every output is there and readable.
    summary = json.loads((out / "summary.json").read_text())
    assert summary["observations"] == 14 and summary["desyncs"] == 0
    assert summary["calibration"]["method"] == "markers"
    assert "-->" in (out / "announcements.srt").read_text()
    assert "<div class='result' id='result'>Game unfinished</div>" in (out / "report.html").read_text()
    cap = cv2.VideoCapture(str(out / "annotated.mp4"))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == summary["frames"] > 0
    # The replay's observation log re-referees to the same announcements.
    again = cardref("referee", "royal_family", "--observations", str(out / "observations.jsonl"))
    assert again.returncode == 0 and "REJECT" not in again.stdout


def test_rules_rerun_from_recorded_detections_give_the_same_events(game_video, true_detections, tmp_path):
    dets = true_detections
    runs = []
    for name, source in (("first", dets), ("second", None)):
        out = tmp_path / name
        detections = str(source) if source else str(tmp_path / "first" / "detections.jsonl")
        r = replay(game_video, out, "--detections", detections, "--no-video")
        assert r.returncode == 0, r.stderr
        runs.append(
            [(e["frame"], e["kind"], e["text"]) for e in map(json.loads, (out / "events.jsonl").open())]
        )
    assert runs[0] == runs[1] and len(runs[0]) > 20


def test_frames_the_recorded_detections_lack_are_detected_by_the_model_given(game_video, true_detections,
                                                                            tmp_path):
    """A referee changed since a run may read the table at frames that run did not: without a
    model that is a one-line error naming the file and the frame; with ``--model`` those frames
    are detected by it, and the new run's detections hold them."""
    r = replay(game_video, tmp_path / "first", "--detections", str(true_detections), "--no-video")
    assert r.returncode == 0, r.stderr
    records = (tmp_path / "first" / "detections.jsonl").read_text().splitlines()  # the frames read
    dropped = records[len(records) // 2 : len(records) // 2 + 3]
    lacking = tmp_path / "lacking.jsonl"
    lacking.write_text("\n".join(r for r in records if r not in dropped) + "\n")
    r = replay(game_video, tmp_path / "without", "--detections", str(lacking), "--no-video")
    frame = json.loads(dropped[0])["frame"]
    assert r.returncode != 0 and f"lacking.jsonl: no detections for frame {frame}" in r.stderr
    assert "--model" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    out = tmp_path / "with"
    r = replay(game_video, out, "--detections", str(lacking), "--model", str(shipped_model()),
               "--no-video")
    assert r.returncode == 0, r.stderr
    again = {json.loads(line)["frame"] for line in (out / "detections.jsonl").open()}
    assert {json.loads(d)["frame"] for d in dropped} <= again


def test_replay_through_the_shipped_detector(game_video, tmp_path):
    out = tmp_path / "model"
    r = replay(game_video, out, "--no-video")
    assert r.returncode == 0, r.stderr
    score = score_replay(game_video, out)
    # A floor under the shipped model as measured (12 of 14 observations in order, no wrong
    # damage or result, 2026-11-25, fourth-pass classifier; 7 of 14 before it): a misread face
    # card stalls the game until it is read right. The target (99 %) is the camera issue's.
    assert score.recovered >= 0.6, score
    assert score.wrong_scored == [], score
    # A move to where the camera sees the card says how sure it was of the card's name (a move
    # to the face-down discard pile cannot); the unsure ones are flagged in the report.
    moves = [e for e in map(json.loads, (out / "events.jsonl").open()) if e["kind"] == "observation"]
    named = [e["data"]["name_p"] for e in moves if "name_p" in e["data"]]
    assert len(named) >= len(moves) / 2 and all(0 < p <= 1 for p in named)
    summary = json.loads((out / "summary.json").read_text())
    unsure = [e for e in moves if e["data"].get("name_p", 1) < 0.5 and "read_as" not in e["data"]]
    assert summary["unsure_names"] == len(unsure)
    report = (out / "report.html").read_text()
    assert report.count("name unsure: probability") == len(unsure)


def test_the_table_players_remember_the_card_they_just_moved(game_video):
    """The stand-in for players answering the camera's checks: at the first settled frame
    after each true move, the card last put in that zone is the one moved."""
    players = TablePlayers(game_video)
    truth = read_jsonl(game_video / "observations.jsonl")
    settled: dict[int, int] = {}  # observations made -> the first frame settled after them
    for row in read_jsonl(game_video / "labels.jsonl"):
        if row["phase"] == "settled":
            settled.setdefault(row["obs"], row["frame"])
    moves = [(k, o) for k, o in enumerate(truth, 1) if o.get("type", "move") == "move" and k in settled]
    assert len(moves) == 14
    for k, obs in moves:
        assert players.card_for(settled[k], obs["to"]) == obs["card"]
    assert players.card_for(settled[0], truth[0]["to"]) is None  # nothing moved yet


def test_the_table_players_name_the_card_lying_there_while_they_carry_the_next(game_video):
    """A check answered while a player reaches for, grabs or carries the next card to the same
    zone (a slow camera's read ends as the next move starts): the card lying there is the one
    put there before; once the new card is released, it is the new one."""
    players = TablePlayers(game_video)
    truth = read_jsonl(game_video / "observations.jsonl")
    rows = read_jsonl(game_video / "labels.jsonl")
    cases = 0
    for k, obs in enumerate(truth):  # move k is the observation rows count as k + 1
        before = [o for o in truth[max(0, k - TablePlayers.RECENT):k] if o.get("to") == obs.get("to")]
        emptied = any(o.get("from") == obs.get("to") for o in truth[:k])  # a card left it: not this case
        if obs.get("type", "move") != "move" or not before or emptied:
            continue
        beats = {r.get("beat"): r["frame"] for r in rows if r["obs"] == k + 1 and r["phase"] == "moving"}
        assert players.card_for(beats["carry"], obs["to"]) == before[-1]["card"]
        assert players.card_for(beats["retreat"], obs["to"]) == obs["card"]
        cases += 1
    assert cases, "no move to a zone a card was put in just before: the case this test is for"


def test_the_table_players_name_the_card_they_just_moved_when_the_camera_asks(game_video):
    """A camera question on a card's name (``RecoveryQuestion.card``): the players pick the
    choice that names the card they last put there, wherever it stands among the choices, and
    none when no choice names it (then they take the camera's name and rename it at the check)."""
    players = TablePlayers(game_video)
    truth = read_jsonl(game_video / "observations.jsonl")
    settled: dict[int, int] = {}
    for row in read_jsonl(game_video / "labels.jsonl"):
        if row["phase"] == "settled":
            settled.setdefault(row["obs"], row["frame"])
    k, obs = next((k, o) for k, o in enumerate(truth, 1) if o.get("type", "move") == "move" and k in settled)
    card, zone = obs["card"], obs["to"]
    others = [c for c in ("JS", "QS", "KS", "JC") if c != card][:2]

    def asked(names: list[str]) -> RecoveryQuestion:
        ways = [
            Explanation((Observation("move", Card.parse(n), obs["from"], zone),), (), "", named=n)
            for n in names
        ]
        return RecoveryQuestion(ways, card=names[0])

    assert players.pick_explanation(asked([*others, card]), settled[k]) == 3
    assert players.pick_explanation(asked([card, *others]), settled[k]) == 1
    assert players.pick_explanation(asked(others), settled[k]) is None
    assert asked([card, *others]).prompt().startswith(f"{card} was read unsurely")


def test_players_answering_the_camera_checks_put_its_misread_cards_right(game_video, tmp_path):
    """Seed 11's design names court cards at chance. With the players answering each
    [CHECK] (as they would in cardref live), every check is tallied, each answered, and each
    key pressed for another name renames the card; the game is then followed whole."""
    out = tmp_path / "checks"
    r = replay(game_video, out, "--no-video", "--players", str(game_video))
    assert r.returncode == 0, r.stderr
    events = read_jsonl(out / "events.jsonl")
    checks = [e for e in events if e["kind"] == "observation" and e["data"].get("others")]
    summary = json.loads((out / "summary.json").read_text())
    kinds = ("confirmed", "keyed", "typed", "unanswered")
    assert checks and sum(summary[f"checks_{k}"] for k in kinds) == len(checks)
    assert summary["checks_unanswered"] == 0
    renames = [e for e in events if e["data"].get("type") == "rename"]
    assert summary["checks_keyed"] + summary["checks_typed"] <= len(renames) == summary["renamed"]
    # Measured with the straightened-card detector and the recovery search (2026-11-26): 10 of
    # 14 with the checks answered (the queen of spades laid on flop 1, read JS, was taken for a
    # second card drawn there, and the players' key for the queen refused as a rename). Since a
    # card moved and misread where it landed counts as one move (2026-12-07): 14 of 14, every
    # check confirmed. The keyed answers are counted over ten held-out games by the bench
    # (bench/replay_conditions.json: the players answering).
    score = score_replay(game_video, out)
    assert score.recovered == 1.0, score
    assert score.wrong_scored == [], score


def test_players_from_a_folder_that_is_no_rendered_game_is_a_one_line_error(game_video, tmp_path):
    r = replay(game_video, tmp_path / "o", "--players", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.strip().endswith(
        f"--players {tmp_path}: expected a game rendered by cardref render-game (no observations.jsonl)"
    )


def test_replay_names_a_missing_video(tmp_path):
    r = cardref(
        "replay", str(tmp_path / "nothing.mp4"), "--game", "royal_family", "--out", str(tmp_path / "o")
    )
    assert r.returncode == 2 and "nothing.mp4: video file not found" in r.stderr


def test_replay_in_a_log_keeps_announcements_and_progress_apart(game_video, true_detections, tmp_path):
    """Without --quiet, to a file: announcements one a line on stdout, the progress bar as plain
    lines on stderr (no carriage returns, no percentages run into the announcements)."""
    r = cardref(
        "replay", str(game_video / "video.mp4"), "--game", "royal_family", "--out", str(tmp_path / "o"),
        "--answers", str(game_video / "observations.jsonl"), "--detections", str(true_detections),
        "--no-video",
    )
    assert r.returncode == 0, r.stderr
    said = r.stdout.splitlines()
    assert len(said) > 5 and all(re.match(r"^ *\d+\.\ds  \S", line) for line in said[:-1]), said
    assert "%" not in r.stdout
    assert "\r" not in r.stderr
    bar = [line for line in r.stderr.splitlines() if line.startswith("replay:")]
    assert bar and bar[-1].startswith("replay: 100%")

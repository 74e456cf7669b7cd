"""``cardref live`` headless on a rendered game video, with recorded detections standing in for
the camera's model: announcements as it goes, the game log, refusing to overwrite a game, and
resuming one."""

from __future__ import annotations

import json

from run_cardref import cardref

from referee.cards import RANKS
from vision.replay_eval import final_moves, key


def observations_in(log) -> list[dict]:
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["game"] == "royal_family"
    return lines[1:]


def test_live_referees_a_video_and_resumes_from_its_log(game_video, true_detections, tmp_path):
    log = tmp_path / "game.jsonl"
    args = [
        "live",
        "royal_family",
        "--camera",
        str(game_video / "video.mp4"),
        "--headless",
        "--log",
        str(log),
        "--detections",
        str(true_detections),
    ]
    first = cardref(*args, stdin="")
    assert first.returncode == 0, first.stderr
    assert "calibrated from markers" in first.stdout and "[ANNOUNCE] Round 1" in first.stdout
    truth = [json.loads(line) for line in (game_video / "observations.jsonl").read_text().splitlines()]
    assert observations_in(log) == truth

    again = cardref(*args, stdin="")
    assert again.returncode == 2 and "a game is already logged here" in again.stderr

    resumed = cardref(*args, "--resume", stdin="")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed: {len(truth)} observations" in resumed.stdout or "[ANNOUNCE]" not in resumed.stdout
    assert observations_in(log) == truth  # the table already matches the game: nothing new, nothing lost


def test_live_without_a_source_is_a_clear_error(tmp_path):
    r = cardref(
        "live",
        "royal_family",
        "--camera",
        str(tmp_path / "none.mp4"),
        "--headless",
        "--log",
        str(tmp_path / "g.jsonl"),
    )
    assert r.returncode == 2 and "none.mp4: video file not found" in r.stderr


def unsure_detections(true_detections, out, card: str, decoy: str):
    """The renderer's labels, but ``card`` read all game as ``decoy`` with probability 0.45
    (its true name second): a misread the rules accept and no later read corrects."""
    with out.open("w") as fh:
        for line in true_detections.read_text().splitlines():
            r = json.loads(line)
            r["top"] = [[[c, 1.0]] for c in r["class"]]
            for i, c in enumerate(r["class"]):
                if c == card:
                    r["class"][i] = decoy
                    r["top"][i] = [[decoy, 0.45], [card, 0.35], ["9S" if card != "9S" else "8S", 0.1]]
            fh.write(json.dumps(r) + "\n")
    return out


def test_a_card_named_unsurely_is_checked_and_put_right_by_a_key(game_video, true_detections, tmp_path):
    """The [CHECK] lists the camera's name and the other likely names; the player's number
    renames the card, and the camera follows it by that name to the end: the true game."""
    truth = [json.loads(line) for line in (game_video / "observations.jsonl").read_text().splitlines()]
    card = next(o["card"] for o in truth if o.get("from") == "draw_pile" and o["card"] != "JK")
    seen = {o.get("card") for o in truth}
    decoy = next(f"{rank}{card[-1]}" for rank in RANKS if f"{rank}{card[-1]}" not in seen)  # never shown
    detections = unsure_detections(true_detections, tmp_path / "unsure.jsonl", card, decoy)
    log = tmp_path / "game.jsonl"
    video = str(game_video / "video.mp4")
    r = cardref("live", "royal_family", "--camera", video, "--headless", "--log", str(log),
                "--detections", str(detections), stdin="2\n")
    assert r.returncode == 0, r.stderr
    assert f"[CHECK] {decoy} was read unsurely: which card is it? press 1 {decoy}, 2 {card}, 3" in r.stdout
    assert f"{decoy} was {card}: the game is re-read" in r.stdout
    assert "[desync]" not in r.stdout
    fed = [{"kind": "observation", "data": {**o, "seq": i}} for i, o in enumerate(observations_in(log))]
    assert final_moves(fed) == [key(o) for o in truth if o.get("type", "move") == "move"]


def test_a_camera_that_is_not_there_is_one_clear_line():
    """No webcam at index 9 (nor, on this machine, any): the error alone, none of OpenCV's
    capture backends' warnings before it."""
    r = cardref("live", "royal_family", "--camera", "9", "--headless")
    assert r.returncode == 2
    assert r.stderr == "cardref live: error: 9: cannot open camera or stream\n"


def test_a_typo_or_a_strange_digit_typed_in_live_is_one_line_and_the_game_goes_on(
        game_video, true_detections, tmp_path):
    """Issue 24, defects 4 and 5: a zone misspelt, a superscript digit as an answer or as a
    key: each an error line, and the game is refereed to its end as if nothing was typed."""
    log = tmp_path / "game.jsonl"
    r = cardref("live", "royal_family", "--camera", str(game_video / "video.mp4"), "--headless",
                "--log", str(log), "--detections", str(true_detections),
                stdin="7S draw_pile -> stagng\nanswer \u00b2\n\u00b2\nrename card=KD as=XX\n")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("cardref live: error:")]
    assert len(errors) == 3, r.stdout  # 'answer ²' waits for a question (this game asks none)
    assert "unknown zone 'stagng'" in errors[0] and "field 'as'" in errors[-1]
    truth = [json.loads(line) for line in (game_video / "observations.jsonl").read_text().splitlines()]
    assert observations_in(log) == truth

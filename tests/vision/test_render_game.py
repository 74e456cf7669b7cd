"""``cardref render-game``: a short real video, decoded with OpenCV, checked against its truth.

One small render (4 observations, 320x180, 10 fps) is shared by the tests of this file.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core import Referee
from referee.games import load_game, simulator
from vision.commands.main import main
from vision.layout import load_layout
from vision.synth.art import cache_dir
from vision.synth.game_record import record_game
from vision.synth.table_state import Table

pytestmark = pytest.mark.skipif(
    not (cache_dir() / "manifest.json").exists(), reason="card art cache missing (make art)"
)

SEED = 3
MOVES = 4


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("game")
    args = ["render-game", "royal_family", "--seed", str(SEED), "--out", str(out), "--max-moves", str(MOVES)]
    assert main([*args, "--size", "320x180", "--fps", "10", "--settle", "0.3", "--quiet"]) == 0
    return out


def _labels(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]


def test_video_decodes_and_has_one_label_line_per_frame(rendered):
    cap = cv2.VideoCapture(str(rendered / "video.mp4"))
    assert cap.isOpened()
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    labels = _labels(rendered)
    assert len(frames) == len(labels) > 0
    assert frames[0].shape == (180, 320, 3)
    assert [r["frame"] for r in labels] == list(range(len(labels)))
    # the picture changes while a hand is in it: moving frames are not copies of the still
    moving = next(i for i, r in enumerate(labels) if r["phase"] == "moving" and r.get("beat") == "carry")
    diff = np.abs(frames[moving].astype(int) - frames[0].astype(int)).mean()
    assert diff > 2


def test_frames_say_which_observation_they_belong_to(rendered):
    labels = _labels(rendered)
    assert labels[0]["phase"] == "settled" and labels[0]["obs"] == 0
    assert [r["obs"] for r in labels] == sorted(r["obs"] for r in labels)
    moving = {r["obs"] for r in labels if r["phase"] == "moving"}
    assert moving == set(range(1, MOVES + 1))
    settled_after = {r["obs"] for r in labels if r["phase"] == "settled"}
    assert settled_after == set(range(0, MOVES + 1))
    held = [r for r in labels if any(c.get("held") for c in r["cards"])]
    assert held and all(r["phase"] == "moving" for r in held)


def test_observations_re_referee_without_reject(rendered, capsys):
    obs = (rendered / "observations.jsonl").read_text().splitlines()
    assert len(obs) == MOVES
    capsys.readouterr()
    assert main(["referee", "royal_family", "--observations", str(rendered / "observations.jsonl")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert not [line for line in printed if json.loads(line)["kind"] == "REJECT"]
    assert printed == (rendered / "announcements.jsonl").read_text().splitlines()


def test_settled_cards_lie_inside_their_zones(rendered):
    """Each labelled card of a settled frame sits in its zone as the frame's camera sees it."""
    layout = load_layout("royal_family")
    checked = 0
    for r in _labels(rendered):
        if r["phase"] != "settled":
            continue
        H = np.array(r["H"], np.float64)
        for c in r["cards"]:
            if not c["labelled"]:
                continue
            zone = layout.zones[c["zone"]]
            x0, y0, x1, y1 = zone.rect
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64).reshape(-1, 1, 2)
            poly = cv2.perspectiveTransform(corners, H).reshape(-1, 2).astype(np.float32)
            bx0, by0, bx1, by1 = c["box"]
            centre = ((bx0 + bx1) / 2, (by0 + by1) / 2)
            assert cv2.pointPolygonTest(poly, centre, True) >= -1.0, (r["frame"], c)
            checked += 1
    assert checked > 20


def test_table_follows_the_observations_like_the_simulator():
    """Through whole games, the table built from the observations alone holds every card
    where the simulator (which knows the truth) says it physically lies."""
    game = load_game("royal_family")
    for seed in (1, 2, 5):
        record = record_game("royal_family", seed)
        steps = iter(record.steps)
        sim, ref = simulator(game, seed), Referee(game)
        table = Table(record.initial)
        while not game.is_terminal(ref.state):
            for obs in sim.next_observations(ref.state):
                ref.feed(obs)
                assert next(steps).obs == obs
                if obs.type == "move":
                    table.apply(str(obs.card), obs.src, obs.dst)
            # the simulator moves its cards as it makes the batch: compare after each batch
            truth = Counter((str(c), z) for c, zones in sim.phys.items() for z in zones)
            assert Counter((c, z) for z, cards in table.zones.items() for c in cards) == truth
        assert next(steps, None) is None


def test_bad_options_are_one_line_errors(tmp_path, capsys):
    base = ["render-game", "royal_family", "--out", str(tmp_path / "v")]
    assert main([*base, "--size", "12x7"]) == 2
    assert "--size" in capsys.readouterr().err
    assert main([*base, "--max-moves", "0"]) == 2
    assert "--max-moves" in capsys.readouterr().err
    assert main(["render-game", "chess", "--out", str(tmp_path / "v")]) == 2
    err = capsys.readouterr().err
    assert "chess: render-game draws royal_family, royal_shuffle, houska_castle, dukes_up, royal_crush" in err

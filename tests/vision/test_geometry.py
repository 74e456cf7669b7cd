"""Card geometry: rotated rectangles from the renderer's corners, the refiner's targets, and
straightened crops."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from run_cardref import rendered_set

from vision.detector.evaluate import read_yolo_dataset
from vision.detector.geometry import (
    GEO_MARGIN,
    GEO_SIZE,
    decode,
    encode,
    rectified_crops,
    rects_from_quads,
)

ROOT = Path(__file__).resolve().parents[2]


def card_quad(center, angle_deg, short=60.0, long=84.0) -> np.ndarray:
    """TL, TR, BR, BL of a card turned ``angle_deg`` clockwise on the image."""
    a = np.radians(angle_deg)
    down = np.array([-np.sin(a), np.cos(a)])
    right = np.array([down[1], -down[0]])
    c = np.asarray(center, float)
    hl, hs = long / 2 * down, short / 2 * right
    return np.array([c - hl - hs, c - hl + hs, c + hl + hs, c + hl - hs])


def bounding_box(quad: np.ndarray) -> np.ndarray:
    return np.array([quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()])


@pytest.mark.parametrize("margin", [GEO_MARGIN, 0.5])
@pytest.mark.parametrize("angle", [0, 20, 45, 70, 90, 160, 200, -30])
def test_a_card_survives_encoding_whatever_its_turn(angle, margin):
    quad = card_quad((200, 150), angle)
    rects = rects_from_quads(quad[None])
    assert rects.long[0] == pytest.approx(84) and rects.short[0] == pytest.approx(60)
    folded = abs(angle) % 90
    assert rects.tilt()[0] == pytest.approx(min(folded, 90 - folded), abs=1e-6)
    box = bounding_box(quad)[None]
    target = encode(rects, box, margin)
    # The wider square holds the card in a smaller share of it.
    assert np.exp(target[0, 2]) == pytest.approx(84 / (box[0, 2:] - box[0, :2]).max() / (1 + 2 * margin))
    back = decode(target, box, margin).quads()[0]
    # The same corners, possibly listed from the opposite corner (a card turned by 180 degrees).
    err = min(np.abs(back - quad).max(), np.abs(np.roll(back, 2, axis=0) - quad).max())
    assert err < 1e-3


def test_a_quarter_turn_of_the_square_turns_its_target():
    """The refiner's training turns squares by 90 degrees: its target must describe the card
    drawn in the turned square."""
    import torch

    from vision.detector.geometry_train import turn

    quad = card_quad((40, 55), 25, short=36, long=50)
    img = np.zeros((GEO_SIZE, GEO_SIZE), np.uint8)
    cv2.fillConvexPoly(img, np.round(quad).astype(np.int32), 255)
    side = GEO_SIZE / (1 + 2 * GEO_MARGIN)
    box = np.array([[GEO_SIZE / 2 - side / 2] * 2 + [GEO_SIZE / 2 + side / 2] * 2])
    target = encode(rects_from_quads(quad[None]), box)
    turned, turned_target = turn(torch.from_numpy(img)[None, None].float(), torch.from_numpy(target), 1)
    mask = turned[0, 0].numpy().astype(np.uint8)
    contour = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0][0]
    seen = rects_from_quads(cv2.boxPoints(cv2.minAreaRect(contour))[None])
    said = decode(turned_target.numpy(), box)
    assert np.abs(said.center - seen.center).max() < 1.5  # pixel centres against edges
    assert abs((said.axis * seen.axis).sum()) > np.cos(np.radians(1.5))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    return rendered_set(tmp_path_factory.mktemp("geo") / "set", 3, 41)


def test_a_straightened_card_is_the_same_whichever_way_the_frame_is_turned(rendered):
    """Turning the whole frame by 90 degrees moves every card, but each card cut out by its
    corners is the same picture (or the same turned by 180 degrees)."""
    sample = next(s for s in read_yolo_dataset(rendered, "train") if s.cards)
    image = cv2.imread(str(sample.image))
    quads = np.array([c["quad"] for c in sample.cards])
    crops = rectified_crops(image, rects_from_quads(quads), (80, 112))
    h = image.shape[0]
    turned = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    turned_quads = np.stack([h - quads[..., 1], quads[..., 0]], axis=-1)
    again = rectified_crops(turned, rects_from_quads(turned_quads), (80, 112))
    for a, b in zip(crops.astype(float), again.astype(float), strict=True):
        diff = min(np.abs(a - b).mean(), np.abs(a - b[::-1, ::-1]).mean())
        assert diff < 1, diff


def test_cards_under_others_are_named_better_read_at_both_refiners_guesses():
    """Rendered tables of the held-out decks (piles, spreads, fans), each card named on its true
    box by the shipped detector. A card less than half in view has corners that can only be
    guessed; the wide refiner, whose square shows the cards around it, guesses them otherwise
    than the corner refiner, and the straightened views read at both guesses and averaged
    (for the cards the found box says are covered) name more of those cards right, and no
    fewer of the others, than at the corner refiner's alone."""
    from referee.cards import CLASSES
    from vision.detector import load_detector
    from vision.detector.two_stage import name_ids
    from vision.layout import load_layout
    from vision.synth.assets import Art, load_recipe
    from vision.synth.render import render_sample

    detector = load_detector(backend="onnx")
    wide = detector.wide
    # Its margin travels in its file, as its recipe trained it.
    recipe = yaml.safe_load((ROOT / "configs" / "detector" / "geometry_wide.yaml").read_text())
    assert wide is not None and wide.path.name == "cards_geo_wide.onnx"
    assert wide.margin == recipe["margin"] == 0.5 and detector.refiner.margin == GEO_MARGIN
    art = Art(load_recipe("holdout"))
    layout = load_layout("royal_family")
    right = {(hidden, both): 0 for hidden in (True, False) for both in (True, False)}
    count = {True: 0, False: 0}
    for i in range(100):
        s = render_sample(art, layout, 779, i, imgsz=960)
        image = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
        cards = [lb for lb in s.labels if lb.labelled]
        if not cards:
            continue
        boxes = np.array([lb.box for lb in cards], np.float32)
        named = {}
        for both in (True, False):
            detector.wide = wide if both else None
            named[both] = name_ids(detector.read_boxes(image, boxes)[0])
        for k, lb in enumerate(cards):
            hidden = lb.visible < 0.5
            count[hidden] += 1
            for both, ids in named.items():
                right[(hidden, both)] += CLASSES[int(ids[k])] == lb.cls
    assert count[True] >= 200 and count[False] >= 500, count
    # 172 against 162 of 285 hidden cards, 646 against 642 of 679 others, when it was written
    assert right[(True, True)] >= right[(True, False)] + 0.03 * count[True], right
    assert right[(False, True)] >= right[(False, False)], right


def test_a_refiner_whose_margin_is_no_number_is_one_clear_line(tmp_path):
    """The margin a refiner's file says it was trained with decodes its every output: a file
    that says something else is refused by name before any frame is read."""
    import onnx

    from referee.errors import CardrefError
    from referee.paths import models_dir
    from vision.detector.geometry import CornerRefiner

    model = onnx.load(str(models_dir() / "cards_geo_wide.onnx"))
    onnx.helper.set_model_props(model, {"margin": "wide"})
    bad = tmp_path / "cards_geo_wide.onnx"
    onnx.save(model, str(bad))
    with pytest.raises(CardrefError, match=r"cards_geo_wide.onnx: metadata 'margin' is 'wide', expected"):
        CornerRefiner(bad)

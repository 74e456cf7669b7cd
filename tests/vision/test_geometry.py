"""Card geometry: rotated rectangles from the renderer's corners, the refiner's targets, and
straightened crops."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
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


@pytest.mark.parametrize("angle", [0, 20, 45, 70, 90, 160, 200, -30])
def test_a_card_survives_encoding_whatever_its_turn(angle):
    quad = card_quad((200, 150), angle)
    rects = rects_from_quads(quad[None])
    assert rects.long[0] == pytest.approx(84) and rects.short[0] == pytest.approx(60)
    folded = abs(angle) % 90
    assert rects.tilt()[0] == pytest.approx(min(folded, 90 - folded), abs=1e-6)
    back = decode(encode(rects, bounding_box(quad)[None]), bounding_box(quad)[None]).quads()[0]
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

"""Reading zones from detections: rendered Royal Family layouts, their true boxes, a camera whose
homography the calibration knows; votes over reads; the settle detector on a made-up video."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cards import CLASS_ID, CLASSES
from vision.calibration import Calibration
from vision.detector.detections import Detections
from vision.layout import load_layout
from vision.motion import SettleDetector
from vision.synth.assets import Art, load_recipe
from vision.synth.camera import look_at
from vision.synth.compose import Light, draw_cards, new_canvas
from vision.synth.labels import label_cards
from vision.synth.scenes import layout_scene
from vision.table_state import SeenCard, Vote, place, read_table

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = load_layout("royal_family")


@pytest.fixture(scope="module")
def art() -> Art:
    return Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))


def rendered_layout(art: Art, seed: int, yaw: float):
    """A random game-like layout seen by a known camera: (camera, labelled cards)."""
    rng = np.random.default_rng(seed)
    scene = layout_scene(rng, art, LAYOUT)
    camera = look_at(1280, 960, (60, 50), 140, 60, 8, 30, yaw)
    H = camera.homography()
    canvas = new_canvas(np.full((960, 1280, 3), 0.3, np.float32))
    draw_cards(canvas, H, scene.cards, Light(), 9.0)
    labels = label_cards(scene.cards, canvas.drawn, camera, canvas.ids, canvas.ids)
    labels = [lb for lb in labels if lb.labelled]
    return camera, labels


def as_detections(labels) -> Detections:
    boxes = np.array([lb.box for lb in labels], np.float32).reshape(-1, 4)
    return Detections(
        boxes, np.full(len(labels), 0.9, np.float32), np.array([CLASS_ID[lb.cls] for lb in labels], np.int64)
    )


@pytest.mark.parametrize("seed,yaw", [(1, 0), (2, 180), (3, 90), (4, 3)])
def test_true_boxes_land_in_their_zones(art, seed, yaw):
    camera, labels = rendered_layout(art, seed, yaw)
    cal = Calibration(camera.homography(), (1280, 960), "markers", 0.0)
    seen = place(as_detections(labels), cal, LAYOUT)
    assert len(seen) == len(labels) > 5
    right = sum(s.zone == lb.zone for s, lb in zip(seen, labels, strict=True))
    assert right / len(labels) >= 0.95, [
        (lb.cls, lb.zone, s.zone) for s, lb in zip(seen, labels, strict=True) if s.zone != lb.zone
    ]


def test_a_back_read_in_a_face_up_zone_is_its_likeliest_face_or_nothing_if_faint(art):
    """A card read as a back where cards lie face up is named by its likeliest face (a court
    card the classifier took for a back); from a box unsure to hold a card at all (presence
    under FAINT_BACK_PRESENCE), read surely as a back or as a back more than any face with none
    worth trying, it is the zone's printed outline and is not a card."""
    camera, labels = rendered_layout(art, 1, 0)
    cal = Calibration(camera.homography(), (1280, 960), "markers", 0.0)
    card = next(lb for lb in labels if LAYOUT.zones[lb.zone].face == "up" and lb.cls != "BACK")
    probs = np.full((1, len(CLASSES)), 0.001, np.float32)
    probs[0, CLASS_ID["BACK"]], probs[0, CLASS_ID[card.cls]] = 0.8, 0.1

    def read(presence: float, back: float = 0.8, face: float = 0.1) -> list:
        probs[0, CLASS_ID["BACK"]], probs[0, CLASS_ID[card.cls]] = back, face
        named = CLASS_ID["BACK"] if back >= 0.5 else CLASS_ID[card.cls]  # a hesitant back: a face
        box = np.array([card.box], np.float32)
        found = Detections(box, np.array([presence], np.float32), np.array([named]), probs,
                           np.array([presence], np.float32))
        return [(s.name, s.zone) for s in place(found, cal, LAYOUT)]

    assert read(0.85) == [(card.cls, card.zone)]
    assert read(0.35) == []
    # A back more likely than any face, though under SURE_BACK, and no face worth trying: an
    # outline too (an empty discard pile's, at 640x360); with a face worth trying, a card.
    assert read(0.3, back=0.45, face=0.04) == []
    assert read(0.3, back=0.45, face=0.2) == [(card.cls, card.zone)]
    assert read(0.85, back=0.45, face=0.04) == [(card.cls, card.zone)]


def test_read_table_names_each_card_once_and_counts_backs():
    seen = [
        SeenCard("7S", "flop_1", (34, 50), 0.9),
        SeenCard("7S", "flop_2", (46, 50), 0.6),
        SeenCard("BACK", "draw_pile", (18, 50), 0.8),
        SeenCard("BACK", "draw_pile", (18, 51), 0.7),
        SeenCard("QH", None, (0, 0), 0.8),
    ]
    state = read_table(seen)
    assert state.cards == {"flop_1": ["7S"]} and state.backs == {"draw_pile": 2} and state.loose == ["QH"]
    jokers = [
        SeenCard("JK", "joker_spot", (104, 50), 0.9),
        SeenCard("JK", "flop_3", (58, 50), 0.8),
        SeenCard("JK", "flop_1", (34, 50), 0.3),
    ]
    assert read_table(jokers).cards == {"joker_spot": ["JK"], "flop_3": ["JK"]}  # two in a deck


def one_hot(name: str, p: float = 0.9) -> np.ndarray:
    probs = np.full(len(CLASSES), (1 - p) / (len(CLASSES) - 1), np.float32)
    probs[CLASSES.index(name)] = p
    return probs


def test_vote_ignores_one_bad_read():
    good = [
        SeenCard("7S", "flop_1", (34, 50), 0.9),
        SeenCard("AS", "castle_spades", (30, 15), 0.9),
        SeenCard("BACK", "draw_pile", (18, 50), 0.9),
    ]
    bad = [
        SeenCard("7C", "flop_1", (34.5, 50), 0.8),
        SeenCard("AS", "castle_spades", (30, 15), 0.9),
        SeenCard("QH", "flop_3", (58, 50), 0.4),
    ]  # misnamed, and a glint read as a card
    vote = Vote(LAYOUT)
    for s in (good, bad, good):
        vote.add(s)
    out = vote.result()
    assert out.cards == {"flop_1": ["7S"], "castle_spades": ["AS"]} and out.backs == {"draw_pile": 1}
    assert out.confidence["flop_1"] == 1.0  # three sightings, one place


def test_vote_names_a_wavering_card_by_its_averaged_probabilities():
    """Three reads name the card three ways, but the true name is second in each of them."""
    reads = []
    for wrong in ("QH", "KD", "JK"):
        p = one_hot(wrong, 0.45)
        p[CLASSES.index("QD")] = 0.40
        reads.append([SeenCard(wrong, "staging", (89, 50), 0.5, p)])
    vote = Vote(LAYOUT)
    for r in reads:
        vote.add(r)
    assert vote.result().cards == {"staging": ["QD"]}


def test_a_back_in_a_face_up_zone_takes_its_likeliest_face():
    p = one_hot("BACK", 0.6)
    p[CLASSES.index("QD")] = 0.3
    vote = Vote(LAYOUT)
    vote.add([SeenCard("BACK", "staging", (89, 50), 0.3, p), SeenCard("BACK", "draw_pile", (18, 50), 0.9, p)])
    out = vote.result()
    assert out.cards == {"staging": ["QD"]} and out.backs == {"draw_pile": 1}


def test_a_name_taken_by_a_surer_sighting_falls_to_the_next_likely_one():
    p = one_hot("8D", 0.5)
    p[CLASSES.index("8H")] = 0.3
    state = read_table([
        SeenCard("8D", "flop_1", (34, 50), 0.9, one_hot("8D")),
        SeenCard("8D", "flop_2", (46, 50), 0.5, p),
    ])
    assert state.cards == {"flop_1": ["8D"], "flop_2": ["8H"]}
    assert state.alternatives[("flop_2", "8H")] == ("8D",)  # still likely, if the rules say so


def test_boxes_on_the_mats_markers_are_no_cards(art):
    camera, labels = rendered_layout(art, 1, 0)
    cal = Calibration(camera.homography(), (1280, 960), "markers", 0.0)
    w, h = LAYOUT.card_size
    spots = [m.center for m in LAYOUT.markers] + [LAYOUT.zones["flop_1"].center]
    boxes = []
    for x, y in spots:
        corners = cal.to_image(np.array([[x - w / 2, y - h / 2], [x + w / 2, y + h / 2]], np.float64))
        boxes.append([*corners.min(axis=0), *corners.max(axis=0)])
    n = len(spots)
    det = Detections(np.array(boxes, np.float32), np.full(n, 0.8, np.float32), np.full(n, CLASS_ID["JK"]))
    seen = place(det, cal, LAYOUT)
    assert len(LAYOUT.markers) == 4 and [s.zone for s in seen] == ["flop_1"]


def test_settle_detector_reads_once_per_change(tmp_path):
    """A real video file: a still table, a hand sweeps over it and leaves a card, still again."""
    rng = np.random.default_rng(0)
    table = cv2.GaussianBlur(rng.integers(60, 120, (360, 480, 3), dtype=np.uint8), (0, 0), 3)
    path = tmp_path / "table.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30, (480, 360))
    for i in range(90):
        frame = table.copy()
        if i >= 55:
            cv2.rectangle(frame, (300, 100), (360, 190), (240, 240, 240), -1)  # the card put down
        if 30 <= i < 60:
            x = 40 + (i - 30) * 12
            cv2.ellipse(frame, (x, 200), (60, 35), 0, 0, 360, (150, 180, 220), -1)  # the hand
        writer.write(frame)
    writer.release()
    cap = cv2.VideoCapture(str(path))
    settle = SettleDetector(quiet_s=0.3)
    reads, moving = [], []
    i = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        r = settle.update(frame, i / 30)
        moving.append(r.moving)
        if r.read_now:
            reads.append(i)
            settle.mark_read(frame)
        i += 1
    assert i == 90
    assert any(moving[31:59]) and not any(moving[3:29]) and not any(moving[66:])
    assert len(reads) == 2, reads
    assert reads[0] < 30 and 60 < reads[1] < 75


def test_a_card_whose_likely_names_a_card_elsewhere_took_keeps_a_fainter_one():
    """A king read as the jack of its suit while that jack lies in view in another zone is
    another card: it keeps its likeliest free name, however faint, for the rules to judge; a
    second box on the same card in the same zone is still dropped."""
    king = np.full(len(CLASSES), 0.001, np.float32)
    king[CLASSES.index("JC")], king[CLASSES.index("KC")], king[CLASSES.index("QC")] = 0.6, 0.05, 0.02
    seen = [
        SeenCard("JC", "flop_2", (46, 50), 0.9, one_hot("JC")),
        SeenCard("JC", "flop_1", (34, 50), 0.8, king),
        SeenCard("JC", "flop_2", (46.5, 50), 0.5, king),
    ]
    state = read_table(seen)
    assert state.cards == {"flop_2": ["JC"], "flop_1": ["KC"]}
    assert [n for n, _ in state.candidates[("flop_1", "KC")][:2]] == ["JC", "QC"]


def pile_frames(art: Art) -> list[np.ndarray]:
    """640x360 frames: a five of clubs on a pile; an ace of spades slides in over it (frames
    30-44) and lies still for a second; a three of spades follows it (75-89)."""
    deck = art.decks[0]
    rng = np.random.default_rng(3)
    felt = cv2.GaussianBlur(rng.integers(40, 70, (360, 640, 3), dtype=np.uint8), (0, 0), 2)
    felt[..., 1] += 50  # green

    def face(cls: str) -> np.ndarray:
        rgba = cv2.resize(art.face(deck.faces[cls][0]), (23, 36), interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(rgba[..., :3], cv2.COLOR_RGB2BGR)

    five, ace, three = face("5C"), face("AS"), face("3S")
    frames = []
    for i in range(120):
        frame = felt.copy()
        frame[160:196, 300:323] = five
        for start, card in ((30, ace), (75, three)):
            if i >= start:
                x = min(600, 300 + max(0, start + 15 - i) * 20)  # slides in from the right
                frame[160:196, x : x + 23] = card
        frames.append(frame)
    return frames


def settled_reads(frames: list[np.ndarray], card_px: float | None, path: Path) -> list[int]:
    """The frames of a real video file of ``frames`` the settle detector reads."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30, (640, 360))
    for frame in frames:
        writer.write(frame)
    writer.release()
    settle = SettleDetector(quiet_s=0.4)
    settle.set_region(np.array([[20, 20], [620, 20], [620, 340], [20, 340]], np.float64), (640, 360), card_px)
    cap, reads, i = cv2.VideoCapture(str(path)), [], 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        if settle.update(frame, i / 30).read_now:
            reads.append(i)
            settle.mark_read(frame)
        i += 1
    assert i == len(frames)
    return reads


def test_a_card_laid_on_a_pile_over_a_card_like_it_is_read(art, tmp_path):
    """A three of spades on an ace of spades changes a few pixels of one small card: too few
    of the thumbnail's for its share threshold alone, but read once the camera knows a card's
    size (from its calibration). Unread, the next card on the pile would hide it."""
    frames = pile_frames(art)
    calibrated = settled_reads(frames, 23 * 36, tmp_path / "pile.mp4")
    assert len(calibrated) == 3, calibrated
    assert calibrated[0] < 30 and 45 < calibrated[1] < 75 and calibrated[2] > 90
    share_only = settled_reads(frames, None, tmp_path / "pile.mp4")
    assert len(share_only) < 3, share_only


@pytest.mark.parametrize("seed,yaw", [(5, 12), (6, 30), (7, 192)])
def test_hits_laid_across_land_in_their_zone_with_the_camera_turned(art, seed, yaw):
    """A camera turned to the mat makes a hit's axis-aligned box near square on the table;
    the card's corners (the refiner's) tell which way it lies. Every hit laid across a
    fortification lands in the across zone, and the fortifications under them stay."""
    camera, labels = [], []
    for s in range(seed, seed + 40):  # a layout with a hit laid across a fortification
        camera, labels = rendered_layout(art, s, yaw)
        if any(LAYOUT.zones[lb.zone].kind == "across" for lb in labels):
            break
    cal = Calibration(camera.homography(), (1280, 960), "markers", 0.0)
    boxes = as_detections(labels)
    quads = np.array([lb.quad for lb in labels], np.float32).reshape(-1, 4, 2)
    found = Detections(boxes.xyxy, boxes.confidence, boxes.class_id, corners=quads)
    seen = place(found, cal, LAYOUT)
    assert len(seen) == len(labels)
    across = [(s.zone, lb.zone) for s, lb in zip(seen, labels, strict=True)
              if LAYOUT.zones[lb.zone].kind == "across" or LAYOUT.zones[s.zone].kind == "across"]
    assert across and all(got == true for got, true in across), across
    right = sum(s.zone == lb.zone for s, lb in zip(seen, labels, strict=True))
    assert right / len(labels) >= 0.95


def test_a_part_of_the_table_beside_a_moving_arm_waits_longer_than_the_whole_table():
    """An arm keeps moving over the left of the table while a card is laid on the right: that
    part is read once it has been still for ``PARTIAL_QUIET_S`` (0.4 s), not after the whole
    table's 0.25 s (read at every pause of a passing hand, a drawn card's one still moment went
    unread); once the arm has gone, the whole table is read after its own 0.25 s."""
    from vision.motion import PARTIAL_AFTER_S, PARTIAL_QUIET_S

    fps, quiet_s = 30, 0.25
    rng = np.random.default_rng(3)
    table = cv2.GaussianBlur(rng.integers(40, 70, (360, 640, 3), dtype=np.uint8), (0, 0), 2)
    table[..., 1] += 50  # green felt
    for x in range(230, 460, 50):  # printed cards already on the table
        for y in (40, 250):
            table[y : y + 70, x : x + 45] = 235
            table[y + 8 : y + 62, x + 6 : x + 39] = rng.integers(0, 255, (54, 33, 1), dtype=np.uint8)
    # A sleeve's coarse pattern: an arm's pixels change as it moves, none stays still 0.4 s.
    pattern = rng.integers(90, 230, (4, 9, 3), dtype=np.uint8)
    arm = cv2.resize(pattern, (140, 50), interpolation=cv2.INTER_NEAREST)
    laid, gone = 60, 120  # the card down at frame 60 (2 s), the arm gone at frame 120
    settle = SettleDetector(quiet_s=quiet_s)
    parts, reads = [], []
    for i in range(180):
        frame = table.copy()
        if i >= laid:
            frame[130:220, 480:540] = 240
        if 3 <= i < gone:  # up and down over the left of the table, 0.3 s a sweep
            y = round(100 + 30 * np.sin(2 * np.pi * i / 9))
            frame[y : y + 50, 40:180] = arm
        r = settle.update(frame, i / fps)
        if i == 0:
            settle.mark_read(frame)  # the table read before the arm came
        elif r.partial:
            parts.append(i)
            assert not r.still[19:44, 11:44].any() and r.still[34:54, 121:134].all()  # not under the arm
            settle.mark_read(frame)
        elif r.read_now:
            reads.append(i)
            settle.mark_read(frame)
    assert PARTIAL_AFTER_S * fps < laid  # the arm has moved long enough for parts to be read
    assert parts and parts[0] == laid + round(PARTIAL_QUIET_S * fps), parts
    assert reads == [gone + 11], reads  # 0.07 s to see the arm gone, then 0.25 s of quiet
    assert parts[0] - laid > reads[0] - gone  # the part beside the arm waited the longer

"""The shipped detector (models/cards.onnx + models/cards_cls.onnx) on frames the project renders
with card designs never used in training."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from rendered_tables import rendered_tables

from referee.cards import CLASSES
from vision.calibration import detect_markers
from vision.detector import load_detector, shipped_model
from vision.detector.detections import BACK_ID, best_overlaps, box_iou, label_lines, with_other_names
from vision.detector.onnx_backend import letterbox
from vision.layout import load_layout
from vision.synth.assets import Art, load_recipe
from vision.synth.render import render_sample

ROOT = Path(__file__).resolve().parents[2]
SEED = 777  # not a training seed: training sets use seeds 1 and up, the held-out set 9001


@pytest.fixture(scope="module")
def frames() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(image, true boxes, true classes) of rendered table views and close-ups, held-out decks."""
    return rendered_tables(SEED, 8, 960, {"layout": 0.5, "closeup": 0.5})


def label_file(path: Path, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """A ``cardref detect --save-txt`` file: its (n, 6) rows ``class cx cy w h conf`` and the
    boxes as xyxy pixels of a ``w`` x ``h`` image."""
    lines = path.read_text().splitlines()
    rows = np.array([[float(v) for v in line.split()] for line in lines]).reshape(-1, 6)
    cx, cy, bw, bh = rows[:, 1] * w, rows[:, 2] * h, rows[:, 3] * w, rows[:, 4] * h
    return rows, np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)


def match(pred_boxes: np.ndarray, true_boxes: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one (true, predicted) pairs with IoU >= 0.5, best overlaps first."""
    if not len(pred_boxes) or not len(true_boxes):
        return []
    return best_overlaps(box_iou(true_boxes, pred_boxes))


def test_the_package_finds_the_shipped_model():
    assert shipped_model().exists() and shipped_model().with_name("cards_cls.onnx").exists()
    assert shipped_model().stat().st_size < 25 * 2**20


@pytest.mark.parametrize("imgsz", [None, 640])
def test_finds_and_names_the_cards_of_unseen_decks(frames, imgsz):
    """A floor under the shipped model as measured (48 of 50 found, 35 of those named right at
    confidence 0.1 at 416, 33 at 640; 2026-11-25, fourth-pass classifier); the targets of the
    model card are higher. The finder is exported with dynamic shapes, so the same file also runs at a larger
    input."""
    detector = load_detector(conf=0.1, imgsz=imgsz)
    found = named = total = 0
    for image, boxes, classes in frames:
        det = detector.detect(image)
        pairs = match(det.xyxy, boxes)
        total += len(boxes)
        found += len(pairs)
        named += sum(int(det.class_id[p] == classes[t]) for t, p in pairs)
    assert total > 40
    assert found / total >= 0.8, f"found {found} of {total} cards"
    assert named / max(found, 1) >= 0.65, f"named {named} of {found} found cards right"


def test_a_frame_is_letterboxed_to_a_stride_rectangle_and_boxes_map_back():
    """The finder sees a 1280x720 frame as 416x256 (not a 416 square: 0.6 of the work), and a
    box found there lands on the same place of the frame."""
    frame = np.full((720, 1280, 3), 40, np.uint8)
    boxed, box = letterbox(frame, 416, rect=True)
    assert boxed.shape == (256, 416, 3)
    assert letterbox(frame, 416)[0].shape == (416, 416, 3)
    assert letterbox(frame[:, :700], 640, rect=True)[0].shape == (640, 640, 3)  # 720x700: nearly square
    cv2.rectangle(frame, (300, 200), (400, 340), (250, 250, 250), -1)
    boxed, box = letterbox(frame, 416, rect=True)
    ys, xs = np.nonzero(boxed[:, :, 0] > 200)
    x0, y0 = (xs.min() - box.pad_x) / box.scale, (ys.min() - box.pad_y) / box.scale
    assert abs(x0 - 300) < 4 and abs(y0 - 200) < 4


@pytest.mark.parametrize("backend", ["ultralytics", "openvino"])
def test_backends_give_the_same_boxes(frames, backend):
    """ONNX Runtime on the .onnx, and Ultralytics on the .pt or OpenVINO on the same .onnx, run
    the card finder: same cards, nearly the same boxes; the classifier beside them then names
    them alike."""
    onnx = load_detector(shipped_model(".onnx"), backend="onnx")
    other = load_detector(shipped_model(".pt" if backend == "ultralytics" else ".onnx"), backend=backend)
    named = same = 0
    for image, _, _ in frames[:3]:
        a, b = onnx.finder.detect(image), other.finder.detect(image)
        a, b = a[a.confidence > 0.5], b[b.confidence > 0.3]
        assert len(a) > 0
        pairs = match(b.xyxy, a.xyxy)  # (ONNX index, Ultralytics index)
        assert len(pairs) == len(a), f"{len(a)} ONNX boxes, {len(pairs)} matched by {backend}"
        ious = [box_iou(a.xyxy[i : i + 1], b.xyxy[j : j + 1])[0, 0] for i, j in pairs]
        # Nearly the same boxes; one pair may be a neighbouring box on a stack of cards.
        assert np.median(ious) > 0.95 and np.mean(np.array(ious) > 0.85) >= 0.9, ious
        named_a, named_b = onnx.detect(image), other.detect(image)
        # Only surely named cards: an unsure name can tip either way on a slightly other box.
        sure_a, sure_b = named_a[named_a.confidence >= 0.3], named_b[named_b.confidence >= 0.3]
        both = match(sure_b.xyxy, sure_a.xyxy)
        named += len(both)
        same += sum(int(sure_a.class_id[i] == sure_b.class_id[j]) for i, j in both)
    assert named >= 5 and same >= 0.9 * named, f"{same} of {named} surely named cards named alike"


def test_the_default_runtime_is_openvino_only_where_it_computes_in_bfloat16():
    """OpenVINO ran the detector twice as fast as ONNX Runtime on a CPU with bfloat16 and 1.2
    times slower on one without (models/MODEL_CARD.md, "Speed"): every network of the default
    detector runs on the runtime this CPU is faster with."""
    from vision.detector import computes_bf16
    from vision.detector.onnx_backend import OpenVinoRunner, OrtRunner

    det = load_detector()
    runner = OpenVinoRunner if computes_bf16() else OrtRunner
    nets = [det.finder.run, det.refiner.run, det.wide.run, det.index.run, *(v.run for v in det.views)]
    assert len(nets) == 6 and all(isinstance(n, runner) for n in nets), [type(n).__name__ for n in nets]


def test_detect_command_writes_predictions(frames, tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    for i, (image, _, _) in enumerate(frames[:2]):
        cv2.imwrite(str(images / f"frame{i}.png"), image)
    out = subprocess.run([sys.executable, "-m", "vision.commands.main", "detect", str(images), "--save",
                          str(tmp_path / "drawn"), "--save-txt", str(tmp_path / "txt")],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "txt" / "classes.txt").read_text().split() == list(CLASSES)
    from vision.commands.detect import SCORING_CONF

    detector = load_detector(conf=SCORING_CONF, look_closer=True)  # as cardref detect
    for i, (image, _, _) in enumerate(frames[:2]):
        assert cv2.imread(str(tmp_path / "drawn" / f"frame{i}.jpg")) is not None
        rows = [line.split() for line in (tmp_path / "txt" / f"frame{i}.txt").read_text().splitlines()]
        det = detector.detect(image)
        named = label_lines(det)  # each box under its likely names
        assert len(rows) == len(named) > len(det) > 0
        # Printed: the boxes that are a card at least --conf (0.25) surely; the rest are only in the file.
        cards = int(re.search(rf"^frame{i}: (\d+) cards", out.stdout, re.M).group(1))
        assert cards == int((det.found >= 0.25).sum()) > 0
        h, w = image.shape[:2]
        for row, box, cls in zip(rows, named.xyxy, named.class_id, strict=True):
            assert int(row[0]) == cls
            assert abs(float(row[1]) * w - (box[0] + box[2]) / 2) < 1.0
            assert 0 < float(row[5]) <= 1


def test_the_label_files_keep_the_cards_found_unsurely_for_scoring(tmp_path):
    """Rendered held-out tables of restyled decks (dark faces, metallic inks; grey and tinted
    cameras), where the finder finds many cards unsurely: ``cardref detect --save-txt`` writes
    every box from ``SCORING_CONF`` on with its confidence, so a scoring tool that ranks them
    finds more cards than in files cut at 0.25, as the command wrote them before. Measured
    2026-12-01 on these 16 images (182 cards): found AP50 0.763 against 0.724, by card 0.601
    against 0.587; on the dev photos by card 0.968 against 0.960 (``models/MODEL_CARD.md``).
    Since the command looks closer at photos of small cards (``closer_look``), it finds more of
    them surely, and the files gain less: found AP50 0.916 against 0.903 (2026-12-06)."""
    from vision.detector.evaluate import any_name
    from vision.detector.metrics import ImageResult, evaluate

    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout_styles.yaml"))
    layout = load_layout("royal_family")
    images = tmp_path / "images"
    images.mkdir()
    truth = {}
    for i in range(16):
        s = render_sample(art, layout, SEED + 1, i, imgsz=960)
        (images / f"t{i:02d}.jpg").write_bytes(s.jpeg)
        labelled = [lb for lb in s.labels if lb.labelled]
        truth[f"t{i:02d}"] = (np.array([lb.box for lb in labelled], np.float32).reshape(-1, 4),
                              np.array([CLASSES.index(lb.cls) for lb in labelled], np.int64))
    out = subprocess.run([sys.executable, "-m", "vision.commands.main", "detect", str(images),
                          "--save-txt", str(tmp_path / "txt")], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    from_files, cut = [], []
    detector = load_detector(conf=0.25, look_closer=True)  # the command's detector, cut at 0.25
    for stem, (boxes, classes) in truth.items():
        h, w = cv2.imread(str(images / f"{stem}.jpg")).shape[:2]
        rows, xyxy = label_file(tmp_path / "txt" / f"{stem}.txt", w, h)
        from_files.append(ImageResult(boxes, classes, xyxy, rows[:, 0].astype(int), rows[:, 5], stem,
                                      first_lines(rows)))
        det = detector.detect(cv2.imread(str(images / f"{stem}.jpg")))
        cut.append(ImageResult(boxes, classes, det.xyxy, det.class_id, det.confidence, stem))
    found_files = evaluate([any_name(r) for r in from_files], 1).map50
    found_cut = evaluate([any_name(r) for r in cut], 1).map50
    assert sum(len(b) for b, _ in truth.values()) > 100
    assert found_files > found_cut + 0.01, (found_files, found_cut)
    assert evaluate(from_files, len(CLASSES)).map50 > evaluate(cut, len(CLASSES)).map50


def first_lines(rows: np.ndarray) -> np.ndarray:
    """True for the first line of each box of a label file (its likeliest name: the lines of a
    box's other names come after every box's first line)."""
    _, first = np.unique(rows[:, 1:5], axis=0, return_index=True)
    return np.isin(np.arange(len(rows)), first)


def test_the_label_files_give_an_unsurely_named_card_its_other_likely_names(tmp_path, frames):
    """Held-out tables and close-ups: each face-up card's box is written under its likeliest
    names (at most ``NAMES_PER_BOX``, each at least ``OTHER_NAME_FLOOR`` likely, never the back),
    its first line the name ``cardref detect`` prints, the others at ``OTHER_NAME_WEIGHT`` of
    their confidence (a tenth of that again where a surer line of the name lies on the same card,
    ``REPEAT_WEIGHT``); a box named BACK has one line. Scored from the files, the cards named
    wrongly but with their right name among the likely ones count, lower in the ranking.
    Measured 2026-12-06 on the held-out set (seed 9001): mAP50 0.855 against 0.805 with one name
    per box (``models/MODEL_CARD.md``)."""
    from vision.detector.detections import NAMES_PER_BOX, OTHER_NAME_FLOOR, OTHER_NAME_WEIGHT, REPEAT_WEIGHT
    from vision.detector.metrics import ImageResult, evaluate, likeliest_names

    images = tmp_path / "images"
    images.mkdir()
    for i, (image, _, _) in enumerate(frames):
        cv2.imwrite(str(images / f"f{i}.png"), image)
    out = subprocess.run([sys.executable, "-m", "vision.commands.main", "detect", str(images),
                          "--save-txt", str(tmp_path / "txt")], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    from vision.calibration import without_markers

    detector, layout = load_detector(conf=0.01, look_closer=True), load_layout("royal_family")
    scored, others = [], 0
    for i, (image, boxes, classes) in enumerate(frames):
        h, w = image.shape[:2]
        rows, xyxy = label_file(tmp_path / "txt" / f"f{i}.txt", w, h)
        det = without_markers(detector.detect(image), image, layout)  # as cardref detect
        first = first_lines(rows)
        assert first.sum() == len(det)
        assert np.array_equal(rows[first, 0].astype(int), det.class_id)  # the printed names
        for j in range(len(det)):
            same = np.flatnonzero(np.abs(xyxy - xyxy[first][j]).max(axis=1) < 0.01)
            names = rows[same, 0].astype(int)
            assert len(names) == len(set(names)) <= (1 if det.class_id[j] == BACK_ID else NAMES_PER_BOX)
            assert BACK_ID not in names[1:]
            p = det.class_probs[j, names[1:]]
            assert (p >= OTHER_NAME_FLOOR - 1e-6).all()
            other = OTHER_NAME_WEIGHT * det.presence[j] * p
            written = rows[same[1:], 5]
            lowered = np.isclose(written, REPEAT_WEIGHT * other, rtol=1e-4, atol=1e-9)
            assert (np.isclose(written, other, rtol=1e-4, atol=1e-9) | lowered).all()
            others += len(names) - 1
        scored.append(ImageResult(boxes, classes, xyxy, rows[:, 0].astype(int), rows[:, 5], f"f{i}", first))
    assert others > 10
    several = evaluate(scored, len(CLASSES)).map50
    one = evaluate([likeliest_names(r) for r in scored], len(CLASSES)).map50
    assert several > one, (several, one)


def test_a_second_box_of_one_name_on_a_card_counts_at_a_tenth():
    """Held-out game tables (24, 1280 px): in the label lines, of two lines of one face name whose
    boxes overlap by ``REPEAT_IOU`` or more, the less sure is lowered to ``REPEAT_WEIGHT`` of its
    confidence (a deck holds one card of a face: the finder boxed it twice); backs and jokers,
    of which a deck holds several, never are. The tables score higher so. Measured 2026-12-06:
    mAP50 0.907 against 0.904 here; the held-out set (seed 9001) 0.880 against 0.876."""
    from vision.detector.detections import JOKER_ID, REPEAT_IOU, REPEAT_WEIGHT
    from vision.detector.metrics import ImageResult, evaluate

    detector = load_detector(conf=0.01, look_closer=True)
    before, after, lowered = [], [], 0
    for i, (image, boxes, classes) in enumerate(rendered_tables(SEED + 1, 24, 1280, {"layout": 1.0})):
        det = detector.detect(image)
        named, lines = with_other_names(det), label_lines(det)
        assert np.array_equal(named.xyxy, lines.xyxy) and np.array_equal(named.class_id, lines.class_id)
        low = ~np.isclose(lines.confidence, named.confidence)
        assert np.allclose(lines.confidence[low], REPEAT_WEIGHT * named.confidence[low])
        assert not np.isin(lines.class_id[low], [BACK_ID, JOKER_ID]).any()
        iou = box_iou(lines.xyxy, lines.xyxy)
        same = lines.class_id[:, None] == lines.class_id[None, :]
        surer = named.confidence[None, :] > named.confidence[:, None]
        kept_over = same & surer & (iou >= REPEAT_IOU) & ~low[None, :]
        face = ~np.isin(lines.class_id, [BACK_ID, JOKER_ID])
        # A face's line is lowered exactly when a surer line of its name, itself not lowered, overlaps it.
        assert (kept_over.any(axis=1) == low)[face].all()
        lowered += int(low.sum())
        first = np.arange(len(named)) < len(det)
        for scored, d in ((before, named), (after, lines)):
            scored.append(ImageResult(boxes, classes, d.xyxy, d.class_id, d.confidence, str(i), first))
    assert lowered > 50 and sum(len(r.gt_boxes) for r in before) > 300
    assert evaluate(after, len(CLASSES)).map50 > evaluate(before, len(CLASSES)).map50


def test_cards_whose_boxes_overlap_a_neighbours_each_keep_their_own_box():
    """Fans, ribbon spreads and piles of the held-out decks: the box of what shows of a card
    overlaps its neighbour's, and the finder's non-maximum suppression must not take one for a
    second box of the other. Measured 2026-12-01 on these tables (64 rendered, 77 cards whose
    true box overlaps another's at IoU > 0.5), every box from ``SCORING_CONF`` as the label
    files hold them: 0.922 of those cards have a box of their own (IoU >= 0.5, one box per
    card), 0.818 with the suppression at IoU 0.6 as it was before."""
    from vision.commands.detect import SCORING_CONF

    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    layout = load_layout("royal_family")
    detector = load_detector(conf=SCORING_CONF)
    crowded = own = 0
    for i in range(64):
        s = render_sample(art, layout, SEED + 1, i, imgsz=960, weights={"layout": 0.5, "scatter": 0.5})
        boxes = np.array([lb.box for lb in s.labels if lb.labelled], np.float32).reshape(-1, 4)
        near = box_iou(boxes, boxes)
        np.fill_diagonal(near, 0)
        overlapping = near.max(axis=1, initial=0) > 0.5
        if not overlapping.any():
            continue
        det = detector.detect(cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR))
        crowded += int(overlapping.sum())
        own += sum(1 for t, _ in match(det.xyxy, boxes) if overlapping[t])
    assert crowded >= 50
    assert own / crowded >= 0.88, f"{own} of {crowded}"


def test_detect_command_rejects_what_is_not_an_image(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    out = subprocess.run([sys.executable, "-m", "vision.commands.main", "detect", str(bad)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert str(bad) in out.stderr and "not an image" in out.stderr


def test_boxes_on_things_that_are_not_cards_lose_their_confidence():
    """Rendered tables with printed clutter (book covers, flyers, notes) and unseen decks: the
    shipped classifier's not-a-card output marks most of the finder's boxes on no card, and
    few of its boxes on cards, so those boxes rank below the cards (their names unchanged).
    Measured 2026-11-25 (eighth-pass classifier): with the CPU finder 46 of 46 boxes on no card
    below 0.5, 89 of 93 boxes on cards above; the GPU finder puts only 17 boxes on no card,
    11 of them below 0.5 (four of the rest lie on the visible part of an overlapped card).
    2026-11-27, the finder fine-tuned at 416 and the eleventh-pass box view, on the tables with
    ribbon spreads: 16 of 24 below 0.5 (the rest on printed covers), 283 of 293 cards above."""
    from vision.detector.not_a_card import on_no_card

    holdout = load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml")
    art = Art(type(holdout)(holdout.name, holdout.decks, holdout.source, {"printed_clutter": True}))
    layout = load_layout("royal_family")
    detector = load_detector(conf=0.05)
    on_cards, off_cards = [], []
    for i in range(30):  # ten images gave as few as 12 boxes on no card: too few to judge by
        s = render_sample(art, layout, SEED + 1, i, imgsz=960)
        image = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
        boxes = np.array([lb.box for lb in s.labels if lb.labelled], np.float32).reshape(-1, 4)
        found = detector.finder.detect(image)
        _, card, _ = detector.read_boxes(image, found.xyxy)
        off = on_no_card(boxes, found.xyxy)
        on = box_iou(boxes, found.xyxy).max(axis=0) >= 0.5 if len(boxes) else np.zeros(len(found), bool)
        off_cards += list(card[off])
        on_cards += list(card[on])
    assert len(off_cards) >= 10 and len(on_cards) >= 40
    off_cards, on_cards = np.array(off_cards), np.array(on_cards)
    assert np.mean(off_cards < 0.5) >= 0.6, f"{len(off_cards)} boxes on no card: {sorted(off_cards)}"
    assert np.mean(on_cards >= 0.5) >= 0.85, f"{len(on_cards)} boxes on cards"


def test_the_referee_counts_cards_and_not_the_mat(game_video):
    """Settled frames of a rendered game on the printed mat: the finder puts boxes on the
    mat's markers and empty zone outlines; counted by presence (the finder's confidence times
    the classifier's probability of a card), most of them are not cards and every card is.
    Measured 2026-11-25 on four bench games: 528 such boxes -> 61, 1004 of 1004 cards kept."""
    import json

    from vision.detector.not_a_card import on_no_card
    from vision.pipeline import Settings

    labels = [json.loads(line) for line in (game_video / "labels.jsonl").read_text().splitlines()]
    settled = [r for r in labels if r["phase"] == "settled"][::20]
    detector = load_detector()
    video = cv2.VideoCapture(str(game_video / "video.mp4"))
    off_finder = off_counted = on_finder = on_counted = 0
    for record in settled:
        video.set(cv2.CAP_PROP_POS_FRAMES, record["frame"])
        ok, frame = video.read()
        assert ok, f"frame {record['frame']} of {game_video / 'video.mp4'}"
        cards = np.array([c["box"] for c in record["cards"] if c["labelled"]], np.float32).reshape(-1, 4)
        det = detector.detect(frame)
        off = on_no_card(cards, det.xyxy)
        counted = det.found >= Settings.conf  # what the camera referee counts as a card
        off_finder, off_counted = off_finder + int(off.sum()), off_counted + int((off & counted).sum())
        on_finder, on_counted = on_finder + int((~off).sum()), on_counted + int((~off & counted).sum())
    assert len(settled) >= 5 and off_finder >= 3 * len(settled)  # at least the markers, every frame
    assert off_counted <= 0.3 * off_finder, f"{off_counted} of {off_finder} boxes on no card counted"
    assert on_counted >= 0.98 * on_finder, f"{on_counted} of {on_finder} boxes on cards counted"


def test_court_cards_whose_picture_fills_the_card_are_not_named_face_down():
    """The held-out `gnome-guyenne-classic` court cards have no index and a picture over the
    whole card: a classifier may give them more probability as a back than as any one face (the
    box-view classifier alone did for KS and KC on this clean art). A box is named face down only
    when the back outweighs all the faces together, so they keep a face name, while the deck's
    backs stay backs."""
    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    deck = next(d for d in art.decks if d.name == "gnome-guyenne-classic")
    names = [c for c in sorted(deck.faces) if c[0] in "JQK" and c != "JK"] + ["BACK", "BACK"]
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)  # BGR green baize
    boxes = []
    for i, name in enumerate(names):
        face = art.face(deck.faces[name][0]).astype(np.float32) / 255
        x, y = 40 + (i % 7) * 175, 60 + (i // 7) * 330
        card = cv2.resize(face, (120, 170), interpolation=cv2.INTER_AREA)
        under = frame[y : y + 170, x : x + 120].astype(np.float32) / 255
        rgb = card[..., :3] * card[..., 3:] + under[..., ::-1] * (1 - card[..., 3:])
        frame[y : y + 170, x : x + 120] = (rgb[..., ::-1] * 255).astype(np.uint8)
        boxes.append([x, y, x + 120, y + 170])
    det = load_detector(conf=0.25).detect(frame)
    pairs = match(det.xyxy, np.array(boxes, np.float32))
    assert len(pairs) == len(names)
    named = {names[t]: CLASSES[det.class_id[p]] for t, p in pairs if names[t] != "BACK"}
    assert "BACK" not in named.values(), named
    assert [CLASSES[det.class_id[p]] for t, p in pairs if names[t] == "BACK"] == ["BACK", "BACK"]
    # The rule itself: a back likelier than any one face but not than all of them is a face.
    from vision.detector.two_stage import name_ids

    hesitant = np.full((1, len(CLASSES)), 0.6 / (len(CLASSES) - 1), np.float32)
    hesitant[0, CLASSES.index("BACK")], hesitant[0, CLASSES.index("KS")] = 0.4, 0.05
    assert CLASSES[name_ids(hesitant)[0]] == "KS"


def test_detect_leaves_out_the_mats_markers(tmp_path):
    """The shipped sample game's video, mat in view: the shipped model names the four ArUco
    markers as cards (jokers, at low confidence); ``cardref detect`` lists none of them."""
    video = ROOT / "datasets" / "samples" / "royal_family_demo" / "video.mp4"
    out = subprocess.run([sys.executable, "-m", "vision.commands.main", "detect", str(video),
                          "--vid-stride", "900", "--save-txt", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    cap = cv2.VideoCapture(str(video))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 900)
    ok, image = cap.read()
    cap.release()
    assert ok
    layout = load_layout("royal_family")
    markers = detect_markers(image, layout)
    assert sorted(markers) == [0, 1, 2, 3]
    squares = np.array([[c[:, 0].min(), c[:, 1].min(), c[:, 0].max(), c[:, 1].max()]
                        for c in markers.values()])
    raw = load_detector().detect(image)
    assert (box_iou(raw.xyxy, squares).max(axis=0) > 0.3).sum() >= 3  # the model does take them for cards
    h, w = image.shape[:2]
    rows, listed = label_file(tmp_path / "video_000900.txt", w, h)
    assert box_iou(listed.astype(np.float32), squares.astype(np.float32)).max() < 0.1
    shown = int(re.search(r"^video_000900: (\d+) cards", out.stdout, re.M).group(1))
    assert len(rows) >= shown >= 8


def test_a_grey_camera_is_told_from_a_colour_one():
    from vision.detector.two_stage import is_grey

    real = sorted((ROOT / "datasets" / "samples" / "real_dev_edje").rglob("*.[jJ][pP][gG]"))
    assert len(real) >= 5
    for path in real:
        image = cv2.imread(str(path))
        assert not is_grey(image), path
        assert is_grey(cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)), path


def test_in_a_grey_frame_the_faces_are_named_by_the_views_that_read_them_without_colour(monkeypatch):
    """Held-out tables and close-ups filmed by a grey camera: with the box view's say among the
    faces lowered (it learned to name cards with their colours), more faces are named right,
    and every face-down card stays a back."""
    from vision.detector import two_stage

    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    layout = load_layout("royal_family")
    detector = load_detector(conf=0.01)
    tables = []
    for i in range(16):
        s = render_sample(art, layout, SEED, i, imgsz=960, weights={"layout": 0.5, "closeup": 0.5})
        grey = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
        labelled = [lb for lb in s.labels if lb.labelled]
        if labelled:
            tables.append((cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), labelled))

    def named(weight: float) -> tuple[int, int, int, int]:
        monkeypatch.setattr(two_stage, "GREY_BOX_WEIGHT", weight)
        faces = right = backs = kept = 0
        for image, labelled in tables:
            probs, _, _ = detector.read_boxes(image, np.array([lb.box for lb in labelled], np.float32))
            for lb, i in zip(labelled, two_stage.name_ids(probs), strict=True):
                if lb.cls == "BACK":
                    backs += 1
                    kept += CLASSES[int(i)] == "BACK"
                else:
                    faces += 1
                    right += CLASSES[int(i)] == lb.cls
        return faces, right, backs, kept

    faces, lowered, backs, kept = named(two_stage.GREY_BOX_WEIGHT)
    _, equal, _, kept_equal = named(1.0)
    assert faces >= 100 and backs >= 5
    # 127 against 114 of 147 faces, 8 of 8 backs both ways, when it was written
    assert lowered >= equal + 0.05 * faces, (lowered, equal, faces)
    assert kept == kept_equal == backs


def test_a_card_mostly_under_others_is_named_more_by_its_corner_index(monkeypatch):
    """Held-out tables (piles, spreads, fans): of a card less than half in view the whole-card
    views see mostly the cards above it, the index reader the corner that shows. With the
    index's say raised on the cards the found box says are covered, those cards' true names
    are likelier and more of them named right, the cards in view named as well, and the
    face-down cards keep their probability of a back."""
    from vision.detector import two_stage

    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    layout = load_layout("royal_family")
    detector = load_detector(conf=0.01)
    tables = []
    for i in range(80):
        s = render_sample(art, layout, 783, i, imgsz=960)
        labelled = [lb for lb in s.labels if lb.labelled]
        if labelled:
            tables.append((cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR), labelled))

    def named(weight: float) -> dict[str, list]:
        monkeypatch.setattr(two_stage, "COVERED_INDEX_WEIGHT", weight)
        out: dict[str, list] = {"hidden": [], "shown": [], "back": []}
        for image, labelled in tables:
            probs, _, _ = detector.read_boxes(image, np.array([lb.box for lb in labelled], np.float32))
            ids = two_stage.name_ids(probs)
            for k, lb in enumerate(labelled):
                true = CLASSES.index(lb.cls)
                part = "back" if lb.cls == "BACK" else "hidden" if lb.visible < 0.5 else "shown"
                out[part].append((float(probs[k, true]), ids[k] == true))
        return {k: np.array(v).reshape(-1, 2) for k, v in out.items()}

    raised, equal = named(two_stage.COVERED_INDEX_WEIGHT), named(two_stage.INDEX_WEIGHT)
    hidden, shown = len(raised["hidden"]), len(raised["shown"])
    assert hidden >= 100 and shown >= 300 and len(raised["back"]) >= 20
    # When it was written: the true name's mean probability 0.277 against 0.265 on 155 hidden
    # cards, 100 against 98 named right; 563 against 565 of 590 cards in view
    assert raised["hidden"][:, 0].mean() >= equal["hidden"][:, 0].mean() + 0.005
    assert raised["hidden"][:, 1].sum() >= equal["hidden"][:, 1].sum()
    assert raised["shown"][:, 1].sum() >= equal["shown"][:, 1].sum() - 0.01 * shown
    np.testing.assert_allclose(raised["back"][:, 0], equal["back"][:, 0], atol=1e-5)

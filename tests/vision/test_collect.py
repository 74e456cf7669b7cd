"""``cardref collect`` on a real video file made from rendered frames: one frame kept per settled
table state, duplicates skipped, Ultralytics labels, flags, atomic writes, the guided plan."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from collect_video import render_plan, render_states, write_detections, write_video

from referee.cards import CLASSES
from vision.calibration import Calibration
from vision.collect.guided import make_plan
from vision.collect.store import read_manifest
from vision.collect.yolo_labels import read_labels, to_detections
from vision.commands.main import main
from vision.detector.detections import box_iou
from vision.layout import load_layout

ORDER = [0, 1, 0, 2]  # the third state is the first again: a duplicate to skip


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    folder = tmp_path_factory.mktemp("video")
    states = render_states(3)
    shown = write_video(folder / "table.mp4", states, ORDER)
    return folder / "table.mp4", states, shown


def edit_reads(frame: int, state: int, conf: np.ndarray, classes: np.ndarray) -> None:
    """State 1: its first card is read as another card on every other frame (a dispute);
    state 2: its first card is unsure (0.3)."""
    if state == 1 and frame % 2:
        classes[0] = (classes[0] + 1) % len(CLASSES)
    if state == 2:
        conf[0] = 0.3


def test_one_frame_per_settled_state_with_flags(video, tmp_path, capsys):
    path, states, shown = video
    det = tmp_path / "detections.jsonl"
    write_detections(det, states, shown, edit_reads)
    out = tmp_path / "data"
    assert main(["collect", "--camera", str(path), "--out", str(out), "--detections", str(det)]) == 0
    printed = capsys.readouterr().out
    assert "kept 3 frames (2 flagged for review), 1 duplicates skipped" in printed
    entries = read_manifest(out)
    assert [shown[e.frame] for e in entries] == [0, 1, 2]
    assert all(e.session == "s001" and e.split == "train" and e.trigger == "settled" for e in entries)
    assert not entries[0].flagged
    assert entries[1].flagged and "also read as" in entries[1].reason
    assert (
        entries[2].flagged
        and entries[2].reason.startswith("low confidence")
        and entries[2].min_confidence == 0.3
    )
    # The Ultralytics layout, with the 54 classes.
    spec = yaml.safe_load((out / "data.yaml").read_text())
    assert spec["train"] == "images/train" and spec["val"] == "images/val" and len(spec["names"]) == 54
    assert (out / "classes.txt").read_text().split() == list(CLASSES)
    for e in entries:
        assert (out / e.image).exists() and Path(e.image).stem == Path(e.label).stem
        boxes = read_labels(out / e.label)
        truth = states[shown[e.frame]]
        got = to_detections(boxes, e.width, e.height)
        assert len(got) == len(truth.boxes)
        assert np.allclose(got.xyxy, truth.boxes, atol=1.0)
        assert (got.class_id[1:] == truth.classes[1:]).all()  # the first card of state 1 is disputed
    assert not list(out.rglob("*.tmp"))


def test_sessions_split_train_val_and_every(video, tmp_path, capsys):
    """Session 2 goes to val by default; ``--every`` adds still frames between the states."""
    path, states, shown = video
    det = tmp_path / "detections.jsonl"
    write_detections(det, states, shown)
    out = tmp_path / "data"
    base = ["collect", "--camera", str(path), "--out", str(out), "--detections", str(det)]
    assert main(base) == 0
    assert main([*base, "--every", "0.5", "--min-change", "0"]) == 0
    entries = read_manifest(out)
    first = [e for e in entries if e.session == "s001"]
    second = [e for e in entries if e.session == "s002"]
    assert len(first) == 3 and {e.split for e in first} == {"train"}
    assert {e.split for e in second} == {"val"} and any(e.trigger == "every" for e in second)
    assert len(second) > 4
    assert all(e.image.startswith("images/val/s002_") for e in second)
    capsys.readouterr()


def test_unreadable_frames_are_reported_and_skipped(video, tmp_path, capsys):
    import cv2

    path, states, shown = video
    folder = tmp_path / "frames"
    folder.mkdir()
    for k, s in enumerate([0, 0, 0, 0, 0]):
        cv2.imwrite(str(folder / f"f{k}.jpg"), states[s].image)
    (folder / "f2.jpg").write_bytes(b"not a jpeg")
    det = tmp_path / "detections.jsonl"
    write_detections(det, states, [0] * 5)
    out = tmp_path / "data"
    args = [
        "collect",
        "--camera",
        str(folder),
        "--out",
        str(out),
        "--detections",
        str(det),
        "--fps",
        "5",
        "--quiet-s",
        "0.1",
        "--reads",
        "1",
    ]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "frame 2: unreadable" in printed and "1 unreadable frames skipped" in printed
    assert len(read_manifest(out)) == 1


def test_a_torn_manifest_line_loses_nothing_before_it(video, tmp_path, capsys):
    path, states, shown = video
    det = tmp_path / "detections.jsonl"
    write_detections(det, states, shown)
    out = tmp_path / "data"
    assert main(["collect", "--camera", str(path), "--out", str(out), "--detections", str(det)]) == 0
    with (out / "review.jsonl").open("a") as f:
        f.write('{"image": "images/train/s001_0')  # killed in the middle of a write
    assert len(read_manifest(out)) == 3
    capsys.readouterr()


def test_bad_detections_line_is_one_clear_error(video, tmp_path, capsys):
    path, _, _ = video
    det = tmp_path / "detections.jsonl"
    det.write_text('{"frame": 0, "xyxy": [], "confidence": [], "class": []}\nnot json\n')
    assert (
        main(["collect", "--camera", str(path), "--out", str(tmp_path / "d"), "--detections", str(det)]) == 2
    )
    assert f"{det}:2:" in capsys.readouterr().err


@pytest.mark.shipped_model
def test_prelabels_of_the_shipped_model_match_the_renderer(video, tmp_path, capsys):
    """Needs models/cards.onnx + cards_cls.onnx: the pre-labels are the true boxes (IoU >= 0.5)
    for most cards, and mostly name them right."""
    path, states, shown = video
    out = tmp_path / "data"
    assert main(["collect", "--camera", str(path), "--out", str(out)]) == 0
    print(capsys.readouterr().out)
    entries = read_manifest(out)
    assert [shown[e.frame] for e in entries] == [0, 1, 2]
    total = found = named = 0
    for e in entries:
        truth = states[shown[e.frame]]
        got = to_detections(read_labels(out / e.label), e.width, e.height)
        total += len(truth.boxes)
        if not len(got):
            continue
        iou = box_iou(truth.boxes, got.xyxy)
        best = iou.argmax(axis=1)
        hit = iou[np.arange(len(best)), best] >= 0.5
        found += int(hit.sum())
        named += int((got.class_id[best][hit] == truth.classes[hit]).sum())
    print(f"pre-labels: {found}/{total} true boxes found (IoU >= 0.5), {named} named right")
    assert found / total >= 0.7 and named / max(found, 1) >= 0.6  # unseen decks, as test_detector_shipped


def test_the_plan_covers_every_class_and_prints(capsys):
    layout = load_layout("royal_family")
    steps = make_plan(layout)
    cards = [p.card for s in steps for p in s.placements]
    assert set(cards) == set(CLASSES) and len(steps) == 3
    for s in steps:  # one card per zone
        assert len({p.zone for p in s.placements}) == len(s.placements)
    assert main(["collect", "--plan"]) == 0
    printed = capsys.readouterr().out
    assert "Layout 3 of 3" in printed and "dungeon_spades" in printed and "any card FACE DOWN" in printed
    assert all(c in printed.split() for c in CLASSES if c != "BACK")


def test_guided_labels_come_from_the_plan(tmp_path, capsys):
    """A recorded video of the three layouts: classes from the plan, boxes from the detector
    (here the renderer's true boxes, with one card misread: labelled as planned, flagged)."""
    layout = load_layout("royal_family")
    steps = make_plan(layout)
    states, H = render_plan(steps, layout)
    video = tmp_path / "guided.mp4"
    shown = write_video(video, states, [0, 1, 2])
    misread = int(states[1].classes[0])

    def edit(frame, state, conf, classes):
        if state == 1:
            classes[0] = (classes[0] + 1) % 53

    det = tmp_path / "detections.jsonl"
    write_detections(det, states, shown, edit)
    cal = Calibration(H, (960, 720), "layout", 0.0).save(tmp_path / "cal.json")
    out = tmp_path / "data"
    args = [
        "collect",
        "--guided",
        "--no-prompt",
        "--camera",
        str(video),
        "--out",
        str(out),
        "--detections",
        str(det),
        "--calibration",
        str(cal),
    ]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Layout 1 of 3" in printed and "kept 3 frames (1 flagged for review)" in printed
    entries = read_manifest(out)
    assert [e.trigger for e in entries] == ["guided"] * 3
    seen = set()
    for e, step, state in zip(entries, steps, states, strict=True):
        got = to_detections(read_labels(out / e.label), e.width, e.height)
        assert sorted(got.names) == sorted(p.card for p in step.placements)
        for box, cls in zip(state.boxes, state.classes, strict=True):  # each true box, its class
            k = int(np.argmax(box_iou(box[None], got.xyxy)[0]))
            assert box_iou(box[None], got.xyxy)[0, k] > 0.99 and got.class_id[k] == cls
        seen |= set(got.names)
    assert seen == set(CLASSES)
    assert f"model read {CLASSES[(misread + 1) % 53]}" in entries[1].reason and not entries[0].flagged


def test_a_run_that_keeps_nothing_uses_no_session(video, tmp_path, capsys):
    path, states, shown = video
    det = tmp_path / "detections.jsonl"
    write_detections(det, states, shown)
    out = tmp_path / "data"
    empty = tmp_path / "empty.mp4"
    write_video(empty, states[:1], [0])
    base = ["collect", "--out", str(out), "--detections", str(det), "--quiet-s", "5"]  # never settles
    assert main([*base, "--camera", str(empty)]) == 0 and "kept 0 frames" in capsys.readouterr().out
    assert main(["collect", "--out", str(out), "--detections", str(det), "--camera", str(path)]) == 0
    assert {e.session for e in read_manifest(out)} == {"s001"}


def test_guided_without_a_terminal_says_so(video, tmp_path, capsys):
    path, states, shown = video
    det = tmp_path / "detections.jsonl"
    write_detections(det, states, shown)
    args = [
        "collect",
        "--guided",
        "--camera",
        str(path),
        "--out",
        str(tmp_path / "d"),
        "--detections",
        str(det),
    ]
    assert main(args) == 2
    assert "no terminal to press Enter on (use --no-prompt" in capsys.readouterr().err


def test_a_mirroring_camera_is_collected_turned_back(game_video, true_detections, tmp_path, capsys):
    """A webcam's selfie view of a rendered game: the mat's markers read only turned back, so
    every frame is turned back before it is kept, and the dataset holds the table as it lies
    (mirrored indices are cards no deck prints), the same frames as from an upright camera."""
    import cv2

    from vision.synth.conditions import perturb

    mirrored = perturb(game_video, tmp_path / "mirror", "mirror")
    kept = {}
    for name, video in (("upright", game_video), ("mirrored", mirrored)):
        out = tmp_path / name
        args = ["collect", "--camera", str(video / "video.mp4"), "--out", str(out)]
        assert main([*args, "--detections", str(true_detections)]) == 0
        printed = capsys.readouterr().out
        assert ("the camera mirrors the table" in printed) == (name == "mirrored"), printed
        kept[name] = {e.frame: cv2.imread(str(out / e.image), 0) for e in read_manifest(out)}  # grey
    both = kept["upright"].keys() & kept["mirrored"].keys()
    assert len(both) >= 0.8 * len(kept["upright"]) >= 8, (kept["upright"].keys(), kept["mirrored"].keys())
    for frame in both:
        upright, turned = kept["upright"][frame].ravel(), kept["mirrored"][frame]
        alike = np.corrcoef(upright, turned.ravel())[0, 1]
        mirror_alike = np.corrcoef(upright, turned[:, ::-1].ravel())[0, 1]
        assert alike > 0.95 > mirror_alike + 0.2, (frame, alike, mirror_alike)

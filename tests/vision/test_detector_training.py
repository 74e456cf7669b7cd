"""A tiny real training run of both stages (one epoch on a handful of rendered images), and the
crop geometry the classifier shares between training and inference."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from referee.cards import CLASSES
from vision.detector import load_detector
from vision.detector.crops import CROP_H, CROP_W, card_crop
from vision.detector.geometry import GEO_MARGIN, CornerRefiner
from vision.detector.not_a_card import NOT_A_CARD, NotACardConfig, cards_only_state, mine
from vision.detector.two_stage import TwoStageDetector

ROOT = Path(__file__).resolve().parents[2]


def cardref(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.commands.main", *args], capture_output=True,
                          text=True,
                          cwd=ROOT)


def recipe_with(name: str, folder: Path, **changes) -> Path:
    """A copy of the committed recipe ``configs/detector/NAME`` with some settings changed."""
    cfg = yaml.safe_load((ROOT / "configs/detector" / name).read_text())
    cfg.update(changes)
    recipe = folder / name
    recipe.write_text(yaml.safe_dump(cfg))
    return recipe


@pytest.fixture(scope="module")
def tiny_dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tiny") / "data"
    r = cardref("synth", "--out", str(out), "--images", "8", "--seed", "5", "--imgsz", "320", "--val-every",
                "4", "--quiet")
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.slow
def test_one_epoch_of_each_stage_gives_a_working_detector(tiny_dataset, tmp_path):
    finder = cardref("train", "--data", str(tiny_dataset), "--out", str(tmp_path / "finder"), "--epochs", "1",
                     "--imgsz", "160", "--batch", "4", "--device", "cpu")
    assert finder.returncode == 0, finder.stderr[-2000:]
    classifier = cardref("train", "--config", str(ROOT / "configs/detector/classifier.yaml"), "--data",
                         str(tiny_dataset), "--out", str(tmp_path / "cls"), "--epochs", "1",
                         "--device", "cpu")
    assert classifier.returncode == 0, classifier.stderr[-2000:]
    geometry = cardref("train", "--config", str(ROOT / "configs/detector/geometry.yaml"), "--data",
                       str(tiny_dataset), "--out", str(tmp_path / "geo"), "--epochs", "1")
    assert geometry.returncode == 0, geometry.stderr[-2000:]
    # A refiner trained on another square carries its margin in its file, and is read with it.
    wide = recipe_with("geometry_wide.yaml", tmp_path, margin=0.3)
    geometry_wide = cardref("train", "--config", str(wide), "--data", str(tiny_dataset), "--out",
                            str(tmp_path / "geo_wide"), "--epochs", "1")
    assert geometry_wide.returncode == 0, geometry_wide.stderr[-2000:]
    assert CornerRefiner(tmp_path / "geo_wide" / "geometry.onnx").margin == 0.3
    assert CornerRefiner(tmp_path / "geo" / "geometry.onnx").margin == GEO_MARGIN
    history = json.loads((tmp_path / "cls" / "classifier_history.json").read_text())
    assert len(history) == 1 and history[0]["loss"] > 0
    # The two exported files side by side are loaded as one two-stage detector.
    model = tmp_path / "model" / "cards.onnx"
    model.parent.mkdir()
    shutil.copy(tmp_path / "finder" / "run" / "weights" / "best.onnx", model)
    shutil.copy(tmp_path / "cls" / "classifier.onnx", tmp_path / "model" / "cards_cls.onnx")
    shutil.copy(tmp_path / "geo" / "geometry.onnx", tmp_path / "model" / "cards_geo.onnx")
    detector = load_detector(model, conf=0.0)
    assert isinstance(detector, TwoStageDetector) and detector.refiner is not None
    image = cv2.imread(str(next((tiny_dataset / "images" / "train").iterdir())))
    det = detector.detect(image)
    assert len(det) > 0  # an untrained finder still proposes boxes at confidence 0
    assert det.class_id.max() < len(CLASSES) and (det.confidence <= 1).all()
    assert det.corners is not None and det.corners.shape == (len(det), 4, 2)


def test_unknown_stage_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("stage: segmenter\n")
    r = cardref("train", "--config", str(bad))
    assert r.returncode == 2
    assert f"{bad}: field 'stage'" in r.stderr


@pytest.mark.parametrize("w,h", [(60, 90), (90, 60), (40, 40)])
def test_crops_are_upright_and_hold_the_card(w, h):
    """A white card on a dark table: the crop is portrait, white inside, the table in the margin."""
    image = np.full((300, 400, 3), 30, np.uint8)
    x0, y0 = 150, 100
    image[y0 : y0 + h, x0 : x0 + w] = 255
    crop = card_crop(image, np.array([x0, y0, x0 + w, y0 + h], np.float32))
    assert crop.shape == (CROP_H, CROP_W, 3)
    centre = crop[CROP_H // 4 : 3 * CROP_H // 4, CROP_W // 4 : 3 * CROP_W // 4]
    assert centre.min() > 200
    assert crop[0, 0].max() < 100  # the margin shows the table around the card


def test_cards_less_than_half_in_view_get_extra_crops(tiny_dataset):
    """``partial_copies``: each card the renderer saw less than half in view is cut that many
    more times, the others once."""
    from collections import Counter

    from vision.detector.classifier_train import extract_crops
    from vision.detector.evaluate import MOSTLY_HIDDEN, read_yolo_dataset

    samples = read_yolo_dataset(tiny_dataset, "train")
    partial = Counter(int(cls) for s in samples for cls, c in zip(s.classes, s.cards, strict=True)
                      if c["visible"] < MOSTLY_HIDDEN)
    every = Counter(int(cls) for s in samples for cls in s.classes)
    assert partial and every
    _, labels = extract_crops([tiny_dataset], "train", 1, 0.0, 0, partial_copies=2)
    assert Counter(labels.tolist()) == every + partial + partial


@pytest.mark.parametrize("keep", ["suit", "rank"])
def test_court_swap_keeps_the_corners_and_takes_the_picture_of_a_court_card_alike_in_one_way(
        tiny_dataset, keep):
    """Crops of rendered cards: every swapped J/Q/K crop shows, inside the picture window, the
    picture of a court card of its suit and another rank (``keep="suit"``), or of its rank in
    another suit (``keep="rank"``), and keeps its own corner indices; the other cards are
    untouched."""
    import torch

    from vision.detector.classifier_train import COURT, RANK, SUIT, _blob, extract_crops, picture, swap_courts

    same, other = (SUIT, RANK) if keep == "suit" else (RANK, SUIT)
    crops, labels = extract_crops([tiny_dataset], "train", 1, 0.0, 0)
    x = _blob(crops)
    out = swap_courts(x.clone(), labels, torch.Generator().manual_seed(0), 1.0, keep=keep)
    window = torch.zeros_like(x[0], dtype=torch.bool)
    window[picture(CROP_H, CROP_W)] = True
    swapped = 0
    for i, cls in enumerate(labels):
        assert torch.equal(out[i][~window], x[i][~window])  # corners and edges stay
        if not COURT[cls]:
            assert torch.equal(out[i], x[i])
            continue
        if torch.equal(out[i], x[i]):
            continue  # no such donor in the batch
        donors = [j for j, c in enumerate(labels)
                  if COURT[c] and same[c] == same[cls] and other[c] != other[cls]]
        middle = picture(CROP_H, CROP_W)
        assert any(torch.equal(out[i][middle], x[j][middle]) for j in donors)
        swapped += 1
    assert swapped > 0


@pytest.mark.slow
def test_keep_start_ends_a_fine_tune_halfway_between_the_start_and_the_tuned_weights(tiny_dataset, tmp_path):
    """A fine-tune of the shipped classifier with ``keep_start: 0.5`` writes the tuned weights
    beside the averaged ones it exports: every float weight is the midpoint."""
    import torch

    recipe = recipe_with("classifier_box.yaml", tmp_path, keep_start=0.5, copies=1)
    start = ROOT / "models/cards_box.pt"
    r = cardref("train", "--config", str(recipe), "--from", str(start), "--data", str(tiny_dataset), "--out",
                str(tmp_path / "cls"), "--epochs", "1")
    assert r.returncode == 0, r.stderr[-2000:]
    run = tmp_path / "cls"
    tuned, mixed = (torch.load(p, map_location="cpu")["state_dict"]
                    for p in (run / "classifier_tuned.pt", run / "classifier.pt"))
    w0 = cards_only_state(start)  # the fine-tune trains the card rows; a not-a-card row is re-fitted
    moved = 0
    for k, w in mixed.items():
        if w.is_floating_point():
            assert torch.allclose(w, (w0[k] + tuned[k]) / 2, atol=1e-6), k
            moved += int(not torch.equal(tuned[k], w0[k]))
    assert moved > 0  # the fine-tune did change the weights
    assert (tmp_path / "cls/classifier.onnx").exists()


def test_index_mask_blanks_both_corners_of_court_cards_only(tiny_dataset):
    """Crops of rendered cards: with every court card chosen, each J/Q/K crop's two corner
    regions become one flat colour each and the rest of the crop stays; other cards stay."""
    import torch

    from vision.detector.classifier_train import COURT, _blob, corners, extract_crops, mask_indices

    CORNERS = corners(CROP_H, CROP_W)

    crops, labels = extract_crops([tiny_dataset], "train", 1, 0.0, 0)
    x = _blob(crops)
    out = mask_indices(x.clone(), labels, torch.Generator().manual_seed(0), 1.0)
    corners = torch.zeros_like(x[0], dtype=torch.bool)
    for corner in CORNERS:
        corners[corner] = True
    assert COURT[labels].any()
    for i, cls in enumerate(labels):
        assert torch.equal(out[i][~corners], x[i][~corners])
        if not COURT[cls]:
            assert torch.equal(out[i], x[i])
            continue
        for corner in CORNERS:
            region = out[(i, *corner)].flatten(1)
            assert (region == region[:, :1]).all()  # flat
            assert not torch.equal(out[(i, *corner)], x[(i, *corner)])


def sharpness(x) -> list[float]:
    """Variance of the Laplacian of each crop of a (n, 3, h, w) batch: low when blurred."""
    grey = (x.mean(1).numpy() * 255).astype(np.float32)
    return [float(cv2.Laplacian(g, cv2.CV_32F).var()) for g in grey]


@pytest.mark.slow
def test_defocus_blurs_crops_out_of_focus_and_keeps_a_flat_card_flat(tiny_dataset):
    """The same batch augmented with the same seed, with and without ``defocus``: every crop
    chosen is blurrier; a blank crop stays blank (the blur only spreads ink, it adds none)."""
    import torch

    from vision.detector.classifier_train import _blob, augment, extract_crops, gaussian_blur

    crops, _ = extract_crops([tiny_dataset], "train", 1, 0.0, 0)
    x = _blob(crops)
    crisp = augment(x.clone(), torch.Generator().manual_seed(3))
    soft = augment(x.clone(), torch.Generator().manual_seed(3), defocus=1.0)
    ratios = np.array(sharpness(soft)) / np.maximum(sharpness(crisp), 1e-6)
    assert soft.shape == crisp.shape and np.median(ratios) < 0.5, ratios
    flat = torch.full((2, 3, 40, 30), 0.7)
    assert torch.allclose(gaussian_blur(flat, 3.0), flat, atol=1e-5)
    half = augment(x.clone(), torch.Generator().manual_seed(3), defocus=0.5)
    blurred = np.array(sharpness(half)) < 0.5 * np.array(sharpness(crisp))
    assert 0.2 < blurred.mean() < 0.8  # about the share asked for


@pytest.mark.slow
def test_not_a_card_row_is_fitted_beside_the_card_rows(tmp_path):
    """``stage: not_a_card`` on a few rendered tables with printed clutter: the classifier gains
    one output, its card rows stay as they were (same names), and the new output says "no
    card" more on the finder's boxes on no card than on the cards."""
    import torch

    data = tmp_path / "printed"
    r = cardref("synth", "--out", str(data), "--images", "12", "--seed", "21", "--imgsz", "640",
                "--val-every", "6", "--quiet", "--recipe", str(ROOT / "datasets/recipes/train_printed.yaml"))
    assert r.returncode == 0, r.stderr
    recipe = recipe_with("not_a_card.yaml", tmp_path, every=1, steps=200)
    start = ROOT / "models/cards_box.pt"  # the box view carries the not-a-card row
    r = cardref("train", "--config", str(recipe), "--from", str(start), "--data", str(data), "--out",
                str(tmp_path / "nac"))
    assert r.returncode == 0, r.stderr[-2000:]
    fitted = torch.load(tmp_path / "nac/classifier.pt", map_location="cpu")
    assert fitted["classes"] == [*CLASSES, NOT_A_CARD]
    before, after = cards_only_state(start), cards_only_state(tmp_path / "nac/classifier.pt")
    assert before.keys() == after.keys() and all(torch.equal(after[k], before[k]) for k in before)
    from vision.detector.two_stage import CardClassifier

    finder = load_detector(conf=0.05).finder
    mined = mine(finder, [data], NotACardConfig("not_a_card", every=1), log=lambda _: None)
    assert len(mined.negatives) >= 5 and len(mined.positives) >= 12
    new = CardClassifier(tmp_path / "nac/classifier.onnx")
    probs, card_on_cards = new.read(mined.positives)
    _, card_off_cards = new.read(mined.negatives)
    shipped = CardClassifier(ROOT / "models/cards_box.onnx")
    assert np.allclose(probs, shipped.read(mined.positives)[0], atol=1e-5)
    assert card_off_cards.mean() < 0.5 < card_on_cards.mean()


def test_full_bleed_stretches_the_picture_of_court_cards_over_the_card(tiny_dataset):
    """Rendered crops with every court card chosen: each J/Q/K crop's card area becomes its
    picture window stretched (corners and the table around the card kept); other cards stay."""
    import torch
    import torch.nn.functional as F

    from vision.detector.classifier_train import (
        COURT,
        _blob,
        card_span,
        corners,
        extract_crops,
        full_bleed,
        picture,
    )

    CORNERS, PICTURE = corners(CROP_H, CROP_W), picture(CROP_H, CROP_W)

    crops, labels = extract_crops([tiny_dataset], "train", 1, 0.0, 0)
    x = _blob(crops)
    out = full_bleed(x.clone(), labels, torch.Generator().manual_seed(0), 1.0)
    (top, bottom), (left, right) = card_span(CROP_H), card_span(CROP_W)
    kept = torch.ones_like(x[0], dtype=torch.bool)
    kept[:, top:bottom, left:right] = False
    assert COURT[labels].any()
    for i, cls in enumerate(labels):
        assert torch.equal(out[i][kept], x[i][kept])  # the table around the card
        if not COURT[cls]:
            assert torch.equal(out[i], x[i])
            continue
        for corner in CORNERS:
            assert torch.equal(out[(i, *corner)], x[(i, *corner)])
        stretched = F.interpolate(x[(i, *PICTURE)][None], size=(bottom - top, right - left), mode="bilinear",
                                  align_corners=False)[0]
        card = out[i, :, top:bottom, left:right]  # its middle, clear of both corners
        assert torch.allclose(card[:, 30:-30, 20:-20], stretched[:, 30:-30, 20:-20])


@pytest.mark.parametrize("name", ["cards.yaml", "geometry.yaml", "classifier.yaml", "classifier_box.yaml",
                                  "not_a_card.yaml"])
def test_a_recipe_with_an_unknown_or_wrong_field_is_a_clear_error(name, tmp_path):
    """Each stage's committed recipe loads; with a misspelt field, or a file that is no mapping,
    ``cardref train`` stops with one line naming the file and the field."""
    recipe = recipe_with(name, tmp_path, epochz=3)
    r = cardref("train", "--config", str(recipe), "--data", str(tmp_path))
    assert r.returncode == 2 and f"{recipe}: unknown field(s) epochz" in r.stderr
    recipe.write_text("- stage\n- finder\n")
    r = cardref("train", "--config", str(recipe), "--data", str(tmp_path))
    assert r.returncode == 2 and str(recipe) in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["cards.yaml", "geometry.yaml", "classifier.yaml", "classifier_box.yaml",
                                  "not_a_card.yaml"])
def test_missing_start_weights_are_refused_before_any_work(name, tiny_dataset, tmp_path):
    """``--from`` a file that is not there: one line naming it, before crops are cut or boxes
    mined (a traceback after minutes of work loses the user's time)."""
    missing = tmp_path / "nowhere.pt"
    r = cardref("train", "--config", str(ROOT / "configs/detector" / name), "--from", str(missing), "--data",
                str(tiny_dataset), "--out", str(tmp_path / "run"))
    assert r.returncode == 2
    expected = f"{missing}: --from weights not found (expected a .pt file)"
    assert r.stderr.strip() == f"cardref train: error: {expected}"


@pytest.mark.parametrize(("given", "torch_name"), [
    ("cpu", "cpu"), ("0", "cuda:0"), ("cuda:1", "cuda:1"),
    ("0,1", "cuda:0"), ("2, 3", "cuda:2"),  # the finder's DDP list: the small stages take its first GPU
])
def test_a_device_list_puts_the_classifier_stages_on_its_first_gpu(given, torch_name):
    from vision.detector.recipe import torch_device

    assert torch_device(given) == torch_name


@pytest.mark.slow
def test_a_stopped_classifier_training_resumes_as_if_it_had_not_stopped(tiny_dataset, tmp_path):
    """Stopped after its first epoch (as a kill would), ``--resume`` goes on from the saved
    state and ends with the same weights as the run that never stopped."""
    import torch

    from vision.detector.classifier_train import ClassifierConfig, train_classifier

    cfg = ClassifierConfig.load(ROOT / "configs/detector/classifier.yaml")
    cfg.copies, cfg.partial_copies, cfg.width, cfg.threads = 1, 0, 8, 1

    def stop_after_first(line: str) -> None:
        if "epoch 1/2" in line:
            raise KeyboardInterrupt

    whole = train_classifier(cfg, [tiny_dataset], tmp_path / "whole", epochs=2, log=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        train_classifier(cfg, [tiny_dataset], tmp_path / "cut", epochs=2, log=stop_after_first)
    resumed = train_classifier(cfg, [tiny_dataset], tmp_path / "cut", epochs=2, log=lambda _: None,
                               resume=True)
    a, b = (torch.load(p, map_location="cpu")["state_dict"] for p in (whole, resumed))
    assert all(torch.allclose(a[k].float(), b[k].float(), atol=1e-6) for k in a)
    history = json.loads((tmp_path / "cut" / "classifier_history.json").read_text())
    assert [h["epoch"] for h in history] == [1, 2]

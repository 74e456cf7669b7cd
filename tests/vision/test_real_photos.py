"""Reading a user's real photos (Pascal VOC with suits.csv, Ultralytics) and the naming figures."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest
from run_cardref import rendered_set

from referee.cards import CLASSES
from referee.errors import CardrefError
from vision.detector.evaluate import read_yolo_dataset
from vision.detector.real_photos import (
    RANK_CLASSES,
    TrueBoxNames,
    box_tilt,
    naming_breakdown,
    read_real_folder,
    scored_by_rank,
    tilt_bin,
    to_rank_ids,
)

ROOT = Path(__file__).resolve().parents[2]
WORD = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
        "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king"}
SUIT = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    return rendered_set(tmp_path_factory.mktemp("real") / "set", 4, 31)


def write_voc(rendered: Path, folder: Path, by_rank: bool) -> list:
    """The rendered set's face-up cards as VOC files, ranks in words and suits in suits.csv when
    ``by_rank`` (as real_dev_edje is labelled), else whole card names."""
    folder.mkdir()
    samples = read_yolo_dataset(rendered, "train")
    rows = []
    for s in samples:
        shutil.copy(s.image, folder / s.image.name)
        objects = []
        for box, c in zip(s.boxes, s.classes, strict=True):
            name = CLASSES[c]
            if name in ("JK", "BACK"):
                continue
            label = WORD[name[:-1]] if by_rank else name
            objects.append(f"<object><name>{label}</name><bndbox>" + "".join(
                f"<{k2}>{v:.1f}</{k2}>" for k2, v in zip(("xmin", "ymin", "xmax", "ymax"), box, strict=True))
                + "</bndbox></object>")
            rows.append({"split": "test", "image": s.image.name, "object": len(objects) - 1,
                         "rank": WORD[name[:-1]], "suit": SUIT[name[-1]]})
        (folder / f"{s.image.stem}.xml").write_text(
            f"<annotation><filename>{s.image.name}</filename>{''.join(objects)}</annotation>")
    if by_rank:
        with (folder / "suits.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["split", "image", "object", "rank", "suit"])
            w.writeheader()
            w.writerows(rows)
    return rows


@pytest.mark.parametrize("by_rank", [True, False])
def test_voc_photos_are_scored_by_card_when_suits_are_known(rendered, tmp_path, by_rank):
    rows = write_voc(rendered, tmp_path / "voc", by_rank)
    real = read_real_folder(tmp_path / "voc")
    assert real.by_card
    names = [CLASSES[c] for s in real.samples for c in s.classes]
    assert names == [{v: k for k, v in WORD.items()}[r["rank"]] + r["suit"][0].upper() for r in rows]


def test_voc_ranks_without_suits_are_scored_by_rank_only(rendered, tmp_path):
    write_voc(rendered, tmp_path / "voc", by_rank=True)
    (tmp_path / "voc" / "suits.csv").unlink()
    real = read_real_folder(tmp_path / "voc")
    assert not real.by_card
    assert all(RANK_CLASSES[c] in WORD for s in real.samples for c in s.classes)


def test_an_ultralytics_folder_is_read_with_every_split(rendered):
    real = read_real_folder(rendered)
    assert real.by_card and sum(len(s.boxes) for s in real.samples) > 0


@pytest.mark.parametrize("what, expected", [
    ("missing", "no such folder of real photos"),
    ("empty", "no Pascal VOC .xml files and no images/ folder"),
    ("bad label", "unknown label 'banana'"),
])
def test_bad_real_folders_are_one_line_errors(tmp_path, what, expected):
    folder = tmp_path / "photos"
    if what != "missing":
        folder.mkdir()
    if what == "bad label":
        (folder / "a.xml").write_text("<annotation><object><name>banana</name></object></annotation>")
    with pytest.raises(CardrefError, match=expected):
        read_real_folder(folder)


@pytest.mark.parametrize("w, h, deg", [(63, 88, 0), (88, 63, 90), (70, 70, 45)])
def test_tilt_from_a_box_shape(w, h, deg):
    assert box_tilt(np.array([10, 10, 10 + w, 10 + h])) == pytest.approx(deg, abs=0.2)


@pytest.mark.parametrize("deg", [20, 70])
def test_tilt_of_a_turned_card_box(deg):
    t = np.radians(deg)
    w, h = 63 * np.cos(t) + 88 * np.sin(t), 63 * np.sin(t) + 88 * np.cos(t)
    tilt = box_tilt(np.array([0, 0, w, h]))
    assert tilt == pytest.approx(deg, abs=0.2)
    assert tilt_bin(tilt) == ("20-45 deg" if deg < 45 else "45-90 deg")


def test_naming_breakdown_counts_suits_tilts_and_confusions():
    ids = {n: CLASSES.index(n) for n in ("AS", "AC", "9H", "KD")}
    truth = np.array([ids["AS"], ids["AS"], ids["9H"], ids["KD"]])
    named = np.array([ids["AC"], ids["AS"], ids["9H"], ids["KD"]])
    t = TrueBoxNames(truth, named, tilt=np.array([2.0, 30.0, 10.0, 2.0]),
                     brightness=np.array([10, 20, 30, 40.0]))
    out = naming_breakdown(t)
    assert out["top1"] == {"cards": 4, "top1": 0.75} and out["top1_rank"]["top1"] == 1.0
    assert out["per_suit"]["S"] == {"cards": 2, "top1": 0.5} and out["per_suit"]["H"]["top1"] == 1.0
    assert out["per_tilt"]["0-8 deg"] == {"cards": 2, "top1": 0.5}
    assert out["confusions"] == [{"true": "AS", "named": "AC", "count": 1}]
    assert list(to_rank_ids(np.array([ids["AS"], ids["AC"]]))) == [0, 0]


def test_a_box_under_two_names_of_one_rank_is_scored_by_rank_once():
    """The label files give a box its other likely names: 5H then 5D is one prediction of a
    five by rank (a second would count as a false five), 5H then 6H two."""
    from vision.detector.metrics import ImageResult, evaluate

    box = np.array([[10.0, 10.0, 60.0, 80.0]])
    ids = [CLASSES.index(n) for n in ("5H", "5D", "6H")]
    r = ImageResult(box, np.array([CLASSES.index("5C")]), np.repeat(box, 3, axis=0), np.array(ids),
                    np.array([0.6, 0.03, 0.02]), "t", np.array([True, False, False]))
    ranked = scored_by_rank(r, by_card=True)
    assert [RANK_CLASSES[c] for c in ranked.pred_classes] == ["5", "6"]
    assert list(ranked.pred_scores) == [0.6, 0.02] and list(ranked.pred_first) == [True, False]
    assert evaluate([ranked], len(RANK_CLASSES)).ap[RANK_CLASSES.index("5"), 0] == 1.0
    assert evaluate([r], len(CLASSES)).map50 == 0.0  # by card it is a club: no name right

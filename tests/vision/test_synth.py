"""The synthetic renderer: labels checked against the rendered pixels, the hidden-card rule,
determinism, and the dataset and preview that ``cardref synth`` writes.

Needs the card art cache (``make art``; ``CARDREF_ART`` points elsewhere). Images are kept
small so the file runs in seconds on two busy cores.
"""

from __future__ import annotations

import filecmp

import cv2
import numpy as np
import pytest
import yaml

from referee.cards import CLASSES
from vision.calibration import detect_markers
from vision.commands.main import main
from vision.layout import load_layout
from vision.synth.art import cache_dir
from vision.synth.assets import Art, load_recipe
from vision.synth.camera import look_at
from vision.synth.compose import Light, draw_cards, new_canvas
from vision.synth.dataset import generate
from vision.synth.labels import INDEX_VISIBLE, MIN_BOX_PX, MIN_VISIBLE, MIN_VISIBLE_WITH_INDEX, label_cards
from vision.synth.render import pick_scene, render_sample
from vision.synth.scenes import Dealer
from vision.synth.styles import STYLE_KINDS, DeckStyle, restyle_face

pytestmark = pytest.mark.skipif(
    not (cache_dir() / "manifest.json").exists(), reason="card art cache missing (make art)"
)

RECIPE = "datasets/recipes/train.yaml"


@pytest.fixture(scope="module")
def art() -> Art:
    return Art(load_recipe(RECIPE))


@pytest.fixture(scope="module", params=["train", "train_printed", "holdout_styles"])
def samples(request):
    """Rendered samples of the training recipe, of the one whose tables also carry printed
    covers, flyers and notes (the labels must ignore those), and of decks printed in other
    colours seen by grey or tinted cameras."""
    art = Art(load_recipe(f"datasets/recipes/{request.param}.yaml"))
    layout = load_layout("royal_family")
    return [render_sample(art, layout, 11, i, imgsz=480) for i in range(6)]


def test_the_printed_recipe_puts_pictures_and_text_that_are_not_cards_on_the_tables():
    art = Art(load_recipe("datasets/recipes/train_printed.yaml"))
    layout = load_layout("royal_family")
    printed = plain = 0
    for i in range(20):
        scene = pick_scene(np.random.default_rng([13, i]), art, layout)
        for c in scene.clutter:
            if c.texture is None:
                plain += 1
                continue
            printed += 1
            assert c.texture.dtype == np.uint8 and c.texture.std() > 5  # not a flat sheet
    assert printed >= 10 and plain >= 1
    plain_art = Art(load_recipe(RECIPE))
    assert not any(
        c.texture is not None
        for i in range(20)
        for c in pick_scene(np.random.default_rng([13, i]), plain_art, layout).clutter
    )


def test_the_styles_recipe_prints_decks_in_other_colours_and_records_them():
    """Every face of holdout_styles is restyled: a dark-faced deck's paper is dark and its red
    pips stay red; the labels say which style and camera; plain recipes draw no style."""
    art = Art(load_recipe("datasets/recipes/holdout_styles.yaml"))
    layout = load_layout("royal_family")
    kinds, cameras = set(), set()
    for i in range(12):
        s = render_sample(art, layout, 31, i, imgsz=320)
        for lb in s.labels:
            assert lb.style in STYLE_KINDS if lb.cls != "BACK" else lb.style == ""
            kinds.add(lb.style)
            cameras.add(lb.camera)
    assert {"dark", "tinted"} <= kinds and {"", "grey", "tinted"} <= cameras

    face = art.face(next(iter(art.decks[0].faces["7H"])))
    dark = restyle_face(face, DeckStyle("dark", (20, 20, 24), (230, 200, 120)))
    assert dark.shape == face.shape and (dark[..., 3] == face[..., 3]).all()
    opaque = face[..., 3] > 200
    paper = opaque & (face[..., :3].min(axis=2) > 230)
    red = opaque & (face[..., 0].astype(int) - face[..., 1] > 100)
    assert paper.sum() > 1000 and red.sum() > 100
    assert np.median(dark[..., :3][paper]) < 40  # white paper turned dark
    assert (dark[..., 0][red].astype(int) - dark[..., 1][red]).mean() > 80  # hearts still red

    plain = Art(load_recipe(RECIPE))
    for i in range(5):
        scene = pick_scene(np.random.default_rng([31, i]), plain, layout)
        assert all(c.style is None for c in scene.cards)
        labels = render_sample(plain, layout, 31, i, 320).labels
        assert all(lb.style == "" and lb.camera == "" for lb in labels)


def test_the_printed_mat_option_lays_layout_scenes_on_the_mat_with_its_markers(tmp_path):
    """``printed_mat: 1`` draws every layout scene on the game's printed mat: where the camera
    sees the whole table, calibration finds the mat's markers; without the option, none."""
    layout = load_layout("royal_family")
    recipe = tmp_path / "mat.yaml"
    recipe.write_text("extends: train\noptions:\n  printed_mat: 1.0\n")
    on_mat, plain = Art(load_recipe(recipe)), Art(load_recipe(RECIPE))
    whole = 0
    for i in range(30):
        scene = pick_scene(np.random.default_rng([41, i]), plain, layout)
        if scene.kind != "layout" or scene.aim.extent < layout.table_size[0]:
            continue  # a camera on part of the table may see no marker
        whole += 1
        for art, expect in ((on_mat, True), (plain, False)):
            s = render_sample(art, layout, 41, i, imgsz=960)
            image = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
            assert bool(detect_markers(image, layout)) == expect, (i, expect)
    assert whole >= 3


def test_each_labelled_box_is_the_tight_box_of_its_cards_pixels(samples):
    checked = 0
    for s in samples:
        assert s.ids.shape == (s.height, s.width)
        for lb in s.labels:
            if not lb.labelled:
                continue
            ys, xs = np.nonzero(s.ids == lb.index)
            x0, y0, x1, y1 = lb.box
            assert (x0, y0, x1, y1) == (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), lb
            checked += 1
    assert checked >= 10  # the samples do show cards


def test_labels_follow_the_hidden_card_rule(samples):
    """Labelled iff 40 % visible, or 10 % with a corner index 85 % uncovered (face up), and
    the visible pixels make a box of at least MIN_BOX_PX."""
    seen = {True: 0, False: 0}
    for s in samples:
        for lb in s.labels:
            by_area = lb.visible >= MIN_VISIBLE
            by_index = (
                lb.cls != "BACK"
                and lb.visible >= MIN_VISIBLE_WITH_INDEX
                and lb.index_visible >= INDEX_VISIBLE
            )
            ys, xs = np.nonzero(s.ids == lb.index)
            big = len(xs) > 0 and min(np.ptp(xs) + 1, np.ptp(ys) + 1) >= MIN_BOX_PX
            assert lb.labelled == ((by_area or by_index) and big), lb
            assert lb.cls in (lb.identity, "BACK")
            seen[lb.labelled] += 1
    assert seen[True] and seen[False]  # both kinds occur in these scenes


def test_a_card_covered_by_another_is_not_labelled(art):
    """Two cards drawn at the same place: the camera sees only the top one."""
    rng = np.random.default_rng(5)
    d = Dealer(rng, art)
    under = d.sprite("7S", True, (0.0, 0.0), 10.0)
    over = d.sprite("QH", True, (0.0, 0.0), 10.0)
    beside = d.sprite("3D", False, (12.0, 0.0), 0.0)
    cam = look_at(480, 360, (5.0, 0.0), 40.0, 55.0, 0.0, 0.0, 0.0)
    H = cam.homography()
    canvas = new_canvas(np.full((360, 480, 3), 90, np.float32))
    draw_cards(canvas, H, [under, over, beside], Light(), 10.0)
    labels = label_cards([under, over, beside], canvas.drawn, cam, canvas.ids, canvas.ids)
    assert [lb.labelled for lb in labels] == [False, True, True]
    assert labels[0].visible < MIN_VISIBLE_WITH_INDEX
    assert labels[2].cls == "BACK" and labels[2].identity == "3D"
    assert not (canvas.ids == 0).any()  # no pixel of the covered card survives


def test_same_seed_gives_the_same_bytes_whatever_the_worker_count(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    generate(a, 3, 21, RECIPE, imgsz=320, workers=1, progress=False)
    generate(b, 3, 21, RECIPE, imgsz=320, workers=2, progress=False)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != "data.yaml")
    assert len([f for f in files if f.suffix == ".jpg"]) == 3
    _, mismatch, errors = filecmp.cmpfiles(a, b, [str(f) for f in files], shallow=False)
    assert mismatch == [] and errors == []


def test_cardref_synth_writes_an_ultralytics_dataset(tmp_path):
    out = tmp_path / "ds"
    args = [
        "synth",
        "--out",
        str(out),
        "--images",
        "8",
        "--imgsz",
        "320",
        "--workers",
        "1",
        "--val-every",
        "4",
    ]
    assert main([*args, "--quiet"]) == 0
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data["train"] == "images/train" and data["val"] == "images/val"
    assert [data["names"][i] for i in range(len(CLASSES))] == list(CLASSES) and len(data["names"]) == 54
    assert (out / "classes.txt").read_text().split() == list(CLASSES)
    for split, n in (("train", 6), ("val", 2)):
        images = sorted((out / "images" / split).glob("*.jpg"))
        labels = sorted((out / "labels" / split).glob("*.txt"))
        assert len(images) == n and [p.stem for p in images] == [p.stem for p in labels]
        for img_path, lab_path in zip(images, labels, strict=True):
            assert cv2.imread(str(img_path)) is not None
            for line in lab_path.read_text().splitlines():
                cls, *box = line.split()
                assert 0 <= int(cls) < 54
                assert all(0.0 <= float(v) <= 1.0 for v in box) and len(box) == 4


def test_cardref_synth_preview_writes_a_contact_sheet(tmp_path):
    out = tmp_path / "sheet.png"
    assert main(["synth", "--preview", "--out", str(out), "--images", "2", "--imgsz", "320"]) == 0
    img = cv2.imread(str(out))
    assert img is not None and img.shape == (360, 3 * 480, 3)
    assert img.std() > 10  # pictures, not a blank sheet


def test_bad_options_are_one_line_errors(tmp_path, capsys):
    assert main(["synth", "--out", str(tmp_path / "x"), "--images", "0"]) == 2
    assert "--images" in capsys.readouterr().err
    assert main(["synth", "--out", str(tmp_path / "x"), "--recipe", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml" in capsys.readouterr().err

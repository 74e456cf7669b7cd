"""Bad input to every command that reads or writes a file: each is one line on stderr naming the
file, line or field, a non-zero exit, never a traceback (issue 24). The command line is run as
a user runs it, on real bad files made here: not UTF-8, not JSON or YAML, wrong types, a
folder where a file goes and the reverse, a full disk, garbage model files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "datasets/samples/royal_family_demo"
LATIN1 = '{"card": "7S", "from": "draw_pile", "to": "d\xe9fausse"}\n'.encode("latin-1")
MOVES = "".join(json.dumps(o) + "\n" for o in (
    {"card": "4S", "from": "draw_pile", "to": "flop_1"}, {"card": "5S", "from": "draw_pile", "to": "flop_2"},
))


def noise(size: int) -> bytes:
    return bytes((i * 7919 + 13) % 256 for i in range(size))


@pytest.fixture(scope="module")
def d(tmp_path_factory) -> Path:
    """A folder of bad files; ``home`` is a copy of configs/ with broken game and layout YAML."""
    d = tmp_path_factory.mktemp("bad")
    (d / "latin1.jsonl").write_bytes(LATIN1)
    (d / "latin1.json").write_bytes(b'{"method": "corners", "note": "\xe9"}')
    (d / "latin1.yaml").write_bytes(b"model: yolo11n.pt\nname: caf\xe9\n")
    (d / "notjson.jsonl").write_text('{"card": "7S", "from": "draw_pile"\n')
    (d / "array.jsonl").write_text("[1, 2]\n")
    (d / "deep.jsonl").write_text("[" * 100_000 + "\n")
    (d / "moves.jsonl").write_text(MOVES)
    (d / "folder").mkdir()
    (d / "folder.jsonl").mkdir()
    (d / "empty").mkdir()
    (d / "file.jpg").write_bytes(b"not a folder")
    (d / "empty.jsonl").write_text("")
    header = {"type": "header", "format": 1, "game": "royal_family"}
    (d / "variants.jsonl").write_text(json.dumps({**header, "variants": "x"}) + "\n")
    (d / "gamenum.jsonl").write_text(json.dumps({**header, "game": 5}) + "\n")
    (d / "format.jsonl").write_text(json.dumps({**header, "format": 99}) + "\n")
    (d / "wrongvalue.jsonl").write_text(json.dumps({**header, "variants": {"max_rounds": "x"}}) + "\n")
    (d / "garbage.onnx").write_bytes(noise(5000))
    (d / "garbage.pt").write_bytes(noise(5000))
    (d / "pt").mkdir()
    (d / "pt" / "garbage.pt").write_bytes(noise(5000))  # no .onnx beside it: Ultralytics loads it
    (d / "garbage.mp4").write_bytes(noise(20000))
    (d / "garbage.jpg").write_bytes(noise(2000))
    (d / "syntax.yaml").write_text("epochs: [1, 2\nimgsz: 640\n")
    (d / "list.yaml").write_text("- 1\n- 2\n")
    (d / "options.yaml").write_text("decks: [kde-standard]\noptions: 5\n")
    (d / "circle.yaml").write_text(f"extends: {d / 'circle.yaml'}\n")
    (d / "epochs.yaml").write_text("model: yolo11n.pt\nepochs: abc\n")
    (d / "calib_fields.json").write_text('{"method": 5}')
    (d / "calib_list.json").write_text("[]")
    (d / "detections.jsonl").write_text('{"frame": "x"}\n')
    (d / "answers.jsonl").write_text('{"type": "answer"}\n')
    (d / "dataset" / "images" / "train").mkdir(parents=True)  # a dataset with no frames yet
    (d / "dataset" / "labels" / "train").mkdir(parents=True)
    (d / "players").mkdir()  # a rendered game whose record is not UTF-8
    (d / "players" / "observations.jsonl").write_bytes(LATIN1)
    (d / "players" / "labels.jsonl").write_text('{"frame": 0, "obs": 0}\n')
    review = d / "review"
    (review / "images" / "train").mkdir(parents=True)
    (review / "review.jsonl").write_bytes(b'{"image": "caf\xe9"}\n')
    for name in ("home_min", "home_choices", "home_latin1", "home_syntax", "home_layout"):
        shutil.copytree(ROOT / "configs", d / name / "configs")
        game = d / name / "configs" / "games" / "royal_family.yaml"
        text = game.read_text()
        if name == "home_min":
            game.write_text(text.replace("    min: 1\n", "    min: abc\n", 1))
        elif name == "home_choices":
            game.write_text(text.replace("    choices: [", "    choices: 5\n    old: [", 1))
        elif name == "home_latin1":
            game.write_bytes(text.encode() + b"# caf\xe9\n")
        elif name == "home_syntax":
            game.write_text(text + "variants: [\n")
        else:
            layout = d / name / "configs" / "layouts" / "royal_family.yaml"
            layout.write_bytes(layout.read_bytes() + b"# caf\xe9\n")
    return d


OBS = "--observations"
VIDEO = str(SAMPLE / "video.mp4")
REPLAY = ("replay", VIDEO, "--game", "royal_family", "--no-video", "--quiet")
LIVE = ("live", "royal_family", "--headless", "--camera")


def case(name: str, names: str, *args: str, home: str | None = None):
    """A command line (``{d}``: the bad folder), the CARDREF_HOME under it, and what its error
    line names (``{n}``: a line number)."""
    return pytest.param(args, home, names, id=name)


CASES = [
    # referee: observations and game logs
    case("referee-obs-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         "referee", "royal_family", OBS, "{d}/latin1.jsonl"),
    case("referee-obs-notjson", "{d}/notjson.jsonl:1: not valid JSON",
         "referee", "royal_family", OBS, "{d}/notjson.jsonl"),
    case("referee-obs-array", "{d}/array.jsonl:1: expected a JSON object",
         "referee", "royal_family", OBS, "{d}/array.jsonl"),
    case("referee-obs-deep", "{d}/deep.jsonl:1: not valid JSON",
         "referee", "royal_family", OBS, "{d}/deep.jsonl"),
    case("referee-obs-missing", "{d}/missing.jsonl: no such file",
         "referee", "royal_family", OBS, "{d}/missing.jsonl"),
    case("referee-obs-folder", "{d}/folder: is a folder", "referee", "royal_family", OBS, "{d}/folder"),
    case("referee-obs-video", "video.mp4:1: not UTF-8", "referee", "royal_family", OBS, VIDEO),
    case("referee-log-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/latin1.jsonl"),
    case("referee-log-variants", "{d}/variants.jsonl:1: field 'variants'",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/variants.jsonl"),
    case("referee-log-game", "{d}/gamenum.jsonl:1: expected a header",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/gamenum.jsonl"),
    case("referee-log-format", "{d}/format.jsonl:1: field 'format'",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/format.jsonl"),
    case("referee-log-value", "{d}/wrongvalue.jsonl:1: field 'variants.max_rounds'",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/wrongvalue.jsonl"),
    case("referee-log-folder", "{d}/folder.jsonl: is a folder",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/folder.jsonl"),
    case("referee-log-full", "/dev/full: cannot append to: the disk is full",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "/dev/full"),
    case("referee-log-under-file", "{d}/file.jpg: is a file",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--log", "{d}/file.jpg/g.jsonl"),
    case("referee-set", "variant 'max_rounds': expected an integer",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", "--set", "max_rounds=x"),
    case("referee-option", "the following arguments are required: --observations", "referee", "royal_family"),
    case("detect-option-type", "argument --vid-stride: invalid int value: 'abc'",
         "detect", VIDEO, "--vid-stride", "abc"),
    case("detect-names-per-box", "--names-per-box: expected 1 or more, got 0",
         "detect", VIDEO, "--names-per-box", "0"),
    # game and layout configs
    case("config-min", "royal_family.yaml: field 'variants.max_rounds'.min: expected an integer",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", home="home_min"),
    case("config-choices", "royal_family.yaml: field 'variants.castle_model'.choices",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", home="home_choices"),
    case("config-latin1", "games/royal_family.yaml:{n}: not UTF-8",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", home="home_latin1"),
    case("config-syntax", "games/royal_family.yaml:{n}: not valid YAML",
         "referee", "royal_family", OBS, "{d}/moves.jsonl", home="home_syntax"),
    case("simulate-config", "field 'variants.max_rounds'.min",
         "simulate", "royal_family", "--games", "1", home="home_min"),
    case("layout-latin1", "layouts/royal_family.yaml:{n}: not UTF-8",
         "mat", "royal_family", "--out", "{d}/out/mat.png", home="home_layout"),
    # play
    case("play-log-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         "play", "royal_family", "--log", "{d}/latin1.jsonl"),
    case("play-log-full", "/dev/full: cannot append to: the disk is full",
         "play", "royal_family", "--log", "/dev/full"),
    case("play-log-under-file", "{d}/file.jpg: is a file",
         "play", "royal_family", "--log", "{d}/file.jpg/g.jsonl"),
    case("play-log-variants", "{d}/variants.jsonl:1: field 'variants'",
         "play", "royal_family", "--log", "{d}/variants.jsonl"),
    case("play-log-empty-header", "{d}/array.jsonl:1: expected a header",
         "play", "royal_family", "--log", "{d}/array.jsonl"),
    # detect
    case("detect-model-onnx", "{d}/garbage.onnx: not an ONNX model",
         "detect", VIDEO, "--model", "{d}/garbage.onnx"),
    case("detect-model-pt", "{d}/pt/garbage.pt: not PyTorch",
         "detect", VIDEO, "--model", "{d}/pt/garbage.pt"),
    case("detect-model-missing", "{d}/missing.onnx: detector model not found",
         "detect", VIDEO, "--model", "{d}/missing.onnx"),
    case("detect-model-folder", "{d}/folder: is a folder", "detect", VIDEO, "--model", "{d}/folder"),
    case("detect-image-garbage", "{d}/garbage.jpg: cannot read image", "detect", "{d}/garbage.jpg"),
    case("detect-video-garbage", "{d}/garbage.mp4: cannot open video", "detect", "{d}/garbage.mp4"),
    case("detect-save-file", "{d}/file.jpg: is a file, expected a folder",
         "detect", VIDEO, "--vid-stride", "2000", "--save", "{d}/file.jpg"),
    case("detect-save-txt-file", "{d}/file.jpg: is a file, expected a folder",
         "detect", VIDEO, "--vid-stride", "2000", "--save-txt", "{d}/file.jpg"),
    case("detect-empty-folder", "{d}/empty: no images", "detect", "{d}/empty"),
    case("detect-imgsz", "--imgsz: expected 32..4096", "detect", VIDEO, "--imgsz", "-5"),
    # replay
    case("replay-out-file", "{d}/file.jpg: is a file, expected a folder", *REPLAY, "--out", "{d}/file.jpg"),
    case("replay-out-under-file", "{d}/file.jpg is a file, not a folder",
         *REPLAY, "--out", "{d}/file.jpg/sub"),
    case("replay-model-onnx", "{d}/garbage.onnx: not an ONNX model",
         *REPLAY, "--out", "{d}/r1", "--model", "{d}/garbage.onnx"),
    case("replay-video-garbage", "{d}/garbage.mp4: cannot open video",
         "replay", "{d}/garbage.mp4", "--game", "royal_family", "--out", "{d}/r2"),
    case("replay-answers-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         *REPLAY, "--out", "{d}/r3", "--answers", "{d}/latin1.jsonl"),
    case("replay-answers-field", "{d}/answers.jsonl:1: field 'choice'",
         *REPLAY, "--out", "{d}/r4", "--answers", "{d}/answers.jsonl"),
    case("replay-detections-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         *REPLAY, "--out", "{d}/r5", "--detections", "{d}/latin1.jsonl"),
    case("replay-detections-field", "{d}/detections.jsonl:1: expected frame",
         *REPLAY, "--out", "{d}/r6", "--detections", "{d}/detections.jsonl"),
    case("replay-detections-folder", "{d}/folder: is a folder",
         *REPLAY, "--out", "{d}/r7", "--detections", "{d}/folder"),
    case("replay-calibration-latin1", "{d}/latin1.json:1: not UTF-8",
         *REPLAY, "--out", "{d}/r8", "--calibration", "{d}/latin1.json"),
    case("replay-calibration-fields", "{d}/calib_fields.json: not a calibration file",
         *REPLAY, "--out", "{d}/r9", "--calibration", "{d}/calib_fields.json"),
    case("replay-calibration-list", "{d}/calib_list.json: expected a JSON object",
         *REPLAY, "--out", "{d}/r10", "--calibration", "{d}/calib_list.json"),
    case("replay-players-empty", "--players {d}/empty",
         *REPLAY, "--out", "{d}/r11", "--players", "{d}/empty"),
    case("replay-players-latin1", "{d}/players/observations.jsonl:1: not UTF-8",
         *REPLAY, "--out", "{d}/r12", "--players", "{d}/players"),
    # live
    case("live-model-onnx", "{d}/garbage.onnx: not an ONNX model",
         *LIVE, VIDEO, "--log", "{d}/l1.jsonl", "--model", "{d}/garbage.onnx"),
    case("live-log-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         *LIVE, VIDEO, "--log", "{d}/latin1.jsonl", "--resume"),
    case("live-log-full", "/dev/full: cannot append to: the disk is full",
         *LIVE, VIDEO, "--log", "/dev/full"),
    case("live-detections-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         *LIVE, VIDEO, "--log", "{d}/l2.jsonl", "--detections", "{d}/latin1.jsonl"),
    case("live-calibration-latin1", "{d}/latin1.json:1: not UTF-8",
         *LIVE, VIDEO, "--log", "{d}/l3.jsonl", "--calibration", "{d}/latin1.json"),
    case("live-camera-garbage", "{d}/garbage.mp4: cannot open video",
         *LIVE, "{d}/garbage.mp4", "--log", "{d}/l4.jsonl"),
    case("live-camera-superscript", "²: not a camera index", *LIVE, "²", "--log", "{d}/l5.jsonl"),
    case("live-save-calibration-folder", "--save-calibration {d}/folder: is a folder",
         *LIVE, VIDEO, "--log", "{d}/l6.jsonl", "--save-calibration", "{d}/folder"),
    # calibrate, collect, review, mat
    case("calibrate-out-folder", "{d}/folder: is a folder",
         "calibrate", "royal_family", "--camera", VIDEO, "--out", "{d}/folder"),
    case("calibrate-corners", "--corners: expected four",
         "calibrate", "royal_family", "--camera", VIDEO, "--corners", "1,2 3"),
    case("calibrate-camera-garbage", "{d}/garbage.mp4: cannot open video",
         "calibrate", "royal_family", "--camera", "{d}/garbage.mp4"),
    case("calibrate-out-full", "/dev/full: cannot write: the disk is full",
         "calibrate", "royal_family", "--camera", VIDEO, "--out", "/dev/full"),
    case("collect-out-file", "{d}/file.jpg: not a folder",
         "collect", "--camera", VIDEO, "--out", "{d}/file.jpg"),
    case("collect-model-onnx", "{d}/garbage.onnx: not an ONNX model",
         "collect", "--camera", VIDEO, "--out", "{d}/c1", "--model", "{d}/garbage.onnx"),
    case("collect-detections-latin1", "{d}/latin1.jsonl:1: not UTF-8",
         "collect", "--camera", VIDEO, "--out", "{d}/c2", "--detections", "{d}/latin1.jsonl"),
    case("review-missing", "{d}/missing: no images/ folder",
         "review", "{d}/missing", "--html", "{d}/review.html"),
    case("review-manifest-latin1", "{d}/review/review.jsonl:1: not UTF-8",
         "review", "{d}/review", "--html", "{d}/review.html"),
    case("review-html-folder", "{d}/folder: is a folder", "review", "{d}/dataset", "--html", "{d}/folder"),
    case("review-html-full", "/dev/full: cannot write: the disk is full",
         "review", "{d}/dataset", "--html", "/dev/full"),
    case("mat-out-folder", "{d}/folder: expected a .png or .pdf file name",
         "mat", "royal_family", "--out", "{d}/folder"),
    case("mat-out-under-file", "{d}/file.jpg: is a file",
         "mat", "royal_family", "--out", "{d}/file.jpg/mat.pdf"),
    case("mat-out-full", "/dev/full: expected a .png or .pdf file name",
         "mat", "royal_family", "--out", "/dev/full"),
    # eval and train
    case("eval-model-onnx", "{d}/garbage.onnx: not an ONNX model",
         "eval", "{d}/garbage.onnx", "--skip-real", "--synthetic", "{d}/empty"),
    case("eval-synthetic-empty", "{d}/empty: no images", "eval", "--skip-real", "--synthetic", "{d}/empty"),
    case("eval-names-per-box", "--names-per-box: expected 1 or more, got 0",
         "eval", "--skip-real", "--synthetic", "{d}/empty", "--names-per-box", "0"),
    case("eval-synthetic-missing", "{d}/missing: no such dataset folder",
         "eval", "--skip-real", "--synthetic", "{d}/missing"),
    case("eval-real-empty", "{d}/empty: no Pascal VOC .xml files and no images/ folder",
         "eval", "--skip-synthetic", "--real", "{d}/empty"),
    case("eval-real-missing", "{d}/missing: no such folder",
         "eval", "--skip-synthetic", "--real", "{d}/missing"),
    case("train-config-latin1", "{d}/latin1.yaml:2: not UTF-8",
         "train", "--config", "{d}/latin1.yaml", "--data", "{d}/dataset"),
    case("train-config-syntax", "{d}/syntax.yaml:2: not valid YAML", "train", "--config", "{d}/syntax.yaml"),
    case("train-config-list", "{d}/list.yaml: field 'stage'", "train", "--config", "{d}/list.yaml"),
    case("train-config-type", "{d}/epochs.yaml: field 'epochs': expected an integer",
         "train", "--config", "{d}/epochs.yaml", "--data", "{d}/dataset"),
    case("train-config-missing", "{d}/missing.yaml: no such file", "train", "--config", "{d}/missing.yaml"),
    case("train-data-missing", "{d}/missing/dir: no such dataset folder",
         "train", "--data", "{d}/missing/dir", "--out", "{d}/t1"),
    case("train-from-garbage", "{d}/garbage.pt: not PyTorch",
         "train", "--from", "{d}/garbage.pt", "--out", "{d}/t2"),
    case("train-from-missing", "{d}/missing.pt: --from weights not found",
         "train", "--from", "{d}/missing.pt", "--out", "{d}/t3"),
    # render-game and synth
    case("render-recipe-latin1", "{d}/latin1.yaml:2: not UTF-8",
         "render-game", "royal_family", "--out", "{d}/g1", "--recipe", "{d}/latin1.yaml"),
    case("render-recipe-options", "{d}/options.yaml: field 'options'",
         "render-game", "royal_family", "--out", "{d}/g2", "--recipe", "{d}/options.yaml"),
    case("render-recipe-circle", "{d}/circle.yaml: field 'extends'",
         "render-game", "royal_family", "--out", "{d}/g3", "--recipe", "{d}/circle.yaml"),
    case("render-out-file", "{d}/file.jpg is a file",
         "render-game", "royal_family", "--out", "{d}/file.jpg", "--max-moves", "1"),
    case("synth-recipe-syntax", "{d}/syntax.yaml:2: not valid YAML",
         "synth", "--out", "{d}/s1", "--images", "1", "--recipe", "{d}/syntax.yaml"),
    case("synth-out-file", "{d}/file.jpg is a file, not a folder",
         "synth", "--out", "{d}/file.jpg", "--images", "1"),
]


def run(args: tuple[str, ...], d: Path, home: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if home:
        env["CARDREF_HOME"] = str(d / home)
        if (ROOT / ".cache").exists() and not (d / home / ".cache").exists():
            (d / home / ".cache").symlink_to(ROOT / ".cache")
    argv = [a.replace("{d}", str(d)) for a in args]
    return subprocess.run([sys.executable, "-m", "vision.commands.main", *argv], capture_output=True,
                          text=True, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize(("args", "home", "names"), CASES)
def test_bad_input_is_one_line_and_a_nonzero_exit(d, args, home, names):
    r = run(args, d, home)
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1, (r.returncode, r.stderr[-2000:])
    assert lines[0].startswith(f"cardref {args[0]}: error: ")
    wanted = re.escape(names).replace(re.escape("{d}"), re.escape(str(d))).replace(re.escape("{n}"), r"\d+")
    assert re.search(wanted, lines[0]), (wanted, lines[0])

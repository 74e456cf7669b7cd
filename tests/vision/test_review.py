"""``cardref review``: the loopback page and its JSON API edit label files; the static page; a
label file that does not parse is named with its line."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from collect_video import render_states

from referee.cards import CLASSES
from vision.collect.review import ReviewServer
from vision.collect.store import Session, read_manifest
from vision.collect.yolo_labels import from_detections, read_labels
from vision.commands.main import main
from vision.detector.detections import Detections


@pytest.fixture(scope="module")
def states():
    return render_states(2, seed=77)


@pytest.fixture
def dataset(states, tmp_path) -> Path:
    """Two collected frames: one sure, one with an unsure card (flagged)."""
    root = tmp_path / "data"
    session = Session(root)
    for k, s in enumerate(states):
        conf = [0.9] * len(s.boxes)
        if k == 1:
            conf[0] = 0.2
        det = Detections(s.boxes, np.array(conf, np.float32), s.classes)
        boxes = from_detections(det, s.image.shape[1], s.image.shape[0])
        session.save(10 * k, k, s.image, boxes, "settled", ["low confidence"] if k == 1 else [])
    return root


@pytest.fixture
def server(dataset):
    srv = ReviewServer(dataset, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def call(url: str, payload=None, headers=None) -> tuple[int, dict | bytes]:
    data = None if payload is None else json.dumps(payload).encode()
    head = {"Content-Type": "application/json", **(headers or {})}
    request = urllib.request.Request(url, data=data, headers=head if data else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            body = reply.read()
            status = reply.status
            kind = reply.headers["Content-Type"]
    except urllib.error.HTTPError as e:
        body, status, kind = e.read(), e.code, e.headers["Content-Type"]
    return status, json.loads(body) if kind == "application/json" else body


def test_the_page_lists_doubtful_frames_first_and_serves_images(server):
    assert server.server_address[0] == "127.0.0.1"
    status, body = call(server.url)
    assert status == 200 and b"api/labels" in body and b"<svg" not in body[:100]
    status, data = call(server.url + "api/items")
    items = data["items"]
    assert [i["flagged"] for i in items] == [True, False]
    assert items[0]["min_confidence"] == 0.2 and items[0]["boxes"][0]["confidence"] == 0.2
    status, jpeg = call(server.url + items[0]["image"])
    assert status == 200 and jpeg[:2] == b"\xff\xd8"


def test_fix_a_class_and_delete_a_box_through_the_api(server, dataset):
    _, data = call(server.url + "api/items")
    item = data["items"][0]
    boxes = item["boxes"]
    new_class = "JK" if boxes[0]["class"] != "JK" else "AS"
    boxes[0]["class"] = new_class
    del boxes[1]
    status, reply = call(server.url + "api/labels", {"image": item["image"], "boxes": boxes})
    assert status == 200 and reply == {"ok": True, "boxes": len(boxes)}
    written = read_labels(dataset / item["label"])
    assert [b.name for b in written] == [b["class"] for b in boxes] and written[0].name == new_class
    assert written[0].cx == pytest.approx(boxes[0]["cx"], abs=1e-6)
    _, data = call(server.url + "api/items")
    assert [i["reviewed"] for i in data["items"]] == [False, True]  # the reviewed frame goes last
    assert len(read_manifest(dataset)) == 2 and not list(dataset.rglob("*.tmp"))


@pytest.mark.parametrize(
    "payload,headers,status,message",
    [
        (
            {"image": "X", "boxes": [{"class": "ZZ", "cx": 0.5, "cy": 0.5, "w": 0.1, "h": 0.1}]},
            {},
            400,
            "box 0: 'class'",
        ),
        (
            {"image": "X", "boxes": [{"class": "7S", "cx": 1.5, "cy": 0.5, "w": 0.1, "h": 0.1}]},
            {},
            400,
            "not normalised",
        ),
        ({"image": "../data.yaml", "boxes": []}, {}, 400, "not an image of this dataset"),
        ({"image": "X", "boxes": []}, {"Origin": "http://evil.example"}, 403, "not accepted"),
    ],
)
def test_bad_posts_are_refused_and_change_nothing(server, dataset, payload, headers, status, message):
    image = call(server.url + "api/items")[1]["items"][0]
    payload = {**payload, "image": image["image"] if payload["image"] == "X" else payload["image"]}
    before = (dataset / image["label"]).read_text()
    got, reply = call(server.url + "api/labels", payload, headers)
    assert got == status and message in reply["error"]
    assert (dataset / image["label"]).read_text() == before


def test_static_page_embeds_every_frame(dataset, tmp_path, capsys):
    out = tmp_path / "review.html"
    assert main(["review", str(dataset), "--html", str(out)]) == 0
    html = out.read_text()
    assert html.count("data:image/jpeg;base64,") == 2 and "read-only" in html
    assert json.dumps(list(CLASSES)) in html
    assert "2 frames" in capsys.readouterr().out


def test_a_label_file_that_does_not_parse_is_named_with_its_line(dataset, capsys):
    label = next((dataset / "labels" / "train").glob("*.txt"))
    lines = label.read_text().splitlines()
    label.write_text("\n".join([lines[0], "7 0.5 0.5 oops 0.1", *lines[1:]]) + "\n")
    assert main(["review", str(dataset), "--port", "0"]) == 2
    assert f"{label}:2: expected 'class cx cy w h'" in capsys.readouterr().err

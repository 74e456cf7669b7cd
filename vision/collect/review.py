"""Reviewing collected labels: a self-contained HTML page, served on loopback or written static.

The page lists every collected frame with its boxes, unreviewed and doubtful ones first
(flagged, then lowest confidence). A person accepts a frame's boxes, fixes a box's class or
deletes a box; the page posts the frame's whole box list to ``POST /api/labels`` and the label
file is rewritten atomically. The server binds 127.0.0.1 only and accepts JSON posts from its
own page only (a cross-site form cannot post JSON without the browser asking first).
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import asdict, dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

import cv2

from referee import files
from referee.cards import CLASS_ID, CLASSES
from referee.errors import CardrefError
from vision.collect.store import REVIEWED, SPLITS, read_manifest, reviewed_images
from vision.collect.yolo_labels import LabelBox, check, read_labels, write_labels
from vision.detector.evaluate import IMAGE_SUFFIXES

HOST = "127.0.0.1"
STATIC_WIDTH = 640  # px: images embedded in a static page are shrunk to this width


@dataclass
class Item:
    """One frame as the page shows it (boxes normalised; confidence only while unreviewed)."""

    image: str
    label: str
    split: str
    boxes: list[dict] = field(default_factory=list)  # {"class", "cx", "cy", "w", "h", "confidence"}
    flagged: bool = False
    reason: str = ""
    min_confidence: float | None = None
    reviewed: bool = False


def label_path(root: Path, image_rel: str) -> Path:
    p = Path(image_rel)
    return root / "labels" / p.parent.name / f"{p.stem}.txt"


def load_items(root: Path) -> list[Item]:
    """Every image of DIR with its label boxes, doubtful first. A label file that does not
    parse is a CardrefError naming its path and line."""
    if not (root / "images").is_dir():
        raise CardrefError(f"{root}: no images/ folder (expected a dataset written by cardref collect)")
    manifest = {e.image: e for e in read_manifest(root)}
    reviewed = reviewed_images(root)
    items = []
    for split in SPLITS:
        folder = root / "images" / split
        if not folder.is_dir():
            continue
        for img in sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
            rel = f"images/{split}/{img.name}"
            boxes = read_labels(label_path(root, rel))
            entry = manifest.get(rel)
            done = rel in reviewed
            confidences = [None] * len(boxes)
            if entry and not done and [b["class"] for b in entry.boxes] == [b.name for b in boxes]:
                confidences = [b["confidence"] for b in entry.boxes]
            items.append(
                Item(
                    rel,
                    str(label_path(root, rel).relative_to(root)),
                    split,
                    [
                        {"class": b.name, "cx": b.cx, "cy": b.cy, "w": b.w, "h": b.h, "confidence": c}
                        for b, c in zip(boxes, confidences, strict=True)
                    ],
                    bool(entry and entry.flagged and not done),
                    entry.reason if entry else "",
                    entry.min_confidence if entry and not done else None,
                    done,
                )
            )
    return sorted(items, key=lambda i: (i.reviewed, not i.flagged, _or_one(i.min_confidence), i.image))


def _or_one(value: float | None) -> float:
    return 1.0 if value is None else value


def save_labels(root: Path, payload: dict) -> int:
    """Apply one POST /api/labels: ``{"image": "images/train/x.jpg", "boxes": [{"class": "7S",
    "cx": .., "cy": .., "w": .., "h": ..}]}``. Returns the number of boxes written."""
    image = payload.get("image") if isinstance(payload, dict) else None
    boxes = payload.get("boxes") if isinstance(payload, dict) else None
    if not isinstance(image, str) or not isinstance(boxes, list):
        raise CardrefError("expected {'image': 'images/<split>/<name>.jpg', 'boxes': [...]}")
    root = root.resolve()
    path = resolve_image(root, image)
    out = []
    for n, b in enumerate(boxes):
        where = f"{image}: box {n}"
        if not isinstance(b, dict) or b.get("class") not in CLASS_ID:
            raise CardrefError(f"{where}: 'class' must be one of the {len(CLASSES)} card names")
        try:
            box = LabelBox(CLASS_ID[b["class"]], *(float(b[k]) for k in ("cx", "cy", "w", "h")))
        except (KeyError, TypeError, ValueError):
            raise CardrefError(f"{where}: expected numbers cx, cy, w, h") from None
        out.append(check(box, where))
    write_labels(label_path(root, str(path.relative_to(root))), out)
    files.append_line(root / REVIEWED, json.dumps({"image": image, "boxes": len(out)}))
    return len(out)


def resolve_image(root: Path, rel: str) -> Path:
    """The image file named by a page path, which must lie in DIR/images/<split>/."""
    path = (root / rel).resolve()
    if path.parent.parent != (root / "images").resolve() or path.parent.name not in SPLITS:
        raise CardrefError(f"{rel}: not an image of this dataset")
    if not path.is_file():
        raise CardrefError(f"{rel}: no such image")
    return path


def page(items: list[Item] | None, title: str, embedded: dict[str, str] | None = None) -> str:
    """The review page. ``items`` None: the page fetches them from the server and can save;
    otherwise they are embedded with their images (``embedded``: path -> data URI), read-only."""
    static = None if items is None else {"items": [asdict(i) for i in items], "images": embedded or {}}
    data = json.dumps(static).replace("</", "<\\/")
    return (
        TEMPLATE.replace("__TITLE__", title)
        .replace("__CLASSES__", json.dumps(list(CLASSES)))
        .replace("__STATIC__", data)
    )


def write_static(root: Path, out: Path) -> Path:
    """A read-only page with every image embedded (shrunk to STATIC_WIDTH px)."""
    items = load_items(root)
    embedded = {}
    for it in items:
        image = cv2.imread(str(root / it.image))
        if image is None:
            raise CardrefError(f"{root / it.image}: cannot read image")
        scale = min(1.0, STATIC_WIDTH / image.shape[1])
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
        embedded[it.image] = "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode()
    files.write_text(out, page(items, f"cardref review: {root}", embedded))
    return out


class ReviewServer(ThreadingHTTPServer):
    """The review page and its JSON API for one dataset, on 127.0.0.1 only."""

    daemon_threads = True

    def __init__(self, root: Path, port: int = 8765):
        self.root = root.resolve()
        self.lock = threading.Lock()  # one label write at a time
        load_items(self.root)  # fail now, with the bad file and line, not in the browser
        super().__init__((HOST, port), ReviewHandler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"


class ReviewHandler(BaseHTTPRequestHandler):
    server: ReviewServer

    def log_message(self, format: str, *args) -> None:
        pass  # quiet: the terminal shows only what the command prints

    def do_GET(self) -> None:
        path = unquote(urlparse(self.path).path)
        try:
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, "text/html; charset=utf-8", page(None, "cardref review").encode())
            elif path == "/api/items":
                items = [asdict(i) for i in load_items(self.server.root)]
                self._json(HTTPStatus.OK, {"items": items})
            elif path.startswith("/images/"):
                file = resolve_image(self.server.root, path.lstrip("/"))
                self._send(HTTPStatus.OK, "image/jpeg", file.read_bytes())
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"{path}: not found"})
        except CardrefError as e:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(e)})

    def do_POST(self) -> None:
        if urlparse(self.path).path != "/api/labels":
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        origin = self.headers.get("Origin")
        if origin and origin != self.server.url.rstrip("/"):
            self._json(HTTPStatus.FORBIDDEN, {"error": f"posts from {origin} are not accepted"})
            return
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "expected application/json"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length) or b"null")
            with self.server.lock:
                written = save_labels(self.server.root, payload)
        except json.JSONDecodeError as e:
            self._json(HTTPStatus.BAD_REQUEST, {"error": f"not JSON: {e.msg}"})
        except CardrefError as e:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(e)})
        else:
            self._json(HTTPStatus.OK, {"ok": True, "boxes": written})

    def _json(self, status: HTTPStatus, data: dict) -> None:
        self._send(status, "application/json", json.dumps(data).encode())

    def _send(self, status: HTTPStatus, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:1em;background:#f4f4f4;color:#222}
.frame{background:#fff;border-radius:6px;padding:.6em;margin:0 0 1em;display:flex;gap:1em;flex-wrap:wrap}
.frame.flagged{border-left:6px solid #d33}.frame.reviewed{opacity:.7;border-left:6px solid #3a3}
.view{position:relative;max-width:720px;flex:1 1 480px}.view img{width:100%;display:block}
.view svg{position:absolute;left:0;top:0;width:100%;height:100%}
rect{fill:none;stroke:#0c0;stroke-width:.004}rect.low{stroke:#e22}rect.hot{stroke:#ff0;stroke-width:.008}
text{font-size:.025px;fill:#ff0;paint-order:stroke;stroke:#000;stroke-width:.004}
table{border-collapse:collapse;font-size:.9em}td{padding:2px 6px}tr.low td{color:#c00}
.reason{color:#c00}.status{margin-left:.5em;color:#070}
</style></head><body>
<h1>__TITLE__</h1>
<p id="summary"></p>
<div id="frames"></div>
<script>
const CLASSES = __CLASSES__;
const STATIC = __STATIC__;
const LOW = 0.5;
let items = [];

function el(tag, attrs = {}, ...kids) {
  const ns = ["svg", "rect", "text"].includes(tag) ? "http://www.w3.org/2000/svg" : null;
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
}

function draw(frame, item, index) {
  const svg = frame.querySelector("svg"), rows = frame.querySelector("tbody");
  svg.replaceChildren(); rows.replaceChildren();
  item.boxes.forEach((b, k) => {
    const low = b.confidence !== null && b.confidence < LOW ? "low" : "";
    const r = el("rect", {x: b.cx - b.w / 2, y: b.cy - b.h / 2, width: b.w, height: b.h, class: low});
    svg.append(r, el("text", {x: b.cx - b.w / 2, y: b.cy - b.h / 2 - .005}, b["class"]));
    const pick = el("select", STATIC ? {disabled: ""} : {});
    for (const c of CLASSES) pick.append(el("option", c === b["class"] ? {selected: ""} : {}, c));
    pick.onchange = () => { b["class"] = pick.value; b.confidence = null; draw(frame, item, index); };
    const del = el("button", STATIC ? {disabled: ""} : {}, "delete");
    del.onclick = () => { item.boxes.splice(k, 1); draw(frame, item, index); };
    const conf = b.confidence === null ? "" : b.confidence.toFixed(2);
    const row = el("tr", {class: low}, el("td", {}, String(k + 1)), el("td", {}, pick),
                   el("td", {}, conf), el("td", {}, del));
    row.onmouseenter = () => r.classList.add("hot");
    row.onmouseleave = () => r.classList.remove("hot");
    rows.append(row);
  });
}

async function save(frame, item) {
  const status = frame.querySelector(".status");
  const boxes = item.boxes.map(b => ({"class": b["class"], cx: b.cx, cy: b.cy, w: b.w, h: b.h}));
  const reply = await fetch("api/labels", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify({image: item.image, boxes})});
  const data = await reply.json();
  status.textContent = reply.ok ? `saved ${data.boxes} boxes` : `error: ${data.error}`;
  if (reply.ok) { item.reviewed = true; frame.className = "frame reviewed"; }
}

function show() {
  const root = document.getElementById("frames");
  const flagged = items.filter(i => i.flagged).length;
  document.getElementById("summary").textContent =
    `${items.length} frames, ${flagged} flagged for review` +
    (STATIC ? " (static page: read-only; run cardref review DIR to edit)" : "");
  items.forEach((item, index) => {
    const src = STATIC ? STATIC.images[item.image] : item.image;
    const cls = "frame" + (item.flagged ? " flagged" : "") + (item.reviewed ? " reviewed" : "");
    const accept = el("button", STATIC ? {disabled: ""} : {}, "accept / save");
    const frame = el("div", {class: cls},
      el("div", {class: "view"}, el("img", {src, alt: item.image, loading: "lazy"}),
         el("svg", {viewBox: "0 0 1 1", preserveAspectRatio: "none"})),
      el("div", {}, el("b", {}, item.image),
         el("div", {class: "reason"}, item.reason || ""),
         el("div", {}, item.min_confidence === null ? ""
                       : `lowest confidence ${item.min_confidence.toFixed(2)}`),
         el("table", {}, el("tbody")), accept, el("span", {class: "status"})));
    accept.onclick = () => save(frame, item);
    draw(frame, item, index);
    root.append(frame);
  });
}

(async () => {
  items = STATIC ? STATIC.items : (await (await fetch("api/items")).json()).items;
  show();
})();
</script></body></html>
"""

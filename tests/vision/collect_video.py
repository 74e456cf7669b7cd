"""A short table video made from rendered frames, and the renderer's true boxes for it.

Each table state is a rendered image held still for 1.5 s; between states a skin-coloured
blob (a hand) sweeps over the table for half a second, as when a player moves cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.cards import CLASS_ID, CLASSES
from vision.layout import load_layout
from vision.synth.assets import Art, load_recipe
from vision.synth.render import render_sample

ROOT = Path(__file__).resolve().parents[2]
FPS = 10
HOLD = 15  # frames a state stays still
MOVE = 5  # frames of the hand moving between states
SIZE = 960  # frames are padded to SIZE x SIZE (the renderer's long side), boxes unchanged


@dataclass
class State:
    image: np.ndarray
    boxes: np.ndarray  # (n, 4) xyxy pixels, true
    classes: np.ndarray  # (n,) CLASSES ids


def render_states(count: int, seed: int = 4242) -> list[State]:
    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    layout = load_layout("royal_family")
    states = []
    for i in range(count):
        s = render_sample(art, layout, seed, i, imgsz=SIZE, weights={"layout": 0.5, "closeup": 0.5})
        image = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
        canvas = np.full((SIZE, SIZE, 3), 90, np.uint8)
        canvas[: image.shape[0], : image.shape[1]] = image
        labelled = [lb for lb in s.labels if lb.labelled]
        boxes = np.array([lb.box for lb in labelled], np.float32).reshape(-1, 4)
        classes = np.array([CLASS_ID[lb.cls] for lb in labelled], np.int64)
        states.append(State(canvas, boxes, classes))
    return states


def write_video(path: Path, states: list[State], order: list[int]) -> list[int]:
    """The video of ``states`` shown in ``order``; returns the state shown at each frame."""
    h, w = states[0].image.shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (w, h))
    shown = []
    for k, s in enumerate(order):
        if k:
            for m in range(MOVE):
                frame = states[s].image.copy()
                x = 100 + m * w // MOVE
                cv2.ellipse(frame, (x, h // 2), (140, 90), 20, 0, 360, (140, 170, 215), -1)
                writer.write(frame)
                shown.append(s)
        for _ in range(HOLD):
            writer.write(states[s].image)
            shown.append(s)
    writer.release()
    return shown


def write_detections(path: Path, states: list[State], shown: list[int], edit=None) -> None:
    """detections.jsonl (as ``cardref replay`` records it) of the true boxes at confidence 0.9;
    ``edit(frame, state, confidence, classes)`` may change a frame's confidences and classes."""
    with path.open("w") as f:
        for frame, s in enumerate(shown):
            st = states[s]
            conf = np.full(len(st.boxes), 0.9)
            classes = st.classes.copy()
            if edit:
                edit(frame, s, conf, classes)
            row = {
                "frame": frame,
                "xyxy": st.boxes.tolist(),
                "confidence": conf.tolist(),
                "class": [CLASSES[c] for c in classes],
            }
            f.write(json.dumps(row) + "\n")


def render_plan(steps, layout, size=(960, 720)):
    """Each guided layout drawn by a known camera: (states, calibration homography). Face-down
    placements get a real card turned over; the cards lie at their zones' centres."""
    from vision.synth.camera import look_at
    from vision.synth.compose import Light, draw_cards, new_canvas
    from vision.synth.labels import label_cards
    from vision.synth.scenes import Dealer

    art = Art(load_recipe(ROOT / "datasets" / "recipes" / "holdout.yaml"))
    camera = look_at(size[0], size[1], (60, 50), 150, 60, 6, 30, 0)
    H = camera.homography()
    rng = np.random.default_rng(3)
    states = []
    for step in steps:
        dealer = Dealer(rng, art, 1)
        cards = []
        for p in step.placements:
            zone = layout.zones[p.zone]
            angle = (90.0 if p.sideways else 0.0) + float(rng.normal(0, 3))
            identity, face_up = ("2C", False) if p.card == "BACK" else (p.card, True)
            cards.append(dealer.sprite(identity, face_up, zone.center, angle, p.zone))
        canvas = new_canvas(np.full((size[1], size[0], 3), 70.0, np.float32))
        draw_cards(canvas, H, cards, Light(), 6.0)
        labels = [
            lb for lb in label_cards(cards, canvas.drawn, camera, canvas.ids, canvas.ids) if lb.labelled
        ]
        image = np.clip(canvas.image, 0, 255).astype(np.uint8)[..., ::-1].copy()
        boxes = np.array([lb.box for lb in labels], np.float32).reshape(-1, 4)
        classes = np.array([CLASS_ID[lb.cls] for lb in labels], np.int64)
        states.append(State(image, boxes, classes))
    return states, H

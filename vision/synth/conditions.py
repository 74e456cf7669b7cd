"""A rendered game as a real game night would film it: arms, a bumped camera, dim light,
a poor or busy camera.

``perturb(game_dir, out_dir, condition)`` re-encodes a game rendered by ``cardref
render-game`` under one condition and copies its truth (observations, labels, render.json),
so that ``cardref replay --players`` and the bench score it as the clean game. The frames keep
their times and count (the labels still say which true observation each frame comes after);
only what the camera sees changes:

- ``arms``: a bare forearm reaches in from a player's edge every 5-9 s, hovers over the table
  for about 2 s and leaves, moving all the while (someone reaching across to a drink); the
  last one has left before the video ends, as players look at the table at the end of a game;
- ``bump``: at 40 % of the video the camera turns by 1 degree and shifts by 2.5 % of the
  frame (a knock), and stays so;
- ``staging``: while a drawn card lies in ``staging`` before going somewhere in view, a hand
  keeps moving over it, so the table never settles with the card there (the camera misses
  the staging step and sees the card jump from the draw pile to its destination);
- ``dim``: a third of the light, warm (less blue), with sensor noise;
- ``blur``: the camera out of focus (a Gaussian defocus of 2.5 px at 720p);
- ``noise``: a cheap sensor in poor light: strong grain (8 grey levels) and heavy JPEG-like
  compression (quality 25) on every frame;
- ``lowres``: a 640x360 camera (the video itself is that size, the labels' boxes scaled);
- ``drop``: a busy machine or a stalling USB camera: 20 % of the frames, in bursts of 3-12
  (0.1-0.4 s), never arrive; as a recording of such a camera does, the video repeats the
  last frame delivered, so the table looks still where it was not (a burst can outlast the
  pipeline's quiet time, so a frozen picture may be read, but not a player's pause: a real
  stall would not hide a whole move);
- ``flicker``: a light that pulses (a strip light beating with the camera's frame rate, or a
  webcam's exposure hunting): every frame's brightness scaled by 1 + 0.25 sin(2 pi 4.3 t), so
  that no two frames in a row are lit alike;
- ``shake``: a camera on a mount that trembles (a gooseneck, a table leant on): every frame
  moved by its own random shift of about a pixel (1 px standard deviation each way at 720p);
- ``fps10``: a camera that delivers 10 frames a second (a cheap webcam in poor light
  lengthens its exposure): the video keeps every third frame, at 10 fps, and the labels
  those frames' (renumbered, their times kept), so a hand moves three times as far between
  two frames and a table is still for a third as many;
- ``mirror``: a webcam that shows the table as in a mirror (its "selfie" view): every frame
  flipped left to right (the labels stay those of the picture turned back, which is what
  the referee reads once it has found the mat's markers mirrored);
- ``fast``: the game played twice as fast (players who know it well): every other frame kept
  at the same frame rate, the labels' times halved, so that the table stays still for about a
  third of a second between moves and a drawn card lies in staging for 0.15-0.5 s.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from referee.errors import CardrefError
from vision.layout import load_layout

CONDITIONS = (
    "arms", "bump", "staging", "dim", "blur", "noise", "lowres", "drop", "flicker", "shake",
    "fps10", "mirror", "fast",
)
# The conditions that change each picture alone (cardref eval --camera).
CAMERAS = ("dim", "blur", "noise", "lowres")
ARM_EVERY_S = (5.0, 9.0)  # seconds between two arms crossing
ARM_FOR_S = 2.0  # an arm's time over the table
SKIN_BGR = (128, 160, 205)
BUMP_AT = 0.4  # share of the video before the camera is knocked
BUMP_DEG, BUMP_SHIFT = 1.0, 0.025
DIM_GAIN, DIM_NOISE = 0.33, 3.0
BLUR_SIGMA = 2.5  # px at 1280 wide, scaled with the frame
NOISE_SIGMA, NOISE_JPEG = 8.0, 25
LOWRES = (640, 360)
DROP_SHARE, DROP_BURST = 0.2, (3, 12)  # frames lost, and frames per burst
FLICKER_DEPTH, FLICKER_HZ = 0.25, 4.3  # the light's swing either way, and its pulses a second
SHAKE_PX = 1.0  # a trembling camera's shift, standard deviation each way, px at 1280 wide
FPS10_EVERY = 3  # a 30 fps game filmed at 10 fps: every third frame
FAST_EVERY = 2  # a game played twice as fast: every other frame, at the same frame rate


def _arm(image: np.ndarray, base: tuple[float, float], tip: tuple[float, float], width: float) -> None:
    """A forearm from ``base`` (off the frame's edge) to a hand at ``tip``, with a soft shadow."""
    b, t = np.array(base), np.array(tip)
    shadow = image.copy()
    off = np.array([width * 0.4, width * 0.3])
    cv2.line(shadow, tuple(np.int32(b + off)), tuple(np.int32(t + off)), (0, 0, 0), int(width), cv2.LINE_AA)
    cv2.addWeighted(shadow, 0.35, image, 0.65, 0, dst=image)
    cv2.line(image, tuple(np.int32(b)), tuple(np.int32(t)), SKIN_BGR, int(width), cv2.LINE_AA)
    cv2.circle(image, tuple(np.int32(t)), int(width * 0.75), SKIN_BGR, -1, cv2.LINE_AA)


class Arms:
    """Arms crossing the table at random times, each moving along its own path: (start s,
    base px, tip px) each, over the table for ``duration`` s."""

    def __init__(self, crossings: list, width: float, duration: float = ARM_FOR_S):
        self.crossings, self.width, self.duration = crossings, width, duration

    @classmethod
    def random(cls, rng: np.random.Generator, seconds: float, size: tuple[int, int]) -> Arms:
        w, h = size
        crossings = []
        t = float(rng.uniform(*ARM_EVERY_S))
        while t + ARM_FOR_S <= seconds:  # each arm leaves before the film ends, as at a table
            from_top = rng.random() < 0.5
            x0 = float(rng.uniform(0.15, 0.85)) * w
            base = (x0, -0.1 * h if from_top else 1.1 * h)
            reach = float(rng.uniform(0.3, 0.75)) * h
            tip = (x0 + float(rng.normal(0, 0.12)) * w, reach if from_top else h - reach)
            crossings.append((t, base, tip))
            t += ARM_FOR_S + float(rng.uniform(*ARM_EVERY_S))
        return cls(crossings, 0.07 * w)

    def draw(self, image: np.ndarray, t: float) -> None:
        for start, base, tip in self.crossings:
            u = (t - start) / self.duration
            if 0 <= u <= 1:
                reach = np.sin(np.pi * u)  # in, hover, out
                wobble = 0.03 * image.shape[1] * np.sin(7 * u)
                at = (base[0] + (tip[0] - base[0]) * reach + wobble, base[1] + (tip[1] - base[1]) * reach)
                _arm(image, base, at, self.width)


def staging_boxes(game_dir: Path) -> dict[int, tuple[float, float, float, float]]:
    """Frame -> the box of the card lying still in ``staging`` on that settled frame, for the
    cards that then go somewhere the camera sees (a card drawn and discarded face down unseen
    is a whole turn missed, which no camera can name: the players type it)."""
    meta = json.loads((game_dir / "render.json").read_text())
    layout = load_layout(meta.get("layout") or meta["game"])
    truth = [json.loads(line) for line in (game_dir / "observations.jsonl").read_text().splitlines() if line]
    out = {}
    with (game_dir / "labels.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row.get("phase") != "settled":
                continue
            card = next((c for c in row["cards"] if c.get("zone") == "staging" and c.get("box")), None)
            if card is None:
                continue
            after = next((o for o in truth[row["obs"] :] if o.get("card") == card["card"]), None)
            z = layout.zones.get(after.get("to", "")) if after else None
            if z is not None and not z.offtable and z.face != "down":
                out[row["frame"]] = tuple(card["box"])
    return out


def bumped_labels(labels: Path, out: Path, from_frame: int, turn: np.ndarray) -> None:
    """The labels with each box of a frame from ``from_frame`` on carried through ``turn``
    (a 2x3 affine map of frame pixels)."""
    lines = []
    for line in labels.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["frame"] >= from_frame:
            for card in row["cards"]:
                if card.get("box"):
                    x0, y0, x1, y1 = card["box"]
                    pts = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]]) @ turn.T
                    card["box"] = [round(float(v), 1) for v in (*pts.min(axis=0), *pts.max(axis=0))]
        lines.append(json.dumps(row, separators=(",", ":")))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def kept_labels(labels: Path, out: Path, every: int, speed: float = 1.0) -> None:
    """The label rows of every ``every``-th frame, renumbered as the frames of a video that
    keeps only those, their times divided by ``speed`` (a game played that much faster)."""
    rows = [json.loads(line) for line in labels.read_text().splitlines() if line.strip()]
    kept = [{**r, "frame": r["frame"] // every, "t": round(r["t"] / speed, 4)}
            for r in rows if r["frame"] % every == 0]
    out.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in kept))


def dropped_frames(rng: np.random.Generator, frames: int) -> set[int]:
    """Bursts of ``DROP_BURST`` frames, ``DROP_SHARE`` of them all, at random places."""
    out: set[int] = set()
    mean_gap = (sum(DROP_BURST) / 2) * (1 - DROP_SHARE) / DROP_SHARE
    at = int(rng.exponential(mean_gap))
    while at < frames:
        burst = int(rng.integers(DROP_BURST[0], DROP_BURST[1] + 1))
        out.update(range(at, min(at + burst, frames)))
        at += burst + 1 + int(rng.exponential(mean_gap))
    return out


def noisy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    grain = image.astype(np.float32) + rng.normal(0, NOISE_SIGMA, image.shape).astype(np.float32)
    image = np.clip(grain, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, NOISE_JPEG])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else image


def filmed(image: np.ndarray, camera: str, rng: np.random.Generator) -> np.ndarray:
    """A BGR picture as the camera of one of :data:`CAMERAS` sees it, the same size (``lowres``:
    the detail of a 640x360 camera, scaled back up, so that a picture's labels still hold)."""
    if camera == "dim":
        warm = image.astype(np.float32) * np.array([0.7, 0.9, 1.0], np.float32) * DIM_GAIN
        warm += rng.normal(0, DIM_NOISE, image.shape).astype(np.float32)
        return np.clip(warm, 0, 255).astype(np.uint8)
    if camera == "blur":
        return cv2.GaussianBlur(image, (0, 0), BLUR_SIGMA * image.shape[1] / 1280)
    if camera == "noise":
        return noisy(image, rng)
    if camera == "lowres":
        h, w = image.shape[:2]
        k = LOWRES[0] / w
        if k >= 1:
            return image
        small = cv2.resize(image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    raise CardrefError(f"{camera}: unknown camera (expected one of {', '.join(CAMERAS)})")


def perturb(game_dir: Path, out_dir: Path, condition: str, seed: int = 0, arms: Arms | None = None) -> Path:
    """Write ``out_dir`` as ``game_dir`` filmed under ``condition`` (see the module's list);
    ``arms`` chooses the arms' crossings instead of random ones."""
    if condition not in CONDITIONS:
        raise CardrefError(f"{condition}: unknown condition (expected one of {', '.join(CONDITIONS)})")
    video = game_dir / "video.mp4"
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise CardrefError(f"{video}: cannot be read (render the game first: cardref render-game)")
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in ("observations.jsonl", "labels.jsonl", "render.json", "announcements.jsonl"):
        if (game_dir / name).exists():
            shutil.copyfile(game_dir / name, out_dir / name)
    rng = np.random.default_rng([seed, CONDITIONS.index(condition)])
    if condition == "arms" and arms is None:
        arms = Arms.random(rng, frames / fps, (w, h))
    staged = staging_boxes(game_dir) if condition == "staging" else {}
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), BUMP_DEG, 1.0)
    turn[:, 2] += (BUMP_SHIFT * w, BUMP_SHIFT * w * 0.5)
    if condition == "bump":  # the truth moves with the picture
        bumped_labels(game_dir / "labels.jsonl", out_dir / "labels.jsonl", round(BUMP_AT * frames), turn)
    size = (w, h)
    if condition == "lowres":
        size = LOWRES
        scale = np.array([[LOWRES[0] / w, 0, 0], [0, LOWRES[1] / h, 0]])
        bumped_labels(game_dir / "labels.jsonl", out_dir / "labels.jsonl", 0, scale)
    dropped = dropped_frames(rng, frames) if condition == "drop" else set()
    # Frames kept (every how many) and how much faster the game goes: fast keeps the frame rate.
    every, speed = {"fps10": (FPS10_EVERY, 1), "fast": (FAST_EVERY, FAST_EVERY)}.get(condition, (1, 1))
    if every > 1:
        kept_labels(game_dir / "labels.jsonl", out_dir / "labels.jsonl", every, speed)
    out_fps = fps * speed / every
    writer = cv2.VideoWriter(str(out_dir / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), out_fps, size)
    try:
        index, last = 0, None
        while True:
            ok, image = cap.read()
            if not ok:
                break
            t = index / fps
            if condition == "arms" and arms is not None:
                arms.draw(image, t)
            elif condition == "bump" and index >= round(BUMP_AT * frames):
                image = cv2.warpAffine(image, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
            elif condition == "staging" and index in staged:
                x0, y0, x1, y1 = staged[index]
                tip = ((x0 + x1) / 2 + 0.02 * w * np.sin(index * 0.9), (y0 + y1) / 2)
                _arm(image, (tip[0] + 0.1 * w, h * 1.1), tip, 0.07 * w)
            elif condition == "lowres":  # the video itself that size (filmed keeps a picture's size)
                image = cv2.resize(image, LOWRES, interpolation=cv2.INTER_AREA)
            elif condition in CAMERAS:
                image = filmed(image, condition, rng)
            elif condition == "drop":
                image = last if index in dropped and last is not None else image
                last = image
            elif condition == "flicker":
                light = 1 + FLICKER_DEPTH * np.sin(2 * np.pi * FLICKER_HZ * t)
                image = cv2.convertScaleAbs(image, alpha=light)
            elif condition == "mirror":
                image = cv2.flip(image, 1)
            elif condition == "shake":
                dx, dy = rng.normal(0, SHAKE_PX * w / 1280, 2)
                image = cv2.warpAffine(image, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h),
                                       borderMode=cv2.BORDER_REPLICATE)
            if index % every == 0:
                writer.write(image)
            index += 1
    finally:
        cap.release()
        writer.release()
    meta = out_dir / "render.json"
    if meta.exists():
        data = json.loads(meta.read_text())
        data = {**data, "condition": condition}
        if condition == "lowres":
            data["size"] = list(LOWRES)
        if condition == "drop":
            data["dropped_frames"] = len(dropped)
        if every > 1:
            data["fps"] = out_fps
        if speed != 1 and "video_seconds" in data:
            data["video_seconds"] = round(data["video_seconds"] / speed, 2)
        meta.write_text(json.dumps(data, indent=1) + "\n")
    return out_dir

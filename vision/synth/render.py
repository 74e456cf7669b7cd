"""One labelled image from (seed, index): scene, camera, drawing, light, lens, sensor, labels.

Every image draws its randomness from ``numpy.random.default_rng([seed, index])`` only, so
an image does not depend on which worker made it or in which order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.layout import Layout
from vision.synth.assets import Art
from vision.synth.camera import Camera, look_at
from vision.synth.compose import (
    Canvas,
    Light,
    draw_cards,
    draw_surface,
    local_px_per_cm,
    new_canvas,
)
from vision.synth.hands import draw_hand
from vision.synth.labels import CardLabel, label_cards
from vision.synth.photometric import Look, apply_blur, apply_light, encode_jpeg, to_uint8_with_noise
from vision.synth.play_mat import felt_over_layout, print_mat
from vision.synth.scenes import Clutter, Scene, closeup_scene, layout_scene, scatter_scene
from vision.synth.styles import apply_camera_style, random_camera_style
from vision.synth.textures import felt, random_surface

SCENE_WEIGHTS = {"layout": 0.35, "scatter": 0.35, "closeup": 0.30}
ASPECTS = ((4, 3), (16, 9), (3, 2), (3, 4), (9, 16), (1, 1))
ASPECT_WEIGHTS = (0.3, 0.25, 0.1, 0.15, 0.1, 0.1)


@dataclass
class Sample:
    jpeg: bytes
    width: int
    height: int
    scene: str
    labels: list[CardLabel]
    ids: np.ndarray  # final instance map (after lens distortion), for tests and previews
    decks: list[str]


def image_size(rng: np.random.Generator, imgsz: int) -> tuple[int, int]:
    """A capture size 640..1920 wide (any common aspect), capped at ``imgsz`` on the long side."""
    aw, ah = ASPECTS[int(rng.choice(len(ASPECTS), p=ASPECT_WEIGHTS))]
    long_side = min(int(rng.uniform(640, 1920)), imgsz)
    if aw >= ah:
        w, h = long_side, long_side * ah / aw
    else:
        w, h = long_side * aw / ah, long_side
    return int(round(w / 2) * 2), int(round(h / 2) * 2)


def make_camera(rng: np.random.Generator, scene: Scene, w: int, h: int) -> Camera:
    a = scene.aim
    k1 = float(rng.uniform(-0.12, 0.03)) if rng.random() < 0.7 else 0.0
    return look_at(w, h, a.target, a.extent, float(rng.uniform(50, 78)), a.tilt, a.tilt_dir, a.yaw, k1)


def draw_clutter(canvas: Canvas, H: np.ndarray, items: list[Clutter], light: Light, ppc: float) -> None:
    img = canvas.image
    for c in items:
        pts = cv2.perspectiveTransform(c.polygon.reshape(-1, 1, 2), H).reshape(-1, 2)
        shadow = pts + np.array([light.dx, light.dy]) * 0.4 * ppc
        cv2.fillPoly(img, [np.round(shadow * 4).astype(np.int32)], (0, 0, 0), cv2.LINE_AA, shift=2)
        if c.texture is not None:
            draw_printed(img, c.texture, pts)
            continue
        cv2.fillPoly(
            img, [np.round(pts * 4).astype(np.int32)], tuple(float(v) for v in c.colour), cv2.LINE_AA, shift=2
        )
        for ln in c.lines:
            q = cv2.perspectiveTransform(ln.reshape(-1, 1, 2), H).reshape(-1, 2)
            cv2.fillPoly(img, [np.round(q * 4).astype(np.int32)], (60, 60, 70), cv2.LINE_AA, shift=2)


def draw_printed(img: np.ndarray, texture: np.ndarray, pts: np.ndarray) -> None:
    """Warp a printed texture onto its image quad (float32 RGB canvas), edges antialiased."""
    th, tw = texture.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    M = cv2.getPerspectiveTransform(src, pts.astype(np.float32))
    x0, y0 = np.floor(pts.min(axis=0)).astype(int).clip(0)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpPerspective(texture.astype(np.float32), T, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((th, tw), np.float32), T, size, flags=cv2.INTER_LINEAR)[..., None]
    region = img[y0:y1, x0:x1]
    region[:] = region * (1 - mask) + warped * mask


def random_light(rng: np.random.Generator) -> Light:
    a = float(rng.uniform(0, 2 * math.pi))
    r = float(rng.uniform(0.2, 1.0))
    return Light(
        math.cos(a) * r, math.sin(a) * r, float(rng.uniform(0.15, 0.5)), float(rng.uniform(0.6, 2.0))
    )


def pick_scene(
    rng: np.random.Generator, art: Art, layout: Layout, weights: dict[str, float] | None = None
) -> Scene:
    weights = weights or SCENE_WEIGHTS
    kinds = list(weights)
    p = np.array([weights[k] for k in kinds], np.float64)
    kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
    if kind == "layout":
        return layout_scene(rng, art, layout)
    if kind == "scatter":
        return scatter_scene(rng, art)
    return closeup_scene(rng, art)


def render_sample(
    art: Art, layout: Layout, seed: int, index: int, imgsz: int = 960, weights: dict[str, float] | None = None
) -> Sample:
    rng = np.random.default_rng([seed, index])
    scene = pick_scene(rng, art, layout, weights)
    w, h = image_size(rng, imgsz)
    cam = make_camera(rng, scene, w, h)
    H = cam.homography()
    surface = random_surface(rng, art.photos(), size=int(rng.choice([256, 384, 512])))
    table = draw_surface(surface, H, w, h)
    ppc = local_px_per_cm(H, scene.aim.target)
    mat_share = float(art.options.get("printed_mat", 0.0))
    if scene.kind == "layout" and mat_share > 0 and rng.random() < mat_share:  # drawn only when asked
        table = print_mat(felt_over_layout(table, felt(rng, 384), layout, H), layout, H, ppc)
    canvas = new_canvas(table)
    light = random_light(rng)
    draw_clutter(canvas, H, scene.clutter, light, ppc)
    draw_cards(canvas, H, scene.cards, light, ppc)
    for hand in scene.hands:
        draw_hand(canvas, H, hand, light, ppc, rng)
    look = Look.random(rng)
    img = apply_light(canvas.image, look)
    camera_share = float(art.options.get("camera_styles", 0.0))
    sensor = None
    if camera_share > 0:  # drawn only when asked, so other recipes render as before
        sensor = random_camera_style(rng, camera_share)
        img = apply_camera_style(img, sensor)
    ids_flat = canvas.ids
    maps = cam.distortion_maps()
    if maps is not None:
        img = cv2.remap(img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        ids_final = cv2.remap(
            ids_flat, maps[0], maps[1], cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=-1
        )
    else:
        ids_final = ids_flat
    img = apply_blur(img, look)
    rgb = to_uint8_with_noise(img, look, rng)
    labels = label_cards(scene.cards, canvas.drawn, cam, ids_flat, ids_final, sensor.kind if sensor else "")
    decks = sorted({c.face.split("/faces/")[-1].split("/")[0] for c in scene.cards})
    return Sample(encode_jpeg(rgb, look.jpeg_quality), w, h, scene.kind, labels, ids_final, decks)

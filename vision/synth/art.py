"""Card art set-up: real deck designs and table photos from Debian packages, cached as images.

Run once per machine (``make art`` or ``python -m vision.synth.art``). It fetches the
packages with ``apt-get download`` (no system-wide install of the art), renders every card
of every usable French-suited deck with ``rsvg-convert`` (installed with apt when missing),
checks each face and drops the broken ones, and writes ``.cache/cardart/manifest.json``.
The generator then needs only this folder (faces as WebP with alpha, table photos as JPEG):
no SVG renderer and no network at generation time. A second run does nothing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from referee.cards import CLASSES, RANKS
from referee.errors import CardrefError
from referee.paths import project_root

MANIFEST_VERSION = 1
FACE_HEIGHT = 300  # px; cards are scaled to the scene from this size
ASPECT_RANGE = (1.33, 1.60)  # height / width of a real card (poker 1.40, bridge 1.56)

CARD_PACKAGES = ("gnome-cards-data", "kdegames-card-data-kf5")
BACKGROUND_PACKAGES = ("mate-backgrounds",)
RSVG_PACKAGE = "librsvg2-bin"

# Debian package -> licence of its card art (from each package's copyright file).
LICENCES = {
    "gnome-cards-data": "GPL-2+ (aisleriot card themes)",
    "kdegames-card-data-kf5": "GPL-2+ (LGPL-2+ tigullio-international, GPL-3+ with Tux notice "
    "penguins, MIT-like konqi-modern)",
    "mate-backgrounds": "GPL-2+ / CC-BY-SA (see the package's copyright file)",
}

# Decks left out: not French-suited, not a full 52-card pack, or a duplicate under a Russian
# name. Checked by eye on the rendered faces.
SKIP_DECKS = {
    "kde-xskat-german": "German suits",
    "gnome-swiss-xvii": "Swiss suits",
    "gnome-tarocco": "tarot pack",
    "gnome-atlasnye_skat": "32-card skat pack",
    "gnome-Атласные": "duplicate of atlasnye",
}

# Table photos (from mate-backgrounds) that look like something a card may lie on.
BACKGROUND_PHOTOS = (
    "usr/share/backgrounds/mate/nature/Wood.jpg",
    "usr/share/backgrounds/mate/nature/Dune.jpg",
    "usr/share/backgrounds/mate/nature/Blinds.jpg",
    "usr/share/backgrounds/mate/nature/RainDrops.jpg",
    "usr/share/backgrounds/mate/nature/Storm.jpg",
    "usr/share/backgrounds/mate/nature/GreenMeadow.jpg",
    "usr/share/backgrounds/mate/abstract/Silk.png",
    "usr/share/backgrounds/mate/desktop/GreenTraditional.jpg",
)
BACKGROUND_MAX = 1920


def cache_dir() -> Path:
    """Where the generator reads faces and photos (``CARDREF_ART`` overrides)."""
    env = os.environ.get("CARDREF_ART")
    return Path(env) if env else project_root() / ".cache" / "cardart"


def source_dir() -> Path:
    """Downloaded packages and extracted SVGs (only the set-up step needs them)."""
    return project_root() / ".cache" / "cardart-src"


@dataclass(frozen=True)
class DeckSource:
    name: str  # gnome-paris, kde-oxygen, ...
    package: str
    svgz: str  # path inside the extracted package tree
    scheme: str  # "gnome" or "kde" element naming


def _gnome_id(cls: str) -> list[tuple[str, str]]:
    """(variant, element id) candidates of a class in aisleriot themes."""
    if cls == "JK":
        return [("red", "joker_red"), ("black", "joker_black")]
    if cls == "BACK":
        return [("", "back"), ("alt", "back_alternative")]
    rank, suit = cls[:-1], cls[-1]
    word = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}.get(rank, rank)
    sname = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}[suit]
    return [("", f"{sname}_{word}")]


def _kde_id(cls: str) -> list[tuple[str, str]]:
    """(variant, element id) candidates of a class in KDE carddecks."""
    if cls == "JK":
        return [("", "joker"), ("red", "red_joker"), ("black", "black_joker")]
    if cls == "BACK":
        return [("", "back"), ("blue", "blue_back"), ("green", "green_back"), ("red", "red_back")]
    rank, suit = cls[:-1], cls[-1]
    word = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}.get(rank, rank)
    sname = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}[suit]
    return [("", f"{word}_{sname}")]


def discover_decks(root: Path) -> list[DeckSource]:
    """Every deck in the extracted packages, skipped ones excluded."""
    decks: list[DeckSource] = []
    for f in sorted((root / "usr/share/aisleriot/cards").glob("*.svgz")):
        decks.append(DeckSource(f"gnome-{f.stem}", "gnome-cards-data", str(f.relative_to(root)), "gnome"))
    for f in sorted((root / "usr/share/carddecks").glob("svg-*/*.svgz")):
        name = "kde-" + f.parent.name[len("svg-") :]
        decks.append(DeckSource(name, "kdegames-card-data-kf5", str(f.relative_to(root)), "kde"))
    return [d for d in decks if d.name not in SKIP_DECKS]


def check_face(img: Image.Image) -> str | None:
    """Why a rendered face is unusable, or None when it looks like a whole card."""
    w, h = img.size
    if w == 0 or h == 0:
        return "empty image"
    aspect = h / w
    if not ASPECT_RANGE[0] <= aspect <= ASPECT_RANGE[1]:
        return f"aspect {aspect:.2f} outside {ASPECT_RANGE}"
    a = np.asarray(img.convert("RGBA"))
    body = a[h // 8 : h - h // 8, w // 8 : w - w // 8]
    if (body[..., 3] > 250).mean() < 0.98:
        return "body not opaque"
    rgb = body[..., :3].astype(np.float32)
    if rgb.std() < 4.0:
        return "blank face"
    # The border rows must be mostly covered: a face that renders as a sliver is not a card.
    if (a[h // 2, :, 3] > 128).mean() < 0.9 or (a[:, w // 2, 3] > 128).mean() < 0.9:
        return "card does not fill its box"
    return None


def _rsvg(svg: Path, out_png: Path, height: int, element: str | None = None) -> Image.Image | None:
    """Render the whole document or one element at ``height`` px; None when it fails."""
    cmd = ["rsvg-convert", "-h", str(height), str(svg), "-o", str(out_png)]
    if element:
        cmd.insert(1, f"--export-id={element}")
    proc = subprocess.run(cmd, capture_output=True, check=False)
    if proc.returncode != 0 or not out_png.exists():
        return None
    img = Image.open(out_png).convert("RGBA")
    out_png.unlink()
    return img


def crop_to_card(img: Image.Image) -> Image.Image | None:
    """Trim transparent margins and soft shadows: keep the rows and columns that are mostly
    opaque (an element's box can include filter regions wider than the card)."""
    a = np.asarray(img)[..., 3] > 200
    if not a.any():
        return None
    rows = np.flatnonzero(a.mean(axis=1) > 0.3)
    cols = np.flatnonzero(a.mean(axis=0) > 0.3)
    if len(rows) < 8 or len(cols) < 8:
        return None
    # Include the anti-aliased rim around the opaque body.
    a2 = np.asarray(img)[..., 3] > 8
    y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    while y0 > 0 and a2[y0 - 1, x0:x1].mean() > 0.3:
        y0 -= 1
    while y1 < a2.shape[0] and a2[y1, x0:x1].mean() > 0.3:
        y1 += 1
    while x0 > 0 and a2[y0:y1, x0 - 1].mean() > 0.3:
        x0 -= 1
    while x1 < a2.shape[1] and a2[y0:y1, x1].mean() > 0.3:
        x1 += 1
    return img.crop((int(x0), int(y0), int(x1), int(y1)))


def _to_face_height(img: Image.Image) -> Image.Image:
    w = max(1, round(img.width * FACE_HEIGHT / img.height))
    return img.resize((w, FACE_HEIGHT), Image.LANCZOS)


def render_element(svg: Path, element: str, tmp: Path) -> Image.Image | None:
    """One card from its element id, cropped to the card and scaled to FACE_HEIGHT."""
    png = tmp / f"{svg.stem}-{element}.png"
    height = FACE_HEIGHT
    for _ in range(2):
        img = _rsvg(svg, png, height, element)
        card = crop_to_card(img) if img is not None else None
        if card is None:
            return None
        if card.height >= FACE_HEIGHT * 0.97 or height >= 4000:
            return _to_face_height(card)
        height = min(4000, int(height * FACE_HEIGHT / card.height) + 8)
    return _to_face_height(card)


GNOME_ROWS = ("C", "D", "H", "S")  # aisleriot themes: a 13 x 5 grid, A..K in each suit row
GNOME_LAST_ROW = {"joker_black": 0, "joker_red": 1, "back": 2}  # fifth row of the grid


def render_gnome_grid(svg: Path, tmp: Path) -> dict[str, Image.Image]:
    """The 52 faces of an aisleriot theme cut from its 13 x 5 grid (the element boxes of some
    themes are not the card's)."""
    full = _rsvg(svg, tmp / f"{svg.stem}-grid.png", FACE_HEIGHT * 5 + 40)
    if full is None:
        return {}
    cw, ch = full.width / 13, full.height / 5
    faces: dict[str, Image.Image] = {}
    for r, suit in enumerate(GNOME_ROWS):
        for c, rank in enumerate(RANKS):
            cell = full.crop((round(c * cw), round(r * ch), round((c + 1) * cw), round((r + 1) * ch)))
            card = crop_to_card(cell)
            if card is not None:
                faces[f"{rank}{suit}"] = _to_face_height(card)
    for element, c in GNOME_LAST_ROW.items():
        cell = full.crop((round(c * cw), round(4 * ch), round((c + 1) * cw), full.height))
        card = crop_to_card(cell)
        if card is not None:
            faces[element] = _to_face_height(card)
    return faces


def render_deck(deck: DeckSource, root: Path, out: Path, tmp: Path) -> dict[str, list[str]]:
    """Render, check and store one deck's faces; returns class -> list of face files."""
    svg = tmp / f"{deck.name}.svg"
    with gzip.open(root / deck.svgz, "rb") as src, svg.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    text = svg.read_text(encoding="utf-8", errors="replace")
    ids = _gnome_id if deck.scheme == "gnome" else _kde_id
    grid = render_gnome_grid(svg, tmp) if deck.scheme == "gnome" else {}
    faces: dict[str, list[str]] = {}
    (out / deck.name).mkdir(parents=True, exist_ok=True)
    for cls in CLASSES:
        for variant, element in ids(cls):
            img = grid.get(cls) if not variant and cls in grid else None
            if img is None:
                if f'id="{element}"' not in text:
                    continue
                img = render_element(svg, element, tmp)
            if (img is None or check_face(img) is not None) and element in grid:
                img = grid[element]
            if img is None or check_face(img) is not None:
                continue
            stem = cls + (f"_{variant}" if variant else "")
            rel = f"{deck.name}/{stem}.webp"
            img.save(out / rel, "WEBP", quality=88, method=4)
            faces.setdefault(cls, []).append(rel)
    svg.unlink()
    return faces


def _run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def fetch_packages(packages: tuple[str, ...], dest: Path) -> list[Path]:
    """``apt-get download`` each package into ``dest`` (cached); runs ``apt-get update`` once
    when the package lists are missing."""
    dest.mkdir(parents=True, exist_ok=True)
    debs: list[Path] = []
    updated = False
    for pkg in packages:
        found = sorted(dest.glob(f"{pkg}_*.deb"))
        if not found:
            proc = _run(["apt-get", "download", pkg], cwd=dest)
            if proc.returncode != 0 and not updated:
                _run(["apt-get", "update"])
                updated = True
                proc = _run(["apt-get", "download", pkg], cwd=dest)
            found = sorted(dest.glob(f"{pkg}_*.deb"))
            if proc.returncode != 0 or not found:
                raise CardrefError(f"apt-get download {pkg} failed: {proc.stderr.strip()[-300:]}")
        debs.append(found[-1])
    return debs


def ensure_rsvg() -> None:
    if shutil.which("rsvg-convert"):
        return
    print(f"art: installing {RSVG_PACKAGE} (rsvg-convert) with apt-get", file=sys.stderr)
    proc = _run(["apt-get", "install", "-y", "--no-install-recommends", RSVG_PACKAGE])
    if proc.returncode != 0:
        _run(["apt-get", "update"])
        proc = _run(["apt-get", "install", "-y", "--no-install-recommends", RSVG_PACKAGE])
    if proc.returncode != 0 or not shutil.which("rsvg-convert"):
        raise CardrefError(
            f"cannot install {RSVG_PACKAGE} (needed once to render the card SVGs): "
            f"{proc.stderr.strip()[-300:]}"
        )


def extract(debs: list[Path], root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        stamp = root / f".{deb.name}.done"
        if stamp.exists():
            continue
        proc = _run(["dpkg-deb", "-x", str(deb), str(root)])
        if proc.returncode != 0:
            raise CardrefError(f"dpkg-deb -x {deb} failed: {proc.stderr.strip()[-300:]}")
        stamp.touch()


def prepare_backgrounds(root: Path, out: Path) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    for rel in BACKGROUND_PHOTOS:
        src = root / rel
        if not src.exists():
            continue
        img = Image.open(src).convert("RGB")
        img.thumbnail((BACKGROUND_MAX, BACKGROUND_MAX), Image.LANCZOS)
        name = Path(rel).stem + ".jpg"
        img.save(out / name, "JPEG", quality=88)
        names.append(f"backgrounds/{name}")
    return names


def build(force: bool = False, jobs: int | None = None) -> Path:
    """Make the cache if it is missing; returns the manifest path."""
    out = cache_dir()
    manifest = out / "manifest.json"
    if manifest.exists() and not force:
        try:
            if json.loads(manifest.read_text()).get("version") == MANIFEST_VERSION:
                print(f"art: {manifest} is up to date", file=sys.stderr)
                return manifest
        except (OSError, json.JSONDecodeError):
            pass
    src = source_dir()
    root = src / "root"
    print("art: fetching card and background packages with apt-get download", file=sys.stderr)
    debs = fetch_packages(CARD_PACKAGES + BACKGROUND_PACKAGES, src / "debs")
    extract(debs, root)
    ensure_rsvg()
    if out.exists():
        shutil.rmtree(out)
    (out / "faces").mkdir(parents=True)
    decks = discover_decks(root)
    result: dict[str, dict] = {}
    jobs = jobs or os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmpd, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(render_deck, d, root, out / "faces", Path(tmpd)): d for d in decks}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            d = futures[fut]
            faces = fut.result()
            result[d.name] = {"package": d.package, "faces": faces}
            print(
                f"art: [{n}/{len(decks)}] {d.name}: {len(faces)} of {len(CLASSES)} classes", file=sys.stderr
            )
    backgrounds = prepare_backgrounds(root, out / "backgrounds")
    data = {
        "version": MANIFEST_VERSION,
        "face_height": FACE_HEIGHT,
        "licences": LICENCES,
        "skipped": SKIP_DECKS,
        "decks": {k: result[k] for k in sorted(result)},
        "backgrounds": backgrounds,
    }
    tmp = manifest.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(manifest)
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"art: wrote {manifest} ({len(result)} decks, {total / 1e6:.1f} MB)", file=sys.stderr)
    return manifest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.synth.art", description=__doc__.splitlines()[0])
    p.add_argument("--force", action="store_true", help="render again even if the cache is up to date")
    p.add_argument("--jobs", type=int, default=None, help="parallel rsvg-convert calls (default: cores)")
    args = p.parse_args(argv)
    try:
        build(args.force, args.jobs)
    except CardrefError as e:
        print(f"art: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fonts for the corner-index generator: many typefaces from Debian's font packages.

A deck prints its corner index in some typeface; a reader that has seen a few hundred faces of
"Q", "10" and "K" reads a deck it has never met. ``python -m vision.synth.fonts`` fetches the
packages below with ``apt-get download`` (no system-wide install) into ``.cache/fonts`` once;
the generator then needs only that folder. Without it the generator falls back to the fonts
installed on the machine (DejaVu on Debian), which is enough for the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.paths import project_root
from vision.synth.art import extract, fetch_packages

# Serif, sans, slab, condensed and display faces: the range card makers print indices in.
FONT_PACKAGES = (
    "fonts-urw-base35",  # Times, Helvetica, Century Schoolbook, Palatino, Bookman, Avant Garde
    "fonts-texgyre",  # the same families redrawn, with bold and condensed cuts
    "fonts-liberation2",
    "fonts-freefont-ttf",
    "fonts-dejavu-core",
    "fonts-crosextra-carlito",
    "fonts-crosextra-caladea",
    "fonts-linuxlibertine",
    "fonts-ebgaramond",
    "fonts-open-sans",
    "fonts-lato",
    "fonts-cantarell",
    "fonts-roboto-unhinted",
    "fonts-noto-core",
)
SYSTEM_FONTS = Path("/usr/share/fonts")
# Faces that cannot draw a rank (symbols, dingbats, mathematics) or draw it illegibly.
SKIP_WORDS = ("symbol", "dingbat", "math", "music", "emoji", "d050000l", "z003")


def fonts_dir() -> Path:
    return project_root() / ".cache" / "fonts"


def _usable(path: Path) -> bool:
    name = path.name.lower()
    return path.suffix.lower() in (".ttf", ".otf") and not any(w in name for w in SKIP_WORDS)


def font_files(root: Path | None = None) -> list[Path]:
    """Every usable font file under the cache (or, when it is empty, the system's fonts)."""
    for base in ([root] if root else [fonts_dir(), SYSTEM_FONTS]):
        found = sorted(p for p in base.rglob("*") if p.is_file() and _usable(p)) if base.is_dir() else []
        if found:
            return found
    return []


def build() -> Path:
    out = fonts_dir()
    debs = fetch_packages(FONT_PACKAGES, out / "debs")
    extract(debs, out / "root")
    return out


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m vision.synth.fonts", description=__doc__).parse_args(argv)
    out = build()
    print(f"fonts: {len(font_files(out / 'root'))} font files in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Frames of a camera that mirrors the table, turned back before they are kept.

A webcam's selfie view shows every card's index mirrored, which no deck prints: kept so, the
frames would teach the detector cards that do not exist, and it pre-labels them worse. The
mat's markers tell: they read only in the picture turned back (as ``cardref live`` finds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import cv2

from vision.calibration import mirrors
from vision.layout import Layout
from vision.sources import Frame, Lost

CHECK_EVERY_S = 1.0  # until the mat is seen: a marker search costs a few ms a frame


def turned_back(
    source: Iterable[Frame | Lost], layout: Layout, told: Callable[[str], None]
) -> Iterator[Frame | Lost]:
    """The items of ``source``, each frame turned back once the mat's markers say the camera
    mirrors it (looked for about once a second until the mat is first seen either way)."""
    mirrored: bool | None = None
    looked = float("-inf")
    for item in source:
        if isinstance(item, Frame):
            if mirrored is None and item.time - looked >= CHECK_EVERY_S:
                looked = item.time
                mirrored = mirrors(item.image, layout)
                if mirrored:
                    told(f"frame {item.index}: the camera mirrors the table; every frame is turned back")
            if mirrored:
                item.image = cv2.flip(item.image, 1)
        yield item

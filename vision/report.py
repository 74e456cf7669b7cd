"""Replay outputs: subtitles of the announcements and a self-contained HTML report.

The report is one file (thumbnails inlined as JPEG data URIs) so it can be mailed or opened
anywhere: a timeline of observations and announcements, the moments worth a second look
(desyncs, rejects, questions, reads the vote was unsure of) flagged in colour.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import cv2
import numpy as np

from referee import files

SRT_SECONDS = 3.0


def srt_time(t: float) -> str:
    ms = int(round(t * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def write_srt(path: Path, items: list[tuple[float, str]]) -> None:
    """Each announcement shown for a few seconds, or until the next one."""
    blocks = []
    for i, (t, text) in enumerate(items):
        end = min(t + SRT_SECONDS, items[i + 1][0]) if i + 1 < len(items) else t + SRT_SECONDS
        end = max(end, t + 0.5)
        blocks.append(f"{i + 1}\n{srt_time(t)} --> {srt_time(end)}\n{text}\n")
    files.write_text(path, "\n".join(blocks))


def thumbnail(image: np.ndarray, width: int = 240) -> str:
    h, w = image.shape[:2]
    small = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    ok, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return "data:image/jpeg;base64," + base64.b64encode(jpg.tobytes()).decode() if ok else ""


FLAGGED = {"desync", "drift", "lost"}
FLAGGED_ANNOUNCEMENTS = {"REJECT", "ASK"}


def write_report(path: Path, title: str, summary: dict, rows: list[dict]) -> None:
    """``rows``: dicts with time, kind, text, optional thumb (data URI) and flag (bool)."""
    out = [
        f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title>",
        "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}"
        "td{border-bottom:1px solid #ddd;padding:4px 8px;vertical-align:top}"
        ".flag{background:#fde2e2}.kind{font-weight:bold;white-space:nowrap}img{display:block}</style>",
        f"<h1>{html.escape(title)}</h1>",
        "<pre>" + html.escape(json.dumps(summary, indent=1)) + "</pre>",
        "<table><tr><th>time</th><th>what</th><th>text</th><th>frame</th></tr>",
    ]
    for r in rows:
        cls = " class='flag'" if r.get("flag") else ""
        img = f"<img src='{r['thumb']}' width=240>" if r.get("thumb") else ""
        out.append(
            f"<tr{cls}><td>{r['time']:.1f} s</td><td class='kind'>{html.escape(r['kind'])}</td>"
            f"<td>{html.escape(r['text'])}</td><td>{img}</td></tr>"
        )
    out.append("</table>")
    files.write_text(path, "\n".join(out))

"""Replay outputs for players: subtitles of the announcements and ``report.html``.

The report is one file (frames inlined as JPEG, the plot as SVG; only the annotated video sits
beside it) so it can be mailed or opened anywhere. It tells how the game went: the result in
words, each side's damage or score over time, the rounds and turns as sections, every
observation with its frame (the moved card marked, a zoom on it) and a click that plays the
annotated video from that moment, the name checks with the other likely names, the final table.
"""

from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee import files

LAST_SUBTITLE_S = 5.0  # the last announcement, when the video's end is not known


def srt_time(t: float) -> str:
    ms = int(round(t * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def write_srt(path: Path, items: list[tuple[float, str]], end: float | None = None) -> None:
    """Each announcement shown until the next one (several at one moment share it, one line
    each); the last until ``end`` (the video's), or a few seconds."""
    moments: list[tuple[float, list[str]]] = []
    for t, text in items:
        if moments and abs(moments[-1][0] - t) < 1e-6:
            moments[-1][1].append(text)
        else:
            moments.append((t, [text]))
    blocks = []
    for i, (t, texts) in enumerate(moments):
        last = end if end is not None and end > t else t + LAST_SUBTITLE_S
        stop = moments[i + 1][0] if i + 1 < len(moments) else last
        blocks.append(f"{i + 1}\n{srt_time(t)} --> {srt_time(stop)}\n" + "\n".join(texts) + "\n")
    files.write_text(path, "\n".join(blocks))


def jpeg_uri(image: np.ndarray, width: int, quality: int = 75) -> str:
    h, w = image.shape[:2]
    if w != width:
        image = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return "data:image/jpeg;base64," + base64.b64encode(jpg.tobytes()).decode() if ok else ""


FLAGGED = {"desync", "drift", "lost"}
FLAGGED_ANNOUNCEMENTS = {"REJECT", "ASK"}


@dataclass
class Moment:
    """One line of the report: an observation, announcement or camera event."""

    time: float
    frame: int
    kind: str
    text: str
    flag: bool = False
    section: str = ""  # the round (or the game's equivalent) it happened in
    turn: str = ""  # whose turn it was
    picture: str = ""  # the frame, the moved card marked (data URI)
    zoom: str = ""  # a close view of that card (data URI)
    names: list[tuple[str, float]] = field(default_factory=list)  # likely names, for a check


@dataclass
class Report:
    title: str
    result: str  # in words
    facts: dict[str, Any]  # summary.json
    moments: list[Moment]
    series: list[tuple[float, dict[str, float]]]  # (time, figure -> value) after each change
    final: dict[str, Any]  # referee.summary.Summary.to_json() at the end
    video: str | None  # the annotated video's file name, beside the report


def plot_svg(series: list[tuple[float, dict[str, float]]], end: float) -> str:
    """Each figure over the game as steps, drawn by Matplotlib (no display, no network)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(k for _, values in series for k in values))
    if not names:
        return ""
    fig = Figure(figsize=(8, 3))
    ax = fig.add_subplot()
    for name in names:
        points = [(t, v[name]) for t, v in series if name in v]
        ts = [t for t, _ in points] + [max(end, points[-1][0])]
        vs = [v for _, v in points] + [points[-1][1]]
        ax.step(ts, vs, where="post", label=name, linewidth=2)
    ax.set_xlabel("seconds into the video")
    ax.set_ylabel(" / ".join(sorted({n.rsplit(" ", 1)[-1] for n in names})))
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small", ncols=min(4, len(names)))
    fig.tight_layout()
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text stays text: searchable, small
        fig.savefig(buf, format="svg")
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]  # inline: no XML prologue


STYLE = """
body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{padding:1em 2em;background:#1c2a1c;color:#eee}
header h1{margin:0;font-size:1.3em}.result{font-size:2em;font-weight:bold;margin:.2em 0}
.facts{color:#cdc;margin:0}
.page{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,40%);gap:1.5em;padding:1em 2em}
.side{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto}
video{width:100%;background:#000}
h2{border-bottom:2px solid #9c9;margin-top:1.5em}h3{color:#575;margin:1em 0 .3em}
.moment{display:grid;grid-template-columns:5em 7em 1fr;gap:.2em 1em;padding:.4em;border-bottom:1px solid #ddd}
.moment.video{cursor:pointer}.moment.video:hover{background:#eef6ee}
.moment .t{font-variant-numeric:tabular-nums;color:#555}.moment .k{font-weight:bold}
.flag{background:#fde2e2}.moment.flag.video:hover{background:#f8caca}
.frames{grid-column:1/-1;display:flex;gap:.5em;align-items:flex-start;flex-wrap:wrap}
.frames img{border:1px solid #999}.frames img.frame{width:64%}.frames img.zoom{width:32%}
.names{grid-column:3}.names span{font-weight:bold}
.zones div{margin:.1em 0}.card{font-weight:bold;border:1px solid #999;border-radius:3px;padding:0 .2em}
.card.red{color:#c00}.sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(12em,1fr));gap:.8em}
.sides>div{border:1px solid #ccc;border-radius:6px;padding:.4em .8em}
"""

SCRIPT = """
const video = document.getElementById('video');
for (const row of document.querySelectorAll('.moment[data-t]')) {
  row.addEventListener('click', (e) => {
    if (!video || e.target.closest('a')) return;
    video.currentTime = parseFloat(row.dataset.t);
    video.play().catch(() => {});
    document.getElementById('now').textContent = row.querySelector('.x').textContent;
  });
}
"""


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _cards(cards: list[str]) -> str:
    return " ".join(
        f"<span class='card{' red' if c[-1:] in 'HD' and c != 'JK' else ''}'>{_esc(c)}</span>" for c in cards
    )


def _zone(z: dict) -> str:
    shown = _cards(z["cards"]) if z["cards"] else f"{z['count']} card{'s' if z['count'] != 1 else ''}"
    return f"<div data-zone='{_esc(z['zone'])}'>{_esc(z['label'].replace('_', ' '))}: {shown}</div>"


def final_table(final: dict[str, Any]) -> str:
    out = ["<div class='sides'>"]
    for side in final["sides"]:
        numbers = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in side["numbers"].items())
        damage = f"<b>damage {side['damage']}</b><br>" if side.get("damage") is not None else ""
        zones = "".join(_zone(z) for z in side["zones"] if z["count"])
        out.append(f"<div class='zones' data-side='{_esc(side['name'])}'><h3>{_esc(side['name'])}</h3>"
                   f"{damage}<small>{_esc(numbers)}</small>{zones}</div>")
    out.append("</div><h3>Table</h3><div class='zones'>")
    out += [_zone(z) for z in final["table"] if z["count"]]
    numbers = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in final["numbers"].items())
    out.append(f"</div><p>{_esc(numbers)}</p>")
    return "".join(out)


def _moment(m: Moment, video: str | None) -> str:
    cls = "moment" + (" flag" if m.flag else "") + (" video" if video else "")
    when = f"{m.time:.1f} s"
    link = f"<a href='{_esc(video)}#t={m.time:.2f}' target='_blank'>{when}</a>" if video else when
    out = [f"<div class='{cls}' data-t='{m.time:.2f}' data-kind='{_esc(m.kind)}'>",
           f"<span class='t'>{link}</span><span class='k'>{_esc(m.kind)}</span>",
           f"<span class='x'>{_esc(m.text)}</span>"]
    if m.names:
        names = ", ".join(f"<span>{_esc(n)} {p:.2f}</span>" for n, p in m.names)
        out.append(f"<div class='names'>likely names: {names}</div>")
    if m.picture:
        zoom = f"<img class='zoom' src='{m.zoom}' alt='the moved card, close'>" if m.zoom else ""
        frame = f"<img class='frame' src='{m.picture}' alt='frame {m.frame}'>"
        out.append(f"<div class='frames'>{frame}{zoom}</div>")
    out.append("</div>")
    return "".join(out)


def write_report(path: Path, report: Report) -> None:
    facts = report.facts
    bits = [f"{facts.get('observations', 0)} observations", f"{facts.get('announcements', 0)} announcements"]
    for key, one, many in (("rejects", "observation rejected", "observations rejected"),
                           ("desyncs", "desync", "desyncs"), ("unsure_names", "name unsure", "names unsure"),
                           ("named_by_rules", "name chosen by the rules", "names chosen by the rules"),
                           ("renamed", "card renamed", "cards renamed")):
        if facts.get(key):
            bits.append(f"{facts[key]} {one if facts[key] == 1 else many}")
    if facts.get("pending_question"):
        bits.append(f"waiting for an answer: {facts['pending_question']}")
    end = float(facts.get("video_seconds") or (report.moments[-1].time if report.moments else 0.0))
    svg = plot_svg(report.series, end)
    out = [
        f"<!doctype html><html lang='en'><meta charset='utf-8'><title>{_esc(report.title)}</title>",
        f"<style>{STYLE}</style><header><h1>{_esc(report.title)}</h1>",
        f"<div class='result' id='result'>{_esc(report.result[:1].upper() + report.result[1:])}</div>",
        f"<p class='facts'>{_esc(' · '.join(bits))}</p></header><div class='page'><main>",
    ]
    if svg:
        out.append(f"<h2>Over the game</h2><figure id='plot'>{svg}</figure>")
    section = turn = None
    for m in report.moments:
        if m.section != section:
            section, turn = m.section, None
            out.append(f"<h2>{_esc(m.section[:1].upper() + m.section[1:])}</h2>")
        if m.turn != turn:
            turn = m.turn
            if turn:
                out.append(f"<h3>{_esc(turn)}'s turn</h3>")
        out.append(_moment(m, report.video))
    out.append(f"<h2 id='final'>Final table</h2>{final_table(report.final)}")
    out.append("<details><summary>all the figures (summary.json)</summary><pre>"
               + _esc(json.dumps(facts, indent=1)) + "</pre></details></main><aside class='side'>")
    if report.video:
        out.append(f"<video id='video' src='{_esc(report.video)}' controls muted preload='metadata'></video>"
                   "<p id='now'>click a line to see that moment</p>")
    else:
        out.append("<p>No annotated video (replayed with --no-video).</p>")
    out.append(f"</aside></div><script>{SCRIPT}</script></html>")
    files.write_text(path, "\n".join(out))

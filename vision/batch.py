"""``cardref replay`` of many videos at once: one task per video on local processes or a Dask
cluster (:mod:`referee.executors`), one output folder per video, then ``games.csv`` and
``index.html`` summing every game up.

Each task is the single-video replay itself (:func:`vision.commands.replay.run`) with the
video's own output folder, so a game replayed in a batch gives the files it gives alone. A
video that fails is a row with its error; the others finish.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import glob
import html
import io
import os
from dataclasses import dataclass
from pathlib import Path

from referee import files
from referee.errors import CardrefError
from referee.executors import completed, executor, workers_from_args
from vision.progress import progress, say
from vision.sources import VIDEO_SUFFIXES

PER_VIDEO = ("answers", "detections", "players")  # options naming one file or folder per video
COLUMNS = ("folder", "game", "video", "seconds", "result", "observations", "desyncs", "checks",
           "unreadable_frames", "error")


def is_batch(paths: list[str]) -> bool:
    """Several videos, a folder or a glob; a single video file is today's one replay."""
    return len(paths) > 1 or any(Path(p).is_dir() or glob.has_magic(p) for p in paths)


def find_videos(paths: list[str], out: Path) -> list[Path]:
    """The videos that ``paths`` name, in order: files as given, a folder's videos (its
    sub-folders' too, none under ``out``), a glob's matches. A path that is not there stays,
    to fail as its own row."""
    found: list[Path] = []
    out = out.resolve()
    for p in paths:
        path = Path(p)
        if path.is_dir():
            inside = sorted(f for f in path.rglob("*") if f.suffix.lower() in VIDEO_SUFFIXES and f.is_file())
            inside = [f for f in inside if not f.resolve().is_relative_to(out)]
            if not inside:
                raise CardrefError(f"{p}: no videos in this folder (expected {', '.join(VIDEO_SUFFIXES)})")
            found += inside
        elif glob.has_magic(p) and not path.exists():
            matches = sorted(Path(m) for m in glob.glob(p, recursive=True) if Path(m).is_file())
            if not matches:
                raise CardrefError(f"{p}: no video matches this pattern")
            found += matches
        else:
            found.append(path)
    unique: dict[Path, Path] = {}
    for f in found:
        unique.setdefault(f.resolve(), f)
    return list(unique.values())


def folder_names(videos: list[Path]) -> list[str]:
    """One output folder name per video: its name without the suffix, or, where names repeat
    (rendered games are all ``video.mp4``), its folder's name."""
    stems = [v.stem for v in videos]
    names = [v.stem if stems.count(v.stem) == 1 else v.resolve().parent.name or v.stem for v in videos]
    seen: dict[str, int] = {}
    unique = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        unique.append(n if seen[n] == 1 else f"{n}_{seen[n]}")
    return unique


def per_video(value: str | os.PathLike | None, video: Path) -> Path | None:
    """An option's path for one video: ``{dir}`` is the video's folder, ``{stem}`` its name."""
    if value is None:
        return None
    text = str(value)
    return Path(text.replace("{dir}", str(video.resolve().parent)).replace("{stem}", video.stem))


def check_per_video_options(args: argparse.Namespace) -> None:
    for name in PER_VIDEO:
        value = getattr(args, name)
        if value is not None and "{dir}" not in str(value) and "{stem}" not in str(value):
            raise CardrefError(
                f"--{name} {value}: with several videos, name each video's own with {{dir}} (its folder) "
                f"or {{stem}} (its name), e.g. --{name} '{{dir}}/...'"
            )


@dataclass(frozen=True)
class Outcome:
    """How one video's replay went: ``error`` is None when it finished."""

    video: str
    out: str
    error: str | None = None


def replay_task(args: argparse.Namespace, video: str, out: str) -> Outcome:
    """One video's replay, as ``cardref replay VIDEO --out OUT`` would run it (on a worker)."""
    from vision.commands.replay import run

    one = argparse.Namespace(**{**vars(args), "video": [video], "out": Path(out), "quiet": True,
                                "workers": None, "cluster": None})
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # its closing line is the batch's to say
            run(one)
    except CardrefError as e:
        return Outcome(video, out, " ".join(str(e).split()))
    except OSError as e:
        return Outcome(video, out, f"{e.filename or video}: {e.strerror or e}")
    except Exception as e:  # a bug in one game must not stop the others: its row says what
        return Outcome(video, out, f"{type(e).__name__}: {e}")
    return Outcome(video, out)


def game_row(outcome: Outcome, folder: str) -> dict:
    """One line of games.csv, from the replay's summary.json and events.jsonl."""
    row = dict.fromkeys(COLUMNS, "")
    row.update(folder=folder, video=outcome.video, error=outcome.error or "")
    if outcome.error:
        return row
    out = Path(outcome.out)
    summary = files.read_json_object(out / "summary.json", "replay summary")
    events = [e for _, e in files.read_jsonl(out / "events.jsonl", "replay events")]
    row.update(
        game=summary.get("game", ""),
        seconds=summary.get("video_seconds", ""),
        result=summary.get("result") or "",
        observations=summary.get("observations", ""),
        desyncs=summary.get("desyncs", ""),
        # The [CHECK]s: moves whose card the camera named unsurely, with its other likely names.
        checks=sum(1 for e in events if e.get("kind") == "observation" and e.get("data", {}).get("others")),
        unreadable_frames=summary.get("unreadable_frames", ""),
    )
    return row


def write_index(out: Path, rows: list[dict]) -> None:
    table = io.StringIO()
    writer = csv.DictWriter(table, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    files.write_text(out / "games.csv", table.getvalue())
    failed = sum(1 for r in rows if r["error"])
    page = [
        "<!doctype html><meta charset='utf-8'><title>cardref replay: games</title>",
        "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{"
        "border-bottom:1px solid #ddd;padding:4px 8px;text-align:left}.flag{background:#fde2e2}</style>",
        f"<h1>{len(rows)} games replayed, {failed} failed</h1>",
        "<p>The same table as <a href='games.csv'>games.csv</a>; each game's report is linked.</p>",
        "<table><tr>" + "".join(f"<th>{c}</th>" for c in COLUMNS) + "</tr>",
    ]
    for r in rows:
        cells = []
        for c in COLUMNS:
            text = html.escape(str(r[c]))
            if c == "folder" and not r["error"]:
                text = f"<a href='{html.escape(r[c])}/report.html'>{text}</a>"
            cells.append(f"<td>{text}</td>")
        page.append(f"<tr{' class=flag' if r['error'] else ''}>{''.join(cells)}</tr>")
    page.append("</table>")
    files.write_text(out / "index.html", "\n".join(page) + "\n")


def replay_many(args: argparse.Namespace) -> int:
    """Replay every video ``args.video`` names; 1 when any failed, else 0."""
    out: Path = args.out
    videos = find_videos(args.video, out)
    if len(videos) > 1:
        check_per_video_options(args)
    workers = workers_from_args(args)
    if not workers.cluster:
        workers = type(workers)(processes=min(workers.processes, len(videos)))
        if args.threads is None and args.detections is None:
            # The detector's threads share the cores with the other processes' detectors.
            args.threads = max(1, (os.cpu_count() or 1) // workers.processes)
    files.ensure_dir(out, "replay")
    names = folder_names(videos)
    outcomes: dict[str, Outcome] = {}
    if not args.quiet:
        say(f"replaying {len(videos)} videos on {workers.describe()} into {out}/")
    with executor(workers) as pool:
        bar = progress(len(videos), "replay", "video", enabled=not args.quiet)
        # Paths are absolute: a cluster's workers do not share this process's folder.
        tasks = [(n, replay_task, (args, str(v.resolve()), str((out / n).resolve())))
                 for v, n in zip(videos, names, strict=True)]
        for name, future in completed(pool, tasks):
            try:
                outcome = future.result()
            except Exception as e:  # the worker itself died (killed, out of memory)
                outcome = Outcome(str(videos[names.index(name)]), str(out / name), f"worker lost: {e!r}")
            outcomes[name] = outcome
            if outcome.error:
                say(f"{name}: error: {outcome.error}")
            elif not args.quiet:
                say(f"{name}: done")
            bar.update()
    bar.close()
    rows = [game_row(outcomes[n], n) for n in names]
    write_index(out, rows)
    failed = sum(1 for r in rows if r["error"])
    print(f"{len(rows) - failed} of {len(rows)} games replayed; games.csv and index: {out / 'index.html'}")
    return 1 if failed else 0

"""Camera referee speed and accuracy on rendered Royal Family games (720p, 30 fps).

For each seed: render the game with held-out decks (``cardref render-game``), then replay it
(a) with the renderer's labels standing in for the detector, (b) through the shipped
detector, with and without the annotated video, and (c) through it with the players answering
the camera's name checks (``--players``: what players pressing the [CHECK] keys of
``cardref live`` would do). Reports, side by side: speed as a multiple of
real time, the share of true observations recovered in order, wrong damage/result
announcements, and the announcement latency after the table settles (video seconds from the
first settled frame of a move to the announcement it caused, plus the processing time); then,
per variant, the observations recovered over all games and over each deck's games.

    python bench/replay.py --seeds 101 102 --moves 30 [--json bench/replay.json]

``--baseline REV`` adds the detector of an earlier git revision (its ``models/`` taken from
git, run on ONNX Runtime as it was then, or on OpenVINO with ``--baseline-backend openvino``),
camera alone and with the players answering, beside today's; ``--only-models`` leaves out the
renderer's labels and the annotated video.

``--conditions arms bump staging dim blur noise lowres drop flicker shake fps10 mirror fast``
replays each game clean and as filmed under each condition (``vision.synth.conditions``: arms
crossing the table, a camera knocked mid-game, a hand hiding every card's time in staging, dim
warm light, defocus blur, grain with heavy compression, a 640x360 camera, a fifth of the frames
lost in bursts, a light pulsing by a quarter, a camera trembling by a pixel, a camera of 10
frames a second, a camera that mirrors the table, a game played twice as fast), through
the shipped detector with the camera alone and with the players answering its checks and
questions, and prints one table, condition by condition. Beside the true observations
recovered in order, "announced" counts the true game's state, damage and result announcements
made in order: what the players hear (a joker flopped that an arm hid until it lay on its
spot is one observation for the true log's two, with the same announcements):

    nice -n 10 python bench/replay.py --seeds 141 142 --moves 24 --conditions arms bump staging dim

``--quiet-s 0.25 0.4`` replays every variant once per stillness the camera waits for before a
read, side by side (one value: every replay with it; none: the camera referee's default).

``--rereferee`` referees again the detections an earlier run saved, without the detector: what
event inference and the rules make of the same reads (the speed columns are then the
referee's alone; a frame the first run did not read is detected). A change to them is measured
so in minutes instead of the detector's hour:

    python bench/replay.py --seeds 141 ... 150 --moves 24 --conditions blur arms --rereferee

``--game royal_shuffle`` renders and replays Royal Shuffle games (whole games with ``--moves
400``), with the players typing and answering as the true game went: the renderer's labels,
then the detector. There the camera feeds a card put in view as the spec's ``placed`` and the
referee asks whether it was flipped or played, so the moves of the two logs do not compare one
for one: "recovered" counts the true game's state, damage and result announcements made in
order (``score_announcements``).

``--game houska_castle``, ``--game dukes_up`` and ``--game royal_crush`` do the same for the
other games (draws, set-ups, dice and reveals are typed, so only with the players), and print
a table for the game: announcements recovered, wrong, desyncs, the referee's questions and the
camera's, speed. ``--size 640x360`` renders smaller frames (a quicker bench on two cores):

    nice -n 10 python bench/replay.py --game dukes_up --seeds 1 2 3 4 5 --moves 400 --size 640x360
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.games import GAMES  # noqa: E402
from vision.detector import shipped_model  # noqa: E402
from vision.replay_eval import (  # noqa: E402
    latencies,
    read_jsonl,
    score_announcements,
    score_replay,
    settled_times,
    truth_detections,
)
from vision.synth.conditions import CONDITIONS, perturb  # noqa: E402


def cardref(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "vision.commands.main", *args], check=True, cwd=ROOT, stdout=subprocess.DEVNULL
    )


def replay_latencies(render_dir: Path, replay_dir: Path) -> list[float]:
    """Video seconds from the first settled frame after each true move to the first camera
    observation of that move."""
    seen = [e["t"] for e in read_jsonl(replay_dir / "events.jsonl") if e["kind"] == "observation"]
    return latencies(settled_times(render_dir), seen)


def totals_by_deck(rows: list[dict]) -> list[dict]:
    """Per variant, the true observations recovered over all games and over each deck's."""
    out = []
    for variant in dict.fromkeys(r["variant"] for r in rows):
        mine = [r for r in rows if r["variant"] == variant]
        for deck in ["all", *sorted({r["deck"] or "?" for r in mine})]:
            part = [r for r in mine if deck == "all" or (r["deck"] or "?") == deck]
            got, true = sum(r["recovered_moves"] for r in part), sum(r["true_moves"] for r in part)
            out.append({"variant": variant, "deck": deck, "games": len(part), "recovered_moves": got,
                        "true_moves": true, "recovered": round(got / max(true, 1), 4),
                        "wrong_scored": sum(r["wrong_scored"] for r in part)})
    return out


def replay_row(args: argparse.Namespace, game: Path, out: Path, extra: list[str], by_moves: bool) -> dict:
    """Replay one rendered game (``extra``: the variant's options) and score it. With
    ``--rereferee``, a variant run through the detector before is refereed again from the
    detections it saved (kept beside its folder), not detected again."""
    kept = out.with_name(f"{out.name}.detections.jsonl")  # the detector's own, as it wrote them
    if args.rereferee and "--detections" not in extra and (out / "detections.jsonl").exists():
        if not kept.exists():
            shutil.copy(out / "detections.jsonl", kept)
        # The referee of today may read the table at frames the first run did not: the
        # variant's model detects those.
        model = [] if "--model" in extra else ["--model", str(shipped_model())]
        extra = [*extra, "--detections", str(kept), *model]
    elif "--detections" not in extra:
        kept.unlink(missing_ok=True)  # detected again: a later --rereferee takes the new ones
    t0 = time.perf_counter()
    cardref(
        "replay",
        str(game / "video.mp4"),
        "--game",
        args.game,
        "--out",
        str(out),
        "--answers",
        str(game / "observations.jsonl"),
        "--quiet",
        *extra,
    )
    wall = time.perf_counter() - t0
    summary = json.loads((out / "summary.json").read_text())
    score = score_replay(game, out)
    announced, stated = score_announcements(game, out)
    if not by_moves:
        score.recovered_in_order, score.true_moves = announced, stated
    lat = replay_latencies(game, out)
    kinds = [e["kind"] for e in read_jsonl(out / "events.jsonl")]
    return {
        "video_s": summary["video_seconds"],
        "wall_s": round(wall, 2),
        "x_real_time": round(summary["video_seconds"] / wall, 2),
        "recovered": score.recovered,
        "recovered_moves": score.recovered_in_order,
        "true_moves": score.true_moves,
        "announced": announced,
        "true_announced": stated,
        "wrong_scored": len(score.wrong_scored),
        "missed_scored": len(score.missed_scored),
        "latency_median_s": round(statistics.median(lat), 2) if lat else None,
        "desyncs": summary["desyncs"],
        "recoveries": kinds.count("recovered"),
        "questions": kinds.count("question"),
        "asks": summary.get("asks", 0),
        "drifts": kinds.count("drift"),
        **{k: v for k, v in summary.items() if k.startswith("checks_")},
    }


def with_quiet(variants: dict[str, list[str]], quiet: list[float] | None) -> dict[str, list[str]]:
    """Each variant once per ``--quiet-s`` value (named by it when there are several): the
    stillness the camera waits for before a read, compared side by side on the same videos."""
    if not quiet:
        return variants
    if len(quiet) == 1:
        return {name: [*extra, "--quiet-s", str(quiet[0])] for name, extra in variants.items()}
    return {f"{name}, quiet {q:g} s": [*extra, "--quiet-s", str(q)]
            for name, extra in variants.items() for q in quiet}


COUNTED = ("wrong_scored", "desyncs", "recoveries", "questions", "drifts")


def conditions_table(rows: list[dict]) -> list[dict]:
    """Per condition and variant, over all games: observations recovered in order, wrong
    damage or results, desyncs, recoveries, questions and the median latency."""
    out = []
    for variant in dict.fromkeys(r["variant"] for r in rows):
        part = [r for r in rows if r["variant"] == variant]
        got, true = sum(r["recovered_moves"] for r in part), sum(r["true_moves"] for r in part)
        lat = [r["latency_median_s"] for r in part if r["latency_median_s"] is not None]
        out.append({
            "variant": variant, "games": len(part), "recovered_moves": got, "true_moves": true,
            "whole_games": sum(r["recovered_moves"] == r["true_moves"] for r in part),
            "announced": sum(r["announced"] for r in part),
            "true_announced": sum(r["true_announced"] for r in part),
            **{k: sum(r[k] for r in part) for k in COUNTED},
            "latency_median_s": round(statistics.median(lat), 2) if lat else None,
        })
    return out


def game_table(game: str, rows: list[dict]) -> None:
    """One game's table: per variant over all its rendered games, the true state, damage,
    score and result announcements recovered in order, wrong ones, desyncs, the referee's
    questions (ASK) and recovery questions asked, and the speed."""
    print(f"\n{game}\n{'variant':<28} {'games':>5} {'recovered':>15} {'wrong':>5} {'desync':>6} "
          f"{'asks':>5} {'questions':>9} {'x real':>7}")
    for variant in dict.fromkeys(r["variant"] for r in rows):
        part = [r for r in rows if r["variant"] == variant]
        got, true = sum(r["recovered_moves"] for r in part), sum(r["true_moves"] for r in part)
        share = f"{got}/{true} {got / max(true, 1):.1%}"
        speed = sum(r["video_s"] for r in part) / max(sum(r["wall_s"] for r in part), 1e-9)
        print(f"{variant:<28} {len(part):>5} {share:>15} {sum(r['wrong_scored'] for r in part):>5} "
              f"{sum(r['desyncs'] for r in part):>6} {sum(r['asks'] for r in part):>5} "
              f"{sum(r['questions'] for r in part):>9} {speed:>7.1f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[101, 102])
    p.add_argument("--moves", type=int, default=30)
    p.add_argument("--work", type=Path, default=ROOT / ".cache" / "bench_replay")
    p.add_argument("--json", type=Path, default=None,
                   help="default bench/replay.json (Royal Family), bench/replay_GAME.json (the others)")
    p.add_argument("--game", default="royal_family", choices=GAMES)
    p.add_argument("--size", default=None, help="frame size of the rendered games (render-game's default)")
    p.add_argument("--baseline", metavar="REV", help="also replay with the detector of this git revision")
    p.add_argument("--baseline-backend", default="onnx", choices=("onnx", "openvino"),
                   help="the runtime the baseline's detector runs on (default onnx, as it was then; "
                        "openvino to compare two detectors on one runtime)")
    p.add_argument("--only-models", action="store_true", help="only the detector variants, no video")
    p.add_argument("--conditions", nargs="*", default=None, choices=CONDITIONS,
                   help="also replay each game filmed under these conditions (camera alone, players)")
    p.add_argument("--quiet-s", type=float, nargs="+", metavar="SECONDS",
                   help="the stillness each replay waits for before a read (cardref replay --quiet-s); "
                        "several values: each variant once per value, side by side")
    p.add_argument("--rereferee", action="store_true",
                   help="referee the detections an earlier run saved again (the event inference and "
                        "rules of today on the same reads; speed is then the referee's alone)")
    args = p.parse_args()
    if args.json is None:
        name = "replay.json" if args.game == "royal_family" else f"replay_{args.game}.json"
        args.json = ROOT / "bench" / name
    base = []
    if args.baseline:
        from bench.detector import models_at

        finder = models_at(args.baseline, args.work / f"models_{args.baseline}")
        base = ["--model", str(finder), "--backend", args.baseline_backend]
    by_moves = args.game == "royal_family"
    rows = []
    for seed in args.seeds:
        # (Royal Family's games keep their old folders; the other games' are named by game.)
        size = f"_{args.size}" if args.size else ""
        prefix = "" if args.game == "royal_family" and not size else f"{args.game}{size}_"
        game = args.work / f"{prefix}game_{seed}"
        if not (game / "video.mp4").exists():
            cardref(
                "render-game",
                args.game,
                "--seed",
                str(seed),
                "--out",
                str(game),
                "--max-moves",
                str(args.moves),
                "--recipe",
                str(ROOT / "datasets/recipes/holdout.yaml"),
                "--quiet",
                *(["--size", args.size] if args.size else []),
            )
        truth = truth_detections(game / "labels.jsonl", args.work / f"{prefix}truth_{seed}.jsonl")
        deck = json.loads((game / "render.json").read_text()).get("deck")
        players = ["--no-video", "--players", str(game)]
        if args.conditions is not None:
            for condition in ["clean", *args.conditions]:
                filmed = game if condition == "clean" else args.work / f"game_{seed}_{condition}"
                if condition != "clean" and not (filmed / "video.mp4").exists():
                    perturb(game, filmed, condition, seed)
                alone_players = {"camera alone": ["--no-video"],
                                 "players answering": ["--no-video", "--players", str(filmed)]}
                for name, extra in with_quiet(alone_players, args.quiet_s).items():
                    out = args.work / f"replay_{seed}_{condition}_{name.replace(' ', '_').replace(',', '')}"
                    row = replay_row(args, filmed, out, extra, by_moves)
                    rows.append({"seed": seed, "deck": deck, "variant": f"{condition}, {name}",
                                 "condition": condition, **row})
            continue
        if by_moves:
            variants = {
                "truth detections": ["--detections", str(truth), "--no-video"],
                "model, no video": ["--no-video"],
                "model + annotated video": [],
                "model, checks answered": players,
            }
            if args.only_models:
                del variants["truth detections"], variants["model + annotated video"]
            if base:
                variants[f"{args.baseline}, no video"] = ["--no-video", *base]
                variants[f"{args.baseline}, checks answered"] = [*players, *base]
        else:  # what the camera cannot see is typed, and only its players can
            variants = {
                "truth detections, players": ["--detections", str(truth), *players],
                "model, players": players,
            }
        for name, extra in with_quiet(variants, args.quiet_s).items():
            out = args.work / f"{prefix}replay_{seed}_{name.replace(' ', '_').replace(',', '')}"
            row = replay_row(args, game, out, extra, by_moves)
            rows.append({"seed": seed, "deck": deck, "variant": name, **row})
    head = (
        f"{'seed':>5} {'variant':<28} {'video s':>8} {'wall s':>7} {'x real':>7} {'recovered':>9} "
        f"{'wrong':>5} {'missed':>6} {'latency':>7} {'desync':>6}"
    )
    print(head)
    for r in rows:
        print(
            f"{r['seed']:>5} {r['variant']:<28} {r['video_s']:>8.1f} {r['wall_s']:>7.1f} "
            f"{r['x_real_time']:>7.2f} "
            f"{r['recovered']:>9.3f} {r['wrong_scored']:>5} {r['missed_scored']:>6} "
            f"{r['latency_median_s'] if r['latency_median_s'] is not None else '-':>7} {r['desyncs']:>6}"
        )
    if args.conditions is not None:
        table = conditions_table(rows)
        print(f"\n{'condition, variant':<34} {'games':>5} {'recovered':>13} {'announced':>13} {'whole':>5} "
              f"{'wrong':>5} {'desync':>6} {'recov':>5} {'asked':>5} {'drift':>5} {'latency':>7}")
        for t in table:
            got, true = t["recovered_moves"], t["true_moves"]
            share = f"{got}/{true} {got / max(true, 1):.0%}"
            heard, stated = t["announced"], t["true_announced"]
            said = f"{heard}/{stated} {heard / max(stated, 1):.0%}"
            lat = t["latency_median_s"] if t["latency_median_s"] is not None else "-"
            print(f"{t['variant']:<34} {t['games']:>5} {share:>13} {said:>13} {t['whole_games']:>5} "
                  f"{t['wrong_scored']:>5} {t['desyncs']:>6} {t['recoveries']:>5} {t['questions']:>5} "
                  f"{t['drifts']:>5} {lat:>7}")
        args.json.write_text(json.dumps({"rows": rows, "conditions": table}, indent=1))
        print(f"wrote {args.json}")
        return 0
    totals = totals_by_deck(rows)
    print(f"\n{'variant':<28} {'deck':<24} {'games':>5} {'recovered':>13} {'wrong':>5}")
    for t in totals:
        share = f"{t['recovered_moves']}/{t['true_moves']} {t['recovered']:.0%}"
        print(f"{t['variant']:<28} {t['deck']:<24} {t['games']:>5} {share:>13} {t['wrong_scored']:>5}")
    if not by_moves:
        game_table(args.game, rows)
    answered = [r for r in rows if "checks_keyed" in r]
    if answered:
        kinds = ("confirmed", "keyed", "typed", "unanswered")
        counts = {k: sum(r[f"checks_{k}"] for r in answered) for k in kinds}
        print(f"checks over {len(answered)} replays: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    args.json.write_text(json.dumps({"rows": rows, "totals": totals}, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

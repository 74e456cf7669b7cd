"""Past one machine: replays, synthetic sets and variant sweeps handed to a real two-worker
Dask ``LocalCluster`` (separate processes, as ``dask worker`` would be), compared with the same
work done one piece after another in one process."""

from __future__ import annotations

import csv
import json

import pytest
from run_cardref import ROOT, cardref, render_game

from vision.replay_eval import truth_detections

RECIPE = str(ROOT / "datasets/recipes/holdout.yaml")

# About 25 s here together (the cluster's start, three renders): more than the quick subset's share.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module")
def three_games(tmp_path_factory):
    """Three short rendered games (4 observations, 640x360), each with its true detections."""
    root = tmp_path_factory.mktemp("games")
    games = []
    for seed in (3, 4, 5):
        game = render_game(root / f"seed{seed}", seed, 4, "--size", "640x360")
        truth_detections(game / "labels.jsonl", game / "detections.jsonl")
        games.append(game)
    return games


def replay_args(*videos: str, out) -> list[str]:
    return ["replay", *videos, "--game", "royal_family", "--out", str(out), "--no-video", "--quiet",
            "--answers", "{dir}/observations.jsonl", "--detections", "{dir}/detections.jsonl"]


def test_videos_replayed_through_the_cluster_give_the_events_of_one_by_one(three_games, cluster, tmp_path):
    for game in three_games:
        r = cardref(*replay_args(str(game / "video.mp4"), out=tmp_path / "one" / game.name))
        assert r.returncode == 0, r.stderr
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video")
    videos = [str(g / "video.mp4") for g in three_games] + [str(broken)]
    r = cardref(*replay_args(*videos, out=tmp_path / "many"), "--cluster", cluster)
    # The broken video fails alone, as a row of games.csv; the three games finish.
    assert r.returncode == 1, r.stderr
    assert "3 of 4 games replayed" in r.stdout
    for game in three_games:
        alone = (tmp_path / "one" / game.name / "events.jsonl").read_bytes()
        assert (tmp_path / "many" / game.name / "events.jsonl").read_bytes() == alone
        assert alone.count(b'"kind":"observation"') == 4
    rows = list(csv.DictReader((tmp_path / "many" / "games.csv").open()))
    assert [r["folder"] for r in rows] == ["seed3", "seed4", "seed5", "broken"]
    for row, game in zip(rows, three_games, strict=False):
        summary = json.loads((tmp_path / "one" / game.name / "summary.json").read_text())
        assert row["game"] == "royal_family" and row["error"] == ""
        assert int(row["observations"]) == summary["observations"] == 4
        assert float(row["seconds"]) == summary["video_seconds"] > 5
        assert row["desyncs"] == "0" and row["unreadable_frames"] == "0"
    assert rows[3]["error"] == f"{broken}: cannot open video (not a video OpenCV can decode)"
    index = (tmp_path / "many" / "index.html").read_text()
    assert "<a href='seed4/report.html'>" in index and "4 games replayed, 1 failed" in index


def test_a_folder_of_games_on_local_processes_needs_each_game_named_by_a_pattern(three_games, tmp_path):
    folder = str(three_games[0].parent)
    r = cardref("replay", folder, "--game", "royal_family", "--out", str(tmp_path / "o"),
                "--answers", str(three_games[0] / "observations.jsonl"))
    assert r.returncode == 2
    assert "--answers" in r.stderr and "{dir}" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cardref(*replay_args(folder, out=tmp_path / "o"), "--workers", "2")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader((tmp_path / "o" / "games.csv").open()))
    assert [r["folder"] for r in rows] == ["seed3", "seed4", "seed5"]
    assert all(r["observations"] == "4" for r in rows)


def test_synth_sharded_on_the_cluster_gives_the_bytes_of_one_process(cluster, tmp_path):
    single, sharded = tmp_path / "single", tmp_path / "sharded"
    common = ["--images", "10", "--seed", "7", "--imgsz", "320", "--recipe", RECIPE, "--quiet"]
    r = cardref("synth", "--out", str(single), "--workers", "1", *common)
    assert r.returncode == 0, r.stderr
    r = cardref("synth", "--out", str(sharded), "--cluster", cluster, *common)
    assert r.returncode == 0, r.stderr
    names = sorted(p.relative_to(single) for p in single.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(sharded) for p in sharded.rglob("*") if p.is_file())
    assert len([n for n in names if n.suffix == ".jpg"]) == 10
    for name in names:
        a, b = (single / name).read_bytes(), (sharded / name).read_bytes()
        if name.name == "data.yaml":  # names its own folder
            a, b = a.replace(bytes(single), b"DIR"), b.replace(bytes(sharded), b"DIR")
        assert a == b, name


def test_games_rendered_on_the_cluster_are_the_bytes_of_each_game_rendered_alone(cluster, tmp_path):
    common = ["--size", "320x180", "--max-moves", "2", "--recipe", RECIPE, "--quiet"]
    r = cardref("render-game", "royal_family", "--seed", "8", "--games", "2", "--out", str(tmp_path / "many"),
                "--cluster", cluster, *common)
    assert r.returncode == 0, r.stderr
    assert sorted(json.loads(line)["seed"] for line in r.stdout.splitlines()) == [8, 9]
    r = cardref("render-game", "royal_family", "--seed", "9", "--out", str(tmp_path / "alone"), *common)
    assert r.returncode == 0, r.stderr
    alone = sorted(p.name for p in (tmp_path / "alone").iterdir())
    assert "video.mp4" in alone and "labels.jsonl" in alone
    assert alone == sorted(p.name for p in (tmp_path / "many" / "seed9").iterdir())
    for name in alone:
        if name != "render.json":  # its timings and its folder differ
            a, b = tmp_path / "alone" / name, tmp_path / "many" / "seed9" / name
            assert a.read_bytes() == b.read_bytes(), name


def test_a_sweep_of_two_variants_on_the_cluster_has_no_rejects_and_the_counts_of_one_process(cluster):
    args = ["simulate", "royal_family", "--games", "12", "--seed", "5", "--json",
            "--sweep", "castle_model=damage_20,hit_points_10"]
    r = cardref(*args, "--cluster", cluster)
    assert r.returncode == 0, r.stderr + r.stdout
    on_cluster = json.loads(r.stdout)["combinations"]
    swept = [c["variants"]["castle_model"] for c in on_cluster]
    assert swept == ["damage_20", "hit_points_10"]
    for c in on_cluster:
        assert c["games"] == 12 and c["rejects"] == 0 and c["invariant_failures"] == 0
        assert sum(w["games"] for w in c["wins"].values()) == 12
        for w in c["wins"].values():
            assert w["ci95"][0] <= w["share"] <= w["ci95"][1]
    r = cardref(*args, "--workers", "1")
    assert r.returncode == 0 and json.loads(r.stdout)["combinations"] == on_cluster
    # The variant changes the games (Text B's castles fall otherwise).
    assert on_cluster[0]["mean_observations"] != on_cluster[1]["mean_observations"]


"""Houska Castle, Dukes Up! and Royal Crush rendered as videos (``cardref render-game``) and
replayed with their players typing what the camera cannot see: each a short game at a small
frame size, the renderer's labels standing in for the detector (the shipped detector's
figures are measured by ``bench/replay.py --game GAME``, docs/camera.md)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from run_cardref import cardref, render_game

from referee.core import Referee
from referee.games import load_game
from referee.observations import Observation
from vision.events import visible
from vision.layout import load_layout
from vision.replay_eval import TablePlayers, read_jsonl, score_announcements, score_replay, truth_detections

# A rendered game of each new game, replayed and followed live (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow

# game: (seed, observations, cards face up at the end, moves the camera reads at least)
SHORT = {
    # the set-up laid out, a hand dealt, monster cards drawn face down and turned up, the
    # player's answer, an artifact, the Max HP marker slid out from under the new one
    "houska_castle": (1, 30, 8, 10),
    # castles and dukes laid face down, dukes_up turning them over, who starts, draws into
    # hands, a duke taken back, melds on the table, discards
    "dukes_up": (1, 40, 6, 5),
    # a deal into held hands, dice, a declaration, commitments face down in a slot and on a
    # side mat, the reveal, the clean-up under the draw pile begun
    "royal_crush": (1, 48, 1, 1),
}


@pytest.fixture(scope="module", params=list(SHORT))
def short_game(request, tmp_path_factory):
    game = request.param
    seed, moves, _, _ = SHORT[game]
    out = tmp_path_factory.mktemp(game)
    return game, render_game(out, seed, moves, "--size", "480x272", game=game)


def test_the_video_shows_the_cards_the_rules_have_face_up(short_game):
    """At the end the face-up cards drawn where a camera reads them are those the referee of
    the true game has face up (Royal Crush's referee files a revealed card under its owner's
    slot wherever it lies: names are compared, not zones)."""
    game, video = short_game
    layout = load_layout(game)
    referee = Referee(load_game(game))
    for obs in read_jsonl(video / "observations.jsonl"):
        assert not any(a.kind == "REJECT" for a in referee.feed(Observation.from_json(obs)))
    zones: dict[str, list] = {}
    for zone, cards in referee.game.cards_by_zone(referee.state).items():
        zones.setdefault(layout.lies_in(zone), []).extend(cards)
    expected = Counter({name: n for (_, name), n in visible(layout, zones).items() if n})
    last = read_jsonl(video / "labels.jsonl")[-1]
    drawn = Counter(c["cls"] for c in last["cards"] if c["labelled"] and c["cls"] != "BACK")
    assert drawn == expected and sum(expected.values()) >= SHORT[game][2]


def test_replay_with_its_players_makes_every_announcement_of_the_true_game(short_game, tmp_path):
    """The players type the set-up, the draws into their hands, the dice, the reveals and the
    answers as the true game went; the camera reads the rest: every state, damage, score and
    result announcement of the true game, in order, none wrong, no desync."""
    game, video = short_game
    dets = truth_detections(video / "labels.jsonl", tmp_path / "truth.jsonl")
    out = tmp_path / "replay"
    r = cardref("replay", str(video / "video.mp4"), "--game", game, "--out", str(out), "--detections",
                str(dets), "--players", str(video), "--no-video", "--quiet")
    assert r.returncode == 0, r.stderr
    got, true = score_announcements(video, out)
    assert got == true >= 8, (got, true)
    assert score_replay(video, out).wrong_scored == []
    summary = json.loads((out / "summary.json").read_text())
    assert summary["desyncs"] == 0 and summary["rejects"] == 0
    # The camera fed moves it read itself, not only what the players typed.
    fed = [e for e in read_jsonl(out / "events.jsonl") if e["kind"] == "observation"]
    assert sum(e["data"].get("seq") is not None for e in fed) >= SHORT[game][3]


def test_live_with_its_players_follows_the_game_to_the_end_of_the_video(short_game, tmp_path):
    """``cardref live --players``: the rendered game's players type and answer at the live
    referee; its log is the true game, as the rules read it (the same end)."""
    game, video = short_game
    dets = truth_detections(video / "labels.jsonl", tmp_path / "truth.jsonl")
    log = tmp_path / "live.jsonl"
    r = cardref("live", game, "--camera", str(video / "video.mp4"), "--headless", "--log", str(log),
                "--detections", str(dets), "--players", str(video), stdin="")
    assert r.returncode == 0, r.stderr
    assert "REJECT" not in r.stdout and "[desync]" not in r.stdout
    true, played = Referee(load_game(game)), Referee(load_game(game))
    for obs in read_jsonl(video / "observations.jsonl"):
        true.feed(Observation.from_json(obs))
    for obs in read_jsonl(log)[1:]:  # after the log's header
        assert not any(a.kind == "REJECT" for a in played.feed(Observation.from_json(obs)))
    assert played.game.outcome_key(played.state) == true.game.outcome_key(true.state)


def test_the_players_say_where_a_discard_came_from_whatever_the_camera_named_it(short_game):
    """Dukes Up! asks where a discard the camera saw came from (the hand or the draw pile). The
    bench's players answer by what they have just done, whatever the camera named the card:
    each discard of the short game, seen under another name, is answered with its true source.
    (Matching the true move by name finds nothing then; the moves about then were tried in
    turn, and on the bench's seed 6, the camera out of count after a missed duke switch, a
    guyenne `QC` discarded from the hand and read `JC` was answered "from the draw pile".)"""
    game, video = short_game
    if game != "dukes_up":
        pytest.skip("only Dukes Up! asks where a discard came from")
    players = TablePlayers(video)
    settled: dict[int, int] = {}  # observations made -> the first frame settled after them
    for row in read_jsonl(video / "labels.jsonl"):
        if row["phase"] == "settled":
            settled.setdefault(row["obs"], row["frame"])
    camera, asked = Referee(load_game(game)), 0
    for k, obs in enumerate(players.observations):
        discard = obs.type == "move" and (obs.dst or "").startswith("discard_pile_")
        if discard and k + 1 in settled:
            trial = copy.deepcopy(camera)
            misnamed = next(c for c in ("JC", "QC", "KC", "JS", "QS", "KS") if c != str(obs.card))
            trial.feed(Observation.from_json({"type": "appeared", "card": misnamed, "to": obs.dst}))
            if trial.pending is not None:
                choice = players.match_answer(trial, settled[k + 1])
                assert choice is not None
                move = trial.pending.moves[choice - 1].to_json()
                assert move["source"] == obs.src.removesuffix("_" + move["player"]), (k, obs.short(), move)
                asked += 1
        assert not any(a.kind == "REJECT" for a in camera.feed(obs))
    assert asked >= 2

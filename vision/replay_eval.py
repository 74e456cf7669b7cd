"""Scoring a replay against the truth of a rendered game (``cardref render-game``).

Two figures decide whether the camera referee works: the share of the true observations it
recovered, in order (a longest common subsequence of the move lists), and the damage and
result announcements it made that the true game did not (wrong ones), or missed.
The renderer's per-frame labels can also stand in for the detector
(:func:`truth_detections`), which tells the pipeline's own errors apart from the model's.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from referee import files
from referee.errors import CardrefError
from referee.observations import is_swap

SCORED = ("DAMAGE", "RESULT")


def read_jsonl(path: Path) -> list[dict]:
    return [value for _, value in files.read_jsonl(path, "rendered game record", missing_ok=False)]


def truth_detections(labels: Path, out: Path) -> Path:
    """The renderer's labelled cards of every frame, written as a detections.jsonl."""
    with out.open("w") as fh:
        for row in read_jsonl(labels):
            cards = [c for c in row["cards"] if c["labelled"] and c["box"] is not None]
            record = {
                "frame": row["frame"],
                "time": row["t"],
                "xyxy": [c["box"] for c in cards],
                "confidence": [1.0] * len(cards),
                "class": [c["cls"] for c in cards],
            }
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")
    return out


def lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


@dataclass
class ReplayScore:
    true_moves: int
    inferred_moves: int
    recovered_in_order: int
    wrong_scored: list[str]  # damage/result announcements the true game did not make
    missed_scored: list[str]

    @property
    def recovered(self) -> float:
        return self.recovered_in_order / max(self.true_moves, 1)

    def to_json(self) -> dict:
        return {**asdict(self), "recovered": round(self.recovered, 4)}


def key(o: dict) -> str:
    return f"{o.get('card')} {o.get('from')} -> {o.get('to')}"


def final_moves(events: list[dict]) -> list[str]:
    """The moves a replay fed the referee, as the referee ended up reading them: a ``rename``
    (a card misread when it was drawn, read right later) renames that card in the moves fed
    from its index ``at`` on; a swap exchanges the two names there."""
    moves: list[tuple[int | None, dict]] = []
    for k, e in enumerate(events):
        if e["kind"] != "observation":
            continue
        data = e["data"]
        if data.get("type", "move") == "move":
            moves.append((data.get("seq"), dict(data)))
        elif data["type"] == "rename" and not refused(events[k + 1 : k + 2]):
            names = {data["card"]: data["as"]}
            if is_swap(data):  # two cards taken for each other
                names[data["as"]] = data["card"]
            for seq, move in moves:
                if seq is not None and seq >= data.get("at", 0) and move["card"] in names:
                    move["card"] = names[move["card"]]
    return [key(m) for _, m in moves]


def refused(following: list[dict]) -> bool:
    """Whether the referee refused the observation these events follow (its REJECT comes
    next)."""
    nxt = following[0] if following else {}
    return nxt.get("kind") == "announcement" and nxt["data"].get("kind") == "REJECT"


def score_replay(render_dir: Path, replay_dir: Path) -> ReplayScore:
    truth = [key(o) for o in read_jsonl(render_dir / "observations.jsonl") if o.get("type", "move") == "move"]
    events = read_jsonl(replay_dir / "events.jsonl")
    got = final_moves(events)
    true_scored = [a["text"] for a in read_jsonl(render_dir / "announcements.jsonl") if a["kind"] in SCORED]
    got_scored = [
        e["data"]["text"] for e in events if e["kind"] == "announcement" and e["data"].get("kind") in SCORED
    ]
    wrong = [t for t in got_scored if t not in true_scored]
    missed = [t for t in true_scored if t not in got_scored]
    return ReplayScore(len(truth), len(got), lcs(truth, got), wrong, missed)


STATED = ("STATE", "DAMAGE", "RESULT")


def score_announcements(render_dir: Path, replay_dir: Path) -> tuple[int, int]:
    """(recovered in order, true): the true game's state, damage and result announcements
    that the replay made, in order. The figure for a game whose camera feeds other kinds of
    observation than the true log's (Royal Shuffle's ``placed``, then the referee's question:
    flipped or played?), where moves cannot be compared one for one."""
    true = [a["text"] for a in read_jsonl(render_dir / "announcements.jsonl") if a["kind"] in STATED]
    got = [
        e["data"]["text"]
        for e in read_jsonl(replay_dir / "events.jsonl")
        if e["kind"] == "announcement" and e["data"].get("kind") in STATED
    ]
    return lcs(true, got), len(true)


def settled_times(render_dir: Path) -> list[float]:
    """Video time of the first settled frame after each true observation of a rendered game,
    in observation order: when the table had just settled after that move."""
    first: dict[int, float] = {}
    for row in read_jsonl(render_dir / "labels.jsonl"):
        if row["phase"] == "settled" and row["obs"] > 0:
            first.setdefault(row["obs"], row["t"])
    return [first[k] for k in sorted(first)]


def latencies(settled: list[float], seen: list[float]) -> list[float]:
    """For each settled time, how long until the first observation seen at or after it."""
    out = []
    for s in settled:
        later = [t for t in seen if t >= s]
        if later:
            out.append(later[0] - s)
    return out


@dataclass
class CheckAnswers:
    """How the players answered the camera's name checks during a replay."""

    confirmed: int = 0  # the camera's name was right: key 1
    keyed: int = 0  # the true card was among the names offered: one key
    typed: int = 0  # it was not: a typed rename
    unanswered: int = 0  # no card moved there lately: the players could not tell

    def to_json(self) -> dict:
        return {f"checks_{k}": v for k, v in asdict(self).items()}


# How far from the camera's count of moves the players look for the move a question is about:
# the camera may lag the game by the moves it missed (two discards between two settled tables).
NEAR = 8


HAND_BUSY = ("reach", "grab", "carry")  # the beats of a move before its card is put down


class TablePlayers:
    """The players of a rendered game, at the table while it is replayed: what ``cardref live``
    leaves to them, done as the true game went.

    - They answer the camera's name checks (``[CHECK]``) with the card they have just moved:
      a check is raised a little after the move it doubts, when the table has settled; the
      renderer's labels say how many true observations had put their card down by that frame
      (a card still in a hand is not there yet), and the latest
      of them (at most ``RECENT`` back) that put a card in the zone the check names is that
      card, if it still lies there. (The camera may have the card's origin wrong too; a rename
      cannot put that right, and the referee refuses it then.)
    - They type what the camera cannot see (a draw into a hand, who starts, a hand shown) as
      soon as they have made it, as at a table: the camera's referee keeps a typed move until
      it has read the table again, and feeds it after the moves it then sees made before it
      (``EventInference.held``).
    - They answer the referee's questions: the true game's answer where the true referee asked
      the same, else (a question only the camera needs, such as whether a card was flipped or
      played) the choice that is the true game's move about then, or that leaves the game as
      the true one."""

    RECENT = 3
    LAG = 4  # an answer the camera never asked for is dropped this many observations after it

    def __init__(self, render_dir: Path, layout=None):
        from referee.core import Referee
        from referee.games import GAMES, load_game
        from referee.observations import Observation

        meta = render_dir / "render.json"
        game = files.read_json_object(meta, "render record").get("game") if meta.exists() else "royal_family"
        if game not in GAMES:
            raise CardrefError(f"{meta}: field 'game': expected one of {', '.join(GAMES)}, got {game!r}")
        self.game = load_game(game)
        self.truth = read_jsonl(render_dir / "observations.jsonl")
        labels = read_jsonl(render_dir / "labels.jsonl")
        self.done_at = {row["frame"]: row["obs"] for row in labels}
        # The moves whose card lies where it goes by each frame: a move still reaching for,
        # grabbing or carrying its card has not put it there (a check answered then names
        # the card lying there, not the one in the hand).
        self.put_at = {row["frame"]: row["obs"] - (row.get("beat") in HAND_BUSY) for row in labels}
        self.tally = CheckAnswers()
        seen = {z.id for z in layout.table_zones if z.face == "up"} if layout is not None else None
        self.observations = [Observation.from_json(o) for o in self.truth]
        # Moves made before each observation, in the true game: when a typed one is due; and
        # after each, how many moves the game had made and the key of its outcome then.
        ref, self.moves_before, self.asked_before = Referee(self.game), [], []
        self.outcomes: list[tuple[int, str]] = []
        for obs in self.observations:
            self.moves_before.append(len(ref.history))
            self.asked_before.append(ref.pending is not None)
            ref.feed(obs)
            self.outcomes.append((len(ref.history), self.game.outcome_key(ref.state)))
        self.true_moves = list(ref.history)
        shown = _shown_after(read_jsonl(render_dir / "labels.jsonl"))
        self.typed = [
            k for k, o in enumerate(self.observations)
            if seen is not None and not _seen(o, seen, layout, shown.get(k), shown.get(k + 1))
        ]
        self.typed_done = 0
        self.checks: list = []  # (NameCheck, event) raised and not answered yet

    # ---- name checks ---------------------------------------------------------------------
    def card_for(self, frame: int, dst: str | None) -> str | None:
        """The card the players last put in ``dst`` (among their last ``RECENT`` moves), if it
        still lies there; None when they put none there lately (the camera doubts a card
        nobody moved, such as one uncovered when the card on it left)."""
        done = self.put_at.get(frame, len(self.truth))
        recent = [(k, o) for k, o in enumerate(self.truth[:done]) if k >= done - self.RECENT]
        put = [(k, o) for k, o in recent if o.get("type", "move") == "move" and o.get("to") == dst]
        if not put:
            return None
        k, last = put[-1]
        left = any(o.get("card") == last["card"] and o.get("from") == dst for o in self.truth[k + 1 : done])
        return None if left else last["card"]

    def answer(self, frame: int, check_card: str, choices: tuple[str, ...], dst: str | None) -> str | None:
        """The true card for a check, tallied by how the players gave it (None: no answer)."""
        card = self.card_for(frame, dst)
        if card is None:
            self.tally.unanswered += 1
        elif card == check_card:
            self.tally.confirmed += 1
        elif card in choices:
            self.tally.keyed += 1
        else:
            self.tally.typed += 1
        return card

    # ---- typed observations and answers ---------------------------------------------------
    def due(self, frame: int, camera_moves: int, asked: bool):
        """The next observation the players type now, if any."""
        if self.typed_done >= len(self.typed):
            return None
        k = self.typed[self.typed_done]
        done = self.done_at.get(frame, len(self.truth))
        if done <= k:
            return None  # not made yet
        obs = self.observations[k]
        if obs.type == "answer" and self.asked_before[k]:
            # The true game's answer, to the same question (the camera's referee is at the same
            # move and asking); a question only the camera asks is answered by match_answer.
            if camera_moves > self.moves_before[k] or done > k + self.LAG:
                self.typed_done += 1  # answered already (by match_answer), or never asked
                return self.due(frame, camera_moves, asked)
            if not (asked and camera_moves == self.moves_before[k]):
                return None
        elif asked and self.asked_before[k] and camera_moves == self.moves_before[k]:
            pass  # what the players did answers the same question (Royal Crush's invite by=...)
        elif asked:
            return None  # the question first
        self.typed_done += 1
        return obs

    def pick_explanation(self, question, frame: int) -> int | None:
        """The camera's explanations of missed moves (``vision.recovery``): the one that leaves
        the game as the true game was at some point; of a card's likely names (which card is
        it?), the card they last put there (None: none does)."""
        if question.card is not None:
            first = question.choices[0]
            dst = next(o.dst for o in first.steps if str(o.card) == first.named)
            card = self.card_for(frame, dst)  # (not a check: not tallied as one)
            return next((i for i, e in enumerate(question.choices, 1) if e.named == card), None)
        keys = {k for _, k in self.outcomes}
        return next((i for i, e in enumerate(question.choices, 1) if e.outcome in keys), None)

    def match_answer(self, camera, frame: int | None = None) -> int | None:
        """The choice of the camera's open question that is what the players did: the true
        move made at that point, or the one that leaves the game as the true one. Where the
        camera named the card otherwise, the players answer by what they have just done by
        ``frame`` (a discard from the hand is from the hand, whatever the camera calls it)."""
        pending = camera.pending
        if pending is None:
            return None
        if self.typed_done < len(self.typed):
            k = self.typed[self.typed_done]
            if self.asked_before[k] and len(camera.history) == self.moves_before[k]:
                return None  # the true game's same question: what the players type next answers it
        # A choice the true game made about then (the camera may have taken a typed draw and a
        # move in another order).
        n = len(camera.history)
        near = [self.true_moves[n + off] for off in sorted(range(-NEAR, NEAR + 1), key=abs)
                if 0 <= n + off < len(self.true_moves)]
        for move in near:
            if move in pending.moves:
                return pending.moves.index(move) + 1
        # The same move but for how the table is grouped into melds (Dukes Up!'s discard carries
        # the table the turn left, which a missed card makes differ).
        offered = [_without_melds(m.to_json()) for m in pending.moves]
        for move in near:
            if (loose := _without_melds(move.to_json())) in offered:
                return offered.index(loose) + 1
        # The true game once it had made the move asked about.
        made, key = next(((m, k) for m, k in self.outcomes if m > n), (None, None))
        if made is None:
            return None  # past the true game's end
        if self.true_moves[made - 1] in pending.moves:
            return pending.moves.index(self.true_moves[made - 1]) + 1
        for i, move in enumerate(pending.moves, 1):
            if self.game.outcome_key(self.game.apply(camera.state, move).state) == key:
                return i
        # The camera named a card otherwise: what the players did, whatever the card's name
        # (a flip rather than a play, a discard from the hand), else the same kind of move; the
        # true move made then first, or one made about then (the camera may have seen a move
        # before the players typed the draws that came before it).
        near = [made - 1] + [n + off for off in sorted(range(-3, 4), key=abs) if n + off != made - 1]
        near = [*self._just_made(frame), *near]
        done = [self.true_moves[k].to_json() for k in near if 0 <= k < len(self.true_moves)]
        for same in (lambda m, d: _without_cards(m) == _without_cards(d),
                     lambda m, d: m["event"] == d.get("event")):
            for d in done:
                hits = [i for i, m in enumerate(pending.moves, 1) if same(m.to_json(), d)]
                if hits:
                    return hits[0]
        return None

    def _just_made(self, frame: int | None) -> list[int]:
        """The true moves (indices of ``true_moves``) the players made last by ``frame``, the
        latest first (at most ``RECENT`` observations back)."""
        if frame is None:
            return []
        done = self.done_at.get(frame, len(self.truth))
        out = []
        for k in range(done - 1, max(done - self.RECENT, 0) - 1, -1):
            after = self.outcomes[k][0]
            if after > self.moves_before[k]:  # that observation made a move
                out.append(after - 1)
        return out


def _without_melds(move: dict) -> dict:
    return {k: v for k, v in move.items() if k != "melds"}


def _without_cards(move: dict) -> dict:
    return {k: v for k, v in move.items() if k not in ("card", "cards")}


def _shown_after(labels: list[dict]) -> dict[int, set[tuple[str, str]]]:
    """After each number of observations, the face-up cards a camera could read on the settled
    table, as (zone, card): what the players know the camera has seen."""
    out: dict[int, set[tuple[str, str]]] = {}
    for row in labels:
        if row["phase"] == "settled":
            cards = [c for c in row["cards"] if c["labelled"] and c["cls"] != "BACK" and c["zone"]]
            out[row["obs"]] = {(c["zone"], c["cls"]) for c in cards}
    return out


def _seen(obs, seen: set[str], layout=None, before=None, after=None) -> bool:
    """Whether a camera sees ``obs`` happen: a face-up card moved into or out of a zone it
    sees (everything else, a draw into a hand, who starts, an answer, is typed or keyed).
    Where the rendered table tells, the card must also be read somewhere in view before the
    move or where it went after it (not a card slid from under a pile's top), and a card moved
    between Dukes Up!'s melds, all on its one ``table`` zone, is not seen."""
    face_up = obs.card is not None and not obs.card.is_back
    src, dst = obs.src, obs.dst
    if layout is not None:
        src, dst = (layout.lies_in(z) if z else z for z in (obs.src, obs.dst))
        if src == dst and obs.src != obs.dst:
            return False
    if obs.type == "placed":  # put in view from somewhere unseen (Royal Shuffle)
        return face_up and dst in seen
    if not (obs.type == "move" and face_up and bool({src, dst} & seen)):
        return False
    if before is None or after is None:
        return True
    card = str(obs.card)
    return any(c == card and z in seen for z, c in before) or ((dst, card) in after and dst in seen)

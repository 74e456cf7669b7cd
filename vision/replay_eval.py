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

SCORED = ("DAMAGE", "RESULT")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


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
            if data.get("swap") in (True, "yes"):  # two cards taken for each other
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


class TablePlayers:
    """The players of a rendered game answering the camera's name checks (``[CHECK]`` in
    ``cardref live``), as people at the table would: with the card they have just moved there.

    A check is raised a little after the move it doubts, when the table has settled; the
    renderer's labels say how many true observations were made by that frame, and the latest
    of them (at most ``RECENT`` back) that put a card in the zone the check names is the card
    the players remember. (The camera may have the card's origin wrong too; a rename cannot
    put that right, and the referee refuses it then.)"""

    RECENT = 3

    def __init__(self, render_dir: Path):
        self.truth = read_jsonl(render_dir / "observations.jsonl")
        self.done_at = {row["frame"]: row["obs"] for row in read_jsonl(render_dir / "labels.jsonl")}
        self.tally = CheckAnswers()

    def card_for(self, frame: int, dst: str | None) -> str | None:
        done = self.done_at.get(frame, len(self.truth))
        recent = [
            o for o in self.truth[max(0, done - self.RECENT) : done]
            if o.get("type", "move") == "move" and o.get("to") == dst
        ]
        return recent[-1]["card"] if recent else None

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

"""Observations: what the camera (or a person typing) saw happen on the table.

This is the one interface between vision and rules. The format is JSON Lines, versioned
(``docs/events.md``). A ``move`` is a card going from one zone to another; ``answer``
answers the referee's last ASK; ``end_turn`` says the active player is done (a gesture or a
key). Games add their own types for what a camera cannot see (dice, hidden hands); their
extra fields travel in ``data``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import files
from referee.cards import Card, CardError
from referee.errors import ObservationError, where

FORMAT_VERSION = 1
CORE_TYPES = ("move", "answer", "end_turn")


@dataclass(frozen=True)
class Observation:
    """One observed event. ``src``/``dst`` are zone ids (JSON keys ``from``/``to``)."""

    type: str = "move"
    card: Card | None = None
    src: str | None = None
    dst: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def move(cls, card: Card | str, src: str, dst: str, **data: Any) -> Observation:
        c = card if isinstance(card, Card) else Card.parse(card)
        return cls("move", c, src, dst, dict(data))

    @classmethod
    def answer(cls, choice: str | int) -> Observation:
        return cls("answer", data={"choice": choice})

    @classmethod
    def of(cls, type_: str, **data: Any) -> Observation:
        return cls(type_, data=dict(data))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.type != "move":
            out["type"] = self.type
        if self.card is not None:
            out["card"] = str(self.card)
        if self.src is not None:
            out["from"] = self.src
        if self.dst is not None:
            out["to"] = self.dst
        out.update(self.data)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    def short(self) -> str:
        """Short typed form, as ``cardref play`` accepts it."""
        if self.type == "move":
            return f"{self.card} {self.src} -> {self.dst}"
        if self.type == "answer":
            return f"answer {self.data.get('choice')}"
        # A game type may carry a card and zones too (Royal Shuffle's ``placed``): keep them,
        # so that the short form reads back as the same observation.
        fields = {"card": self.card, "from": self.src, "to": self.dst}
        items = [(k, v) for k, v in fields.items() if v is not None] + list(self.data.items())
        extra = " ".join(f"{k}={_short_value(v)}" for k, v in items)
        return f"{self.type} {extra}".strip()

    @classmethod
    def from_json(cls, obj: Any, loc: str = "") -> Observation:
        """Build from a decoded JSON object; errors name ``loc`` and the field."""
        if not isinstance(obj, dict):
            raise ObservationError(f"{loc}: expected a JSON object, got {type(obj).__name__}")
        d = dict(obj)
        d.pop("v", None)
        type_ = d.pop("type", "move")
        if not isinstance(type_, str) or not re.fullmatch(r"[a-z_]+", type_):
            raise ObservationError(f"{_field(loc, 'type')}: expected a lower_case name")
        card = None
        if "card" in d:
            try:
                card = Card.parse(d.pop("card"))
            except CardError as e:
                raise ObservationError(f"{_field(loc, 'card')}: {e}") from None
        src = d.pop("from", None)
        dst = d.pop("to", None)
        for name, value in (("from", src), ("to", dst)):
            if value is not None and not (isinstance(value, str) and value):
                raise ObservationError(f"{_field(loc, name)}: expected a zone id, got {value!r}")
        if type_ == "move":
            for name, value in (("card", card), ("from", src), ("to", dst)):
                if value is None:
                    raise ObservationError(f"{_field(loc, name)}: missing (a move needs card, from, to)")
        if type_ == "answer" and "choice" not in d:
            raise ObservationError(f"{_field(loc, 'choice')}: missing (an answer needs a choice)")
        return cls(type_, card, src, dst, d)


SWAP_VALUES = (True, False, "yes", "no")  # a rename's ``swap``: JSON true/false, typed yes/no


def is_swap(data: dict[str, Any]) -> bool:
    """Whether a rename's data says the two cards were taken for each other (``swap``)."""
    return data.get("swap", False) in (True, "yes")


def _field(loc: str, name: str) -> str:
    return f"{loc}: field '{name}'" if loc else f"field '{name}'"


def _short_value(v: Any) -> str:
    if isinstance(v, list):
        return ",".join(str(x) for x in v)
    return str(v)


_MOVE_RE = re.compile(r"^\s*(\S+)\s+(\S+)\s*->\s*(\S+)\s*$")


def parse_short(text: str) -> Observation:
    """Parse the typed short form: ``7S draw_pile -> staging``, ``answer clubs``,
    ``end_turn``, or ``TYPE key=value ...`` (values with commas become lists)."""
    m = _MOVE_RE.match(text)
    if m:
        try:
            return Observation.move(m.group(1), m.group(2), m.group(3))
        except CardError as e:
            raise ObservationError(str(e)) from None
    parts = text.split()
    if not parts:
        raise ObservationError("empty observation")
    head, rest = parts[0], parts[1:]
    if head == "answer":
        if len(rest) != 1:
            raise ObservationError("expected 'answer CHOICE'")
        choice: str | int = int(rest[0]) if re.fullmatch(r"[0-9]+", rest[0]) else rest[0]
        return Observation.answer(choice)
    data: dict[str, Any] = {}
    for token in rest:
        if "=" not in token:
            raise ObservationError(
                f"cannot read {token!r}: expected 'CARD FROM -> TO', 'answer X' or 'TYPE key=value'"
            )
        key, value = token.split("=", 1)
        data[key] = _parse_value(value)
    return Observation.from_json({"type": head, **data})


def _parse_value(value: str) -> Any:
    if "," in value:
        return [_parse_value(v) for v in value.split(",") if v]
    if re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    return value


def read_jsonl(path: str | Path) -> Iterator[tuple[int, Observation]]:
    """Yield (line number, observation) for each non-blank line of a JSONL file. A game log
    (``--log``) reads as its observations: its header line is skipped."""
    p = Path(path)
    text = files.read_text(p, "observations")
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        obj = files.parse_json(line, where(str(p), n), ObservationError)
        if n == 1 and isinstance(obj, dict) and obj.get("type") == "header":
            continue
        yield n, Observation.from_json(obj, where(str(p), n))

"""What the referee says. One dataclass, rendered as JSON Lines or as readable text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["ANNOUNCE", "LEGAL", "DAMAGE", "STATE", "REJECT", "ASK", "RESULT"]
KINDS: tuple[str, ...] = ("ANNOUNCE", "LEGAL", "DAMAGE", "STATE", "REJECT", "ASK", "RESULT")

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Announcement:
    """One referee output.

    ``kind``: ANNOUNCE (age, round, order, whose turn, scores), LEGAL (options of the active
    player), DAMAGE (damage and other changes of a castle or score), STATE (other state
    changes and instructions such as "put 8H on the discard pile"), REJECT (the observation
    broke a rule: state unchanged), ASK (a multiple-choice question, ``data["choices"]``),
    RESULT (the game is over). ``text`` is one readable line; ``data`` is for machines.
    """

    kind: Kind
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown announcement kind {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        return {"v": FORMAT_VERSION, "kind": self.kind, "text": self.text, "data": self.data}

    def to_text(self) -> str:
        if self.kind == "ASK" and self.data.get("choices"):
            return f"[{self.kind}] {self.text} (answer: {' / '.join(map(str, self.data['choices']))})"
        return f"[{self.kind}] {self.text}"


def announce(text: str, **data: Any) -> Announcement:
    return Announcement("ANNOUNCE", text, data)


def legal(text: str, **data: Any) -> Announcement:
    return Announcement("LEGAL", text, data)


def damage(text: str, **data: Any) -> Announcement:
    return Announcement("DAMAGE", text, data)


def state_change(text: str, **data: Any) -> Announcement:
    return Announcement("STATE", text, data)


def reject(reason: str, **data: Any) -> Announcement:
    return Announcement("REJECT", reason, data)


def ask(question: str, choices: list[str], **data: Any) -> Announcement:
    return Announcement("ASK", question, {"choices": list(choices), **data})


def result(text: str, **data: Any) -> Announcement:
    return Announcement("RESULT", text, data)

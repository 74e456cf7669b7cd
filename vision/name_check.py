"""A card the camera named unsurely, offered to the players to confirm or put right.

The rules choose a card's name among the detector's likely names when they can; when several
are legal the likeliest is fed. In live mode that guess is not left to pass silently: the
players are shown the other likely names and put the card right with one key, which becomes a
``rename`` observation (the referee re-reads the game; the camera then reads that card by the
name they gave).
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card
from referee.errors import CardrefError
from referee.observations import Observation


@dataclass(frozen=True)
class NameCheck:
    card: str  # the name the camera fed
    choices: tuple[str, ...]  # that name first, then its other likely names
    at: int = 0  # the referee's index of the observation it came out by that name

    @classmethod
    def of(cls, kind: str, data: dict) -> NameCheck | None:
        """The check an event calls for: an observation whose card the camera named with a
        probability under ``vision.pipeline.UNSURE_NAME``, or the rules named among its likely
        names, with other likely names. A rename counts from where the card came out by that
        name (``since``), not just from this move."""
        if kind != "observation" or not data.get("others"):
            return None
        at = data.get("since", data.get("seq", 0))
        return cls(data["card"], (data["card"], *data["others"]), int(at))

    def prompt(self) -> str:
        keys = ", ".join(f"{i} {name}" for i, name in enumerate(self.choices, 1))
        return f"{self.card} was read unsurely: which card is it? press {keys}"

    def answer(self, key: int) -> Observation | None:
        """The rename for choice ``key`` (1 = the camera's name: nothing to change)."""
        if not 1 <= key <= len(self.choices):
            raise CardrefError(f"{key}: expected a choice from 1 to {len(self.choices)}")
        if key == 1:
            return None
        return Observation("rename", Card.parse(self.card), data={"as": self.choices[key - 1], "at": self.at})

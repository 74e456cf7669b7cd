"""The variants of Royal Shuffle (``configs/games/royal_shuffle.yaml``, which says why each exists),
typed: a rule reads ``self.v.joker_mode``, and a key the YAML and this class do not share
is a ConfigError when the game is loaded (``referee.config.typed_variants``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Variants:
    joker_mode: Literal["first_ends", "second_ends"] = "first_ends"
    tie: Literal["draw", "fewer_penalty_cards_wins"] = "draw"
    exhaustion: Literal["play_out_hands", "score_immediately"] = "play_out_hands"
    step_order: Literal["any", "strict"] = "any"
    rounding: Literal["floor", "toward_zero"] = "floor"
    settlement: Literal["optimal_auto", "as_laid_out"] = "optimal_auto"

"""The variants of Houska Castle (``configs/games/houska_castle.yaml``, which says why each exists),
typed: a rule reads ``self.v.castle_model``, and a key the YAML and this class do not share
is a ConfigError when the game is loaded (``referee.config.typed_variants``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Variants:
    hero_wins_ties: bool = True
    initial_hero_cards: Literal["up_to_2", "exactly_2"] = "up_to_2"
    king_monster_observation: Literal["standard", "both_revealed"] = "standard"
    replace_stolen_monster_card: bool = False
    levelup_order: Literal["shuffle_then_heal", "heal_then_shuffle"] = "shuffle_then_heal"
    death_hero_point: Literal["offer", "mandatory"] = "offer"

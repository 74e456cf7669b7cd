"""The variants of Royal Family (``configs/games/royal_family.yaml``, which says why each exists),
typed: a rule reads ``self.v.castle_model``, and a key the YAML and this class do not share
is a ConfigError when the game is loaded (``referee.config.typed_variants``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Variants:
    castle_model: Literal["damage_20", "hit_points_10"] = "damage_20"
    troop_range: Literal["3_10", "3_9"] = "3_10"
    turn_order: Literal["flop_color", "alternate"] = "flop_color"
    fort_damage: Literal["attached_cards", "discard_and_track"] = "attached_cards"
    attack_bonus: Literal["one", "any"] = "one"
    dungeon_capacity: Literal["per_castle", "per_player"] = "per_castle"
    kidnap_from_draw: bool = False
    flop_take_requires_use: bool = True
    claim_ace_from: Literal["flop_or_draw", "flop_only"] = "flop_or_draw"
    damage_enabler: Literal["attacking_castle", "any_own_castle"] = "attacking_castle"
    residentless_attack: Literal["allowed", "forbidden"] = "allowed"
    exhaustion: Literal["reshuffle_discard", "draw_game"] = "reshuffle_discard"
    max_rounds: int = 300

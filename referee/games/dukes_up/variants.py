"""The variants of Dukes Up! (``configs/games/dukes_up.yaml``, which says why each exists),
typed: a rule reads ``self.v.castle_model``, and a key the YAML and this class do not share
is a ConfigError when the game is loaded (``referee.config.typed_variants``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Variants:
    first_player: Literal["ask", "random", "black", "red"] = "ask"
    draw_rule: Literal["up_to_two", "fill_up_to_two"] = "up_to_two"
    exhaustion_end: Literal["after_final_turn", "immediately"] = "after_final_turn"
    ace_wrap: bool = False
    castle_points_to: Literal["color", "taker"] = "color"
    no_switch_first_turn: bool = False
    draw_from_discard: bool = False
    own_castle_last_stand: bool = False
    max_turns: int = 400

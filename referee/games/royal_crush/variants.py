"""The variants of Royal Crush (``configs/games/royal_crush.yaml``, which says why each exists),
typed: a rule reads ``self.v.castle_model``, and a key the YAML and this class do not share
is a ConfigError when the game is loaded (``referee.config.typed_variants``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Variants:
    players: int = 4
    draw_mode: Literal["all_draw_one", "only_when_empty"] = "all_draw_one"
    dice: Literal["2d6", "1d6"] = "2d6"
    alliance: Literal["open_unless_excluded", "invite_only"] = "open_unless_excluded"
    ally_may_play_joker: bool = False
    ace_resume: Literal["from_ace_player", "original_order"] = "from_ace_player"
    combo_mode: bool = False
    combo_scope: Literal["side", "player"] = "side"
    no_draw: bool = False
    role_reversal: bool = False
    commit_order: Literal["allies_first", "any"] = "allies_first"
    two_kings_suppress: bool = False
    no_draw_deal: Literal["thirteen_capped", "even_split"] = "thirteen_capped"
    no_draw_wipeout: Literal["highest_ladder", "draw"] = "highest_ladder"
    empty_hand_refill: Literal["one", "hand_size"] = "one"
    max_conquests: int = 300

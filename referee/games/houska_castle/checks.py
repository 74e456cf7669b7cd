"""Houska Castle's legality checks: why a move is illegal now (a player-facing line).

``Rules.reason`` dispatches here; ``Rules.legal`` filters candidates through the same
checks, so the moves offered and the moves accepted can never disagree.
"""

from __future__ import annotations

import referee.games.houska_castle.moves as mv
from referee.cards import Card
from referee.core import handles
from referee.games.houska_castle.state import (
    FIELD,
    FIELDS,
    HERO,
    MONSTER,
    Duty,
    HouskaState,
    rank_text,
)


class Checks:
    """Mixin of ``Rules``: one ``_r_<move>`` per move type, plus the chance-card checks."""

    exactly_2: bool
    death_mandatory: bool

    # ==== chance cards =====================================================================
    def _combat_card(self, s: HouskaState, c: Card) -> str | None:
        """Why ``c`` cannot come off combat_pile now."""
        if s.combat_pile == 0:
            return "combat_pile is empty"
        return self._unseen_card(s, c, "combat_pile")

    def _unseen_card(self, s: HouskaState, c: Card, pile: str) -> str | None:
        if c in s.combat_known:
            return None
        if c in s.pool:
            if len(s.pool) <= s.monster_pile:
                return f"{c} cannot be in {pile}: every card never seen is in monster_pile"
            return None
        return f"{c} cannot be in {pile}: it is on {s.locate(c)}"

    def _take(self, s: HouskaState, c: Card, from_pile: bool = True) -> None:
        if c in s.pool:
            s.pool.discard(c)
        else:
            s.combat_known.discard(c)
        if from_pile:
            s.combat_pile -= 1

    # ==== reasons ==========================================================================
    def _busy(self, s: HouskaState) -> str | None:
        if not s.duties:
            return None
        return "First " + self.duty_text(s, s.duties[0])

    def _front(self, s: HouskaState, kind: str) -> Duty | None:
        return s.duties[0] if s.duties and s.duties[0].kind == kind else None

    @handles(mv.SetUp, step="reason")

    def _r_setup(self, s: HouskaState, m: mv.SetUp) -> str | None:
        if s.phase != "setup":
            return "The game is already set up"
        if m.marker.rank != "5":
            return f"The Max HP marker must be a 5, not {m.marker}"
        if not 1 <= m.monster_pile <= 49:
            return f"monster_pile must hold 1 to 49 of the 50 cards, not {m.monster_pile}"
        return None

    def _draw_context(self, s: HouskaState) -> str | None:
        """Why the Hero may not draw into his hand now (no duty pending)."""
        if s.phase in ("regen", "reveal"):
            if len(s.hand) >= s.max_hp:
                return f"Hand is full (Max HP {s.max_hp})"
            if s.regen_draws >= 2:
                return "HP Regen is at most 2 cards"
            if s.phase == "reveal":
                return "HP Regen is over: reveal the next monster"
            return None
        if s.phase == "setup":
            return "Set up first: report the Max HP marker (setup marker=5S)"
        return _phase_hint(s.phase, "Cards go to your hand only at HP Regen, a heal or a level-up")

    @handles(mv.Draw, step="reason")

    def _r_draw(self, s: HouskaState, m: mv.Draw) -> str | None:
        if m.card.rank == "A":
            return f"{m.card} is an artifact: put it on artifacts, not in your hand"
        if not self._front(s, "heal"):
            why = self._busy(s) or self._draw_context(s)
            if why:
                return why
        return self._combat_card(s, m.card)

    @handles(mv.DrawAce, step="reason")

    def _r_draw_ace(self, s: HouskaState, m: mv.DrawAce) -> str | None:
        if m.card.rank != "A":
            return f"Only aces go to artifacts, not {m.card}"
        d = s.duties[0] if s.duties else None
        if d is not None:
            if d.kind == "heal" or (d.kind == "bodyguard" and d.side == HERO):
                return self._combat_card(s, m.card)
            if d.kind in ("bodyguard", "monster_play"):
                return f"An ace drawn for the monster goes to monster_rewards: put {m.card} there"
            return self._busy(s)
        return self._draw_context(s) or self._combat_card(s, m.card)

    @handles(mv.MarkerIn, step="reason")

    def _r_marker_in(self, s: HouskaState, m: mv.MarkerIn) -> str | None:
        d = self._front(s, "marker")
        if d is None or len(s.marker) != 1:
            return self._busy(s) or "The Max HP marker changes only at a level-up"
        if m.card.rank != rank_text(d.rank):
            return f"The new Max HP marker must be a {rank_text(d.rank)}, not {m.card}"
        return self._combat_card(s, m.card)

    @handles(mv.MarkerOut, step="reason")

    def _r_marker_out(self, s: HouskaState, m: mv.MarkerOut) -> str | None:
        d = self._front(s, "marker")
        if d is None:
            return self._busy(s) or "The Max HP marker changes only at a level-up"
        if len(s.marker) == 1:
            return "First take the new marker from combat_pile onto max_hp_card"
        if m.card != s.marker[0]:
            return f"The old marker is {s.marker[0]}, not {m.card}"
        return None

    @handles(mv.NoMarker, step="reason")

    def _r_no_marker(self, s: HouskaState, m: mv.NoMarker) -> str | None:
        d = self._front(s, "marker")
        if d is None or len(s.marker) != 1:
            return self._busy(s) or "There is no level-up search now"
        r = rank_text(d.rank)
        known = sorted(c for c in s.combat_known if c.rank == r)
        if known and s.hidden_count() == 0:
            return f"{known[0]} went back into combat_pile: look again for a {r}"
        return None

    @handles(mv.RevealMonster, mv.MonsterPileAce, step="reason")

    def _r_reveal_monster(self, s: HouskaState, m: mv.RevealMonster | mv.MonsterPileAce) -> str | None:
        ace = m.card.rank == "A"
        if isinstance(m, mv.RevealMonster) and ace:
            return f"An ace is not a monster: put {m.card} in monster_rewards"
        if isinstance(m, mv.MonsterPileAce) and not ace:
            return f"Only aces go to monster_rewards; {m.card} is a monster for monster_slot"
        busy = self._busy(s)
        if busy:
            return busy
        if s.phase not in ("regen", "reveal"):
            return _phase_hint(s.phase, "A monster is revealed only between encounters")
        if s.monster_pile == 0:
            return "monster_pile is empty"
        if m.card in s.pool:
            return None
        if m.card in s.combat_known:
            return f"{m.card} went back into combat_pile: it cannot be in monster_pile"
        return f"{m.card} cannot be in monster_pile: it is on {s.locate(m.card)}"

    @handles(mv.FieldDraw, step="reason")

    def _r_field_draw(self, s: HouskaState, m: mv.FieldDraw) -> str | None:
        c = m.card
        if m.to not in FIELDS:
            return f"Cards from combat_pile go to a field, not {m.to}"
        d = s.duties[0] if s.duties else None
        if d is not None and d.kind == "monster_play":
            if c is None:
                return "The monster plays its cards face up"
            if c.rank == "A":
                return f"An ace drawn for the monster goes to monster_rewards: put {c} there"
            if m.to == "hero_field" and not s.steals[HERO]:
                return "No Hero Queen is waiting to steal: the monster's card goes onto monster_field"
            return self._combat_card(s, c)
        if d is not None and d.kind == "bodyguard":
            assert d.side is not None and d.card is not None
            if c is None:
                return "A bodyguard is placed face up"
            if c.rank == "A":
                where = "artifacts" if d.side == HERO else "monster_rewards"
                return f"An ace is never a bodyguard: put {c} on {where} and draw again"
            if m.to != FIELD[d.side]:
                return f"{d.card}'s bodyguard goes onto {FIELD[d.side]}"
            return self._combat_card(s, c)
        if d is not None:
            return self._busy(s)
        if s.phase != "observe":
            return _phase_hint(s.phase, "No card comes from combat_pile to the field now")
        if m.to != "monster_field":
            return "Observation cards go onto monster_field"
        n, up = self._observation(s)
        if n >= 2:
            return "The observation already has its 2 cards"
        if s.combat_pile == 0:
            return "combat_pile is empty"
        if c is None:
            return None
        if up >= self._need_up(s):
            return "Draw the other observation card face down: it stays hidden until the monster attacks"
        if c.rank == "A":
            return f"An ace drawn for the monster goes to monster_rewards: put {c} there"
        return self._combat_card(s, c)

    @handles(mv.MonsterAce, step="reason")

    def _r_monster_ace(self, s: HouskaState, m: mv.MonsterAce) -> str | None:
        if m.card.rank != "A":
            return f"Only aces go to monster_rewards, not {m.card}"
        d = s.duties[0] if s.duties else None
        if d is not None:
            if d.kind == "monster_play" or (d.kind == "bodyguard" and d.side == MONSTER):
                return self._combat_card(s, m.card)
            if d.kind == "bodyguard":
                return f"An ace drawn as the Hero's bodyguard is an artifact: put {m.card} on artifacts"
            return self._busy(s)
        if s.phase == "observe":
            n, up = self._observation(s)
            if n >= 2:
                return "The observation already has its 2 cards"
            if up >= self._need_up(s):
                return "Draw the other observation card face down"
            return self._combat_card(s, m.card)
        if s.phase in ("regen", "reveal"):
            return f"An ace the Hero draws is an artifact: put {m.card} on artifacts"
        return _phase_hint(s.phase, "No card is drawn for the monster now")

    @handles(mv.TurnUp, step="reason")

    def _r_turn_up(self, s: HouskaState, m: mv.TurnUp) -> str | None:
        if s.hidden_count() == 0:
            return f"There is no face-down observation card for {m.card} to be"
        if m.to not in FIELDS:
            return f"The observation card stays on the field, not {m.to}"
        why = self._unseen_card(s, m.card, "combat_pile")
        if why:
            return why.replace("in combat_pile", "the hidden observation card")
        d = s.duties[0] if s.duties else None
        if d is None and s.phase == "observe":
            if m.to != "monster_field":
                return "Turn the observation card up where it lies, on monster_field"
            if self._observation(s)[1] >= self._need_up(s):
                return ("Only one observation card is turned up: the other stays hidden until "
                        "the monster attacks")
            return None
        if d is None and s.phase == "hero":
            if s.exchange != 1 or s.placed == 0:
                return "Place your initial attack first (1 or 2 cards from your hand)"
            if self.exactly_2 and s.hand and s.placed < 2:
                return "Place 2 cards in the initial attack"
        elif d is None or d.kind != "reveal":
            return self._busy(s) or _phase_hint(
                s.phase, "The hidden card is turned up in the monster's first attack")
        if m.to == "hero_field":
            if m.card.rank == "A":
                return f"{m.card} is an ace: it goes to monster_rewards, no Queen can steal it"
            if not s.steals[HERO]:
                return "No Hero Queen is waiting to steal: turn the card up on monster_field"
        return None

    @handles(mv.TurnDown, step="reason")

    def _r_turn_down(self, s: HouskaState, m: mv.TurnDown) -> str | None:
        d = self._front(s, "nullify")
        f = s.find(m.card)
        if d is None or d.card != m.card:
            if f is not None and f.nullified and not f.face_up:
                return f"{m.card} is already face down"
            return self._busy(s) or f"No Jack nullifies {m.card}: leave it face up"
        if f is None or f.zone != m.zone:
            return f"{m.card} lies on {f.zone if f else s.locate(m.card)}, not {m.zone}"
        return None

    def reorder_open(self, s: HouskaState) -> bool:
        """The Hero's first initial card was taken by a Queen but still lies on hero_field:
        a second card now may have gone down first ("which card did you place first?")."""
        if s.phase != "hero" or s.exchange != 1 or s.placed != 1 or len(s.duties) != 1:
            return False
        d = s.duties[0]
        if d.kind != "steal" or d.card is None:
            return False
        f = s.find(d.card)
        return f is not None and f.zone == "hero_field" and f.side == MONSTER

    @handles(mv.Play, step="reason")

    def _r_play(self, s: HouskaState, m: mv.Play) -> str | None:
        c = m.card
        if c not in s.hand:
            return f"{c} is not in your hand (it is on {s.locate(c)})"
        if m.to not in FIELDS:
            return f"Cards from your hand go onto hero_field, not {m.to}"
        if s.phase == "monster":
            if s.exchange == 1:
                if s.placed >= 2:
                    return "At most 2 cards in the initial attack"
                return "The initial attack is over: the monster plays now"
            return "One card per exchange: the monster plays now"
        if s.phase != "hero":
            return _phase_hint(s.phase, "Cards are played only in the combat phase")
        reorder = self.reorder_open(s)
        if m.first and not reorder:
            return "No steal waits to be reordered"
        if s.duties and not reorder:
            return self._busy(s)
        if s.exchange == 1 and s.placed >= 2:
            return "At most 2 cards in the initial attack"
        if s.exchange > 1 and s.placed >= 1:
            return "One card per exchange"
        if m.to == "monster_field" and (m.first or not s.steals[MONSTER]):
            return "No monster Queen is waiting to steal: play onto hero_field"
        return None

    @handles(mv.Cross, step="reason")

    def _r_cross(self, s: HouskaState, m: mv.Cross) -> str | None:
        d = self._front(s, "steal")
        f = s.find(m.card)
        if d is None or d.card != m.card or f is None:
            return self._busy(s) or f"No Queen steals {m.card}: cards stay on their side"
        if m.to != FIELD[f.side]:
            return f"{m.card} goes under the Queen on {FIELD[f.side]}"
        return None

    @handles(mv.AceToRewards, step="reason")

    def _r_ace_to_rewards(self, s: HouskaState, m: mv.AceToRewards) -> str | None:
        d = self._front(s, "to_rewards")
        if d is None or d.card != m.card:
            return self._busy(s) or f"{m.card} does not go to monster_rewards now"
        return None

    @handles(mv.Cleanup, step="reason")

    def _r_cleanup(self, s: HouskaState, m: mv.Cleanup) -> str | None:
        if s.phase != "cleanup":
            return _phase_hint(s.phase, "Cards go back under combat_pile only at cleanup")
        if m.src == "monster_slot":
            if s.monster is None:
                return "monster_slot is empty"
            return None if m.card == s.monster else f"The monster is {s.monster}, not {m.card}"
        f = s.find(m.card)
        if f is None or f.zone != m.src:
            return f"{m.card} is not on {m.src}"
        return None

    @handles(mv.CollectReward, step="reason")

    def _r_collect(self, s: HouskaState, m: mv.CollectReward) -> str | None:
        if m.card not in s.rewards:
            return f"{m.card} is not in monster_rewards"
        busy = self._busy(s)
        if busy:
            return busy
        if s.phase != "rewards":
            return _phase_hint(s.phase, "Rewards are collected after the monster is defeated and cleaned up")
        return None

    @handles(mv.UseHeroPoint, step="reason")

    def _r_hero_point(self, s: HouskaState, m: mv.UseHeroPoint) -> str | None:
        if s.hero_points == 0:
            return "No Hero Points left"
        busy = self._busy(s)
        if busy:
            return busy
        if s.phase not in ("hero", "death", "regen", "reveal", "rewards"):
            return _phase_hint(s.phase, "Use a Hero Point when no step is half done")
        return None

    @handles(mv.EndTurn, step="reason")

    def _r_end_turn(self, s: HouskaState, m: mv.EndTurn) -> str | None:
        busy = self._busy(s)
        if busy:
            return busy
        if s.phase == "hero":
            if s.exchange != 1:
                return "Place one card from your hand"
            if s.placed == 0:
                return "Place 1 or 2 cards in the initial attack first"
            if self.exactly_2:
                return "Place 2 cards in the initial attack"
            return None
        if s.phase == "regen":
            return None
        if s.phase == "death":
            return self._r_concede(s, mv.Concede())
        return _phase_hint(s.phase, "Nothing to end now")

    @handles(mv.Concede, step="reason")

    def _r_concede(self, s: HouskaState, m: mv.Concede) -> str | None:
        if s.phase != "death":
            return "No question about defeat is open"
        if self.death_mandatory:
            return "Use your Hero Point: move a joker from hero_points to hero_points_used"
        return None


def _phase_hint(phase: str, default: str) -> str:
    hints = {
        "setup": "Set up first: report the Max HP marker (setup marker=5S)",
        "deal": "Deal first: draw 5 cards from combat_pile into hand",
        "observe": "Finish the observation first (2 cards from combat_pile onto monster_field, "
                   "one turned up)",
        "cleanup": "Finish the cleanup first: every field card and the monster go under combat_pile",
        "rewards": "Collect the rewards first (monster_rewards -> artifacts)",
        "death": "Your hand is empty: use a Hero Point or answer defeat",
    }
    return hints.get(phase, default)

"""What an observation of Royal Family can mean: the phase of the state says which moves a card
seen going from one zone to another can be (docs/rules/royal_family.md); the rules then choose."""

from __future__ import annotations

import referee.games.royal_family.moves as mv
from referee.cards import Card
from referee.core import Move
from referee.errors import IllegalMove
from referee.games.royal_family.rules import Rules, Sequence, cards_text, choice_label, phase_hint, who
from referee.games.royal_family.state import (
    FLOPS,
    OWNER,
    SUITS_OF,
    RFState,
    other,
    suit_name,
)
from referee.observations import Observation


class Interpreter:
    """Observations to candidate moves, asking ``rules`` what is legal."""

    def __init__(self, rules: Rules):
        self.rules = rules

    def _after(self, st: RFState, move: Move) -> RFState:
        """The state ``move`` leads to (on a copy)."""
        new = st.copy()
        self.rules.apply(new, move)
        return new

    def interpret(self, st: RFState, obs: Observation) -> list[Move]:
        if obs.type == "move":
            key = (str(obs.card), obs.src, obs.dst)
            if any(e == key for e in st.expected):
                return [mv.CleanUp(obs.card, obs.src, obs.dst)]
        if st.phase == "bonus":
            bonus = self._interpret_bonus(st, obs)
            if bonus is not None:
                return bonus
            closed = self._after(st, mv.NoBonus(st.active))
            if closed.phase == "over":
                return [mv.NoBonus(st.active)]
            return [Sequence(mv.NoBonus(st.active), m) for m in self.interpret(closed, obs)]
        if obs.type == "answer":
            return self._interpret_answer(st, obs)
        if obs.type == "end_turn":
            if st.phase == "take":
                return [mv.Pass(st.active)]
            raise IllegalMove(f"Finish the turn first ({phase_hint(st)})")
        card, src, dst = obs.card, obs.src, obs.dst
        assert card is not None and src is not None and dst is not None
        if st.phase == "flop":
            if src != "draw_pile":
                raise IllegalMove(f"Flop the three cards first (next: flop_{st.flop_next})")
            pile = f"flop_{st.flop_next}"
            if dst != pile and not (card.is_joker and dst == "joker_spot"):
                raise IllegalMove(f"Flop onto {pile} next")
            return [mv.FlopCard(card, pile)]
        p = st.active
        if st.phase == "take":
            if src == "draw_pile":
                if dst != "staging":
                    raise IllegalMove("Show the drawn card: put it face-up in staging first")
                return [mv.TakeFromDraw(p, card)]
            if src in FLOPS:
                top = st.top(src)
                if top != card:
                    raise IllegalMove(f"{card} is not on top of {src} (top: {top or 'empty'})")
                return self._moves_to(st, p, card, src, dst)
            raise IllegalMove(f"{who(p)} must take a card from the draw pile or a flop pile first")
        if st.phase == "staged":
            staged = st.zones["staging"][-1]
            if src != "staging" or card != staged:
                raise IllegalMove(f"Use or discard {staged} from staging first")
            return self._moves_to(st, p, card, src, dst)
        if st.phase == "surprise":
            return self._interpret_surprise(st, p, card, src, dst)
        if st.phase == "assassinate":
            victims = self.rules.residents(st, other(p))
            if card in victims and src.startswith("residents_") and dst == "discard_pile":
                return [mv.Assassinate(p, card)]
            raise IllegalMove(f"Remove the assassinated resident ({cards_text(victims)}) to the discard pile")
        raise IllegalMove("The game is over")

    def _interpret_answer(self, st: RFState, obs: Observation) -> list[Move]:
        choice = str(obs.data.get("choice"))
        options = self.rules.legal(st) if st.phase in ("assassinate", "surprise") else []
        for m in options:
            if choice_label(m) == choice:
                return [m]
        raise IllegalMove("There is no open question to answer")


    def _interpret_surprise(self, st: RFState, p: str, card: Card, src: str, dst: str) -> list[Move]:
        two = st.zones["staging"][-1]
        own = self.rules.residents(st, p)
        if card == two and src == "staging":
            if dst != "discard_pile":
                raise IllegalMove("A drawn 2 must be resolved and goes face-down")
            if own:
                return [mv.SurpriseRemove(p, m) for m in own]
            return [mv.SurpriseDamage(p, s) for s in SUITS_OF[p] if st.castle_status[s] == "active"]
        if card in own and dst == "discard_pile":
            return [mv.SurpriseRemove(p, card)]
        raise IllegalMove(f"Resolve the drawn {two}: remove one of your residents or take 1 damage")

    def _interpret_bonus(self, st: RFState, obs: Observation) -> list[Move] | None:
        p = st.active
        if obs.type == "end_turn":
            return [mv.NoBonus(p)]
        if obs.type != "move":
            return None
        b = st.bonus
        assert b is not None
        t, card, src, dst = b["target"], obs.card, obs.src, obs.dst
        assert card is not None and dst is not None
        if src == f"dungeon_{t}" and self.rules.family(p, card) and (
            dst.startswith("residents_") or dst.startswith("castle_") or dst == "discard_pile"
        ):
            return [mv.Rescue(p, card)]
        if src == f"residents_{t}":
            if dst.startswith("dungeon_"):
                return [mv.Capture(p, card, dst.removeprefix("dungeon_"))]
            if dst == "discard_pile":
                return [mv.Execute(p, card)]
        return None

    def _moves_to(self, st: RFState, p: str, c: Card, source: str, dst: str) -> list[Move]:
        """Candidate actions for card c moved from ``source`` to ``dst`` (docs/rules/royal_family.md)."""
        s = suit_name(c)
        if dst in FLOPS or dst == "discard_pile":
            if source in FLOPS:
                if dst != "discard_pile":
                    raise IllegalMove("A flop card cannot be moved onto another flop pile")
                moves: list[Move] = []
                if c.rank == "2":
                    moves.append(mv.TakeAssassin(p, c, source))
                # a damaging attack lies beside
                if self.rules.is_troop(c) and not self.rules.enablers(st, p, s):
                    moves += [mv.AttackCastle(p, c, source, t) for t in self.rules.enemy_castles(st, p)
                              if not st.zones[f"fort_{t}"]]
                if not self.rules.v.flop_take_requires_use:
                    moves.append(mv.Discard(p, c, source, dst))
                if not moves:
                    raise IllegalMove(self.rules.unusable_reason(st, p, c, source)
                                      if not self.rules.card_uses(st, p, c, source)
                                      else "A flop card must be used by a legal action, not discarded")
                return moves
            return [mv.Discard(p, c, source, dst)]
        zone, _, target = dst.rpartition("_")
        if dst == "staging":
            raise IllegalMove("Only a card from the draw pile is shown in staging")
        if dst == "joker_spot" or dst == "out_of_game" or dst == "draw_pile":
            raise IllegalMove(f"{c} cannot go to {dst}")
        owner = OWNER[target]
        if zone in ("residents", "castle") and c.is_face:
            if owner != p:
                raise IllegalMove("Royals live only in your own castles")
            return [mv.PlaceResident(p, c, source, target)]
        if zone == "castle" and c.rank == "A":
            return [mv.ClaimAce(p, c, source)]
        if zone == "dungeon":
            if owner != p:
                raise IllegalMove("Prisoners go into your own dungeons")
            return [mv.Kidnap(p, c, source, target)]
        if zone in ("fort", "fort_hits") or dst.startswith("fort_hits_"):
            target = dst.removeprefix("fort_hits_").removeprefix("fort_")
            if OWNER[target] == p:
                if suit_name(c) != target and self.rules.is_troop(c) and OWNER.get(s) == p:
                    raise IllegalMove("A troop fortifies only the castle of its own suit")
                return [mv.Fortify(p, c, source)]
            return [mv.AttackFortification(p, c, source, target)]
        if zone in ("castle_damage", "castle") or dst.startswith("castle_damage_"):
            target = dst.removeprefix("castle_damage_").removeprefix("castle_")
            if OWNER[target] == p:
                raise IllegalMove("You cannot attack your own castle")
            return [mv.AttackCastle(p, c, source, target)]
        raise IllegalMove(f"{c} cannot go to {dst}")

"""Houska Castle's move effects: what a legal move does to the state (docs/rules/houska_castle.md).

Each ``_e_<move>`` mutates a private copy; forced consequences follow in ``Rules.settle``.
"""

from __future__ import annotations

import referee.games.houska_castle.moves as mv
from referee.announcements import Announcement, announce, damage, state_change
from referee.cards import Card, full_deck
from referee.core import handles
from referee.games.houska_castle.state import (
    HERO,
    HERO_CARD,
    MONSTER,
    Duty,
    FieldCard,
    HouskaState,
    rank_text,
)

PILE_CARDS: frozenset[Card] = frozenset(c for c in full_deck(0) if c != HERO_CARD)


class Effects:
    """Mixin of ``Rules``: one ``_e_<move>`` per move type."""

    replace_stolen: bool

    # ==== effects ==========================================================================
    @handles(mv.SetUp)
    def _e_setup(self, s: HouskaState, m: mv.SetUp, notes: list[Announcement]) -> None:
        s.marker = [m.marker]
        s.pool = set(PILE_CARDS - {m.marker})
        s.monster_pile, s.combat_pile = m.monster_pile, 50 - m.monster_pile
        s.phase = "deal"
        s.duties = [Duty("heal")]
        notes.append(announce(
            f"Set up: Max HP 5 ({m.marker}), 2 Hero Points, monster_pile {s.monster_pile}, "
            f"combat_pile {s.combat_pile}. Deal 5 cards from combat_pile into hand",
            max_hp=5, monster_pile=s.monster_pile, combat_pile=s.combat_pile))

    @handles(mv.Draw)

    def _e_draw(self, s: HouskaState, m: mv.Draw, notes: list[Announcement]) -> None:
        self._take(s, m.card)
        s.hand.append(m.card)
        if not s.duties:
            s.regen_draws += 1

    @handles(mv.DrawAce)

    def _e_draw_ace(self, s: HouskaState, m: mv.DrawAce, notes: list[Announcement]) -> None:
        self._take(s, m.card)
        if not s.duties:
            s.regen_draws += 1
        s.duties[0:0] = self._level_up(s, m.card, notes)

    @handles(mv.MarkerIn)

    def _e_marker_in(self, s: HouskaState, m: mv.MarkerIn, notes: list[Announcement]) -> None:
        self._take(s, m.card)
        s.marker.append(m.card)

    @handles(mv.MarkerOut)

    def _e_marker_out(self, s: HouskaState, m: mv.MarkerOut, notes: list[Announcement]) -> None:
        s.marker.pop(0)
        s.combat_known.add(m.card)
        s.combat_pile += 1
        s.duties.pop(0)
        notes.append(state_change(f"Max HP marker is now {s.marker[0]}", max_hp=s.max_hp))

    @handles(mv.NoMarker)

    def _e_no_marker(self, s: HouskaState, m: mv.NoMarker, notes: list[Announcement]) -> None:
        s.duties.pop(0)
        notes.append(state_change(
            f"No {rank_text(s.max_hp)} in combat_pile: the referee keeps Max HP {s.max_hp}",
            max_hp=s.max_hp))

    @handles(mv.RevealMonster)

    def _e_reveal_monster(self, s: HouskaState, m: mv.RevealMonster, notes: list[Announcement]) -> None:
        c = m.card
        s.pool.discard(c)
        s.monster_pile -= 1
        s.monster = c
        s.encounter += 1
        s.budget, s.monster_played, s.exchange, s.placed, s.initial_count = c.value, 0, 0, 0, 0
        s.hero_done = False
        s.encounter_start_hp = len(s.hand)
        s.phase = "observe"
        notes.append(announce(
            f"Encounter {s.encounter}: monster {c}, it may play {s.budget} cards",
            encounter=s.encounter, monster=str(c), budget=s.budget))
        if c.rank == "Q":
            s.steals[MONSTER].append(c)
            notes.append(state_change(f"Monster {c} will steal the Hero's next card", queen=str(c)))

    @handles(mv.MonsterPileAce)

    def _e_monster_pile_ace(self, s: HouskaState, m: mv.MonsterPileAce, notes: list[Announcement]) -> None:
        s.pool.discard(m.card)
        s.monster_pile -= 1
        s.rewards.append(m.card)
        if s.monster_pile == 0:
            s.final = True
            s.phase = "rewards"
            notes.append(state_change(f"{m.card} was the last card of monster_pile: collect the rewards"))
        else:
            s.phase = "reveal"
            notes.append(state_change(f"{m.card} is a reward, not a monster: reveal the next card"))

    def _new_field_card(self, s: HouskaState, c: Card | None, zone: str, side: str, role: str,
                        monster_play: bool = False) -> FieldCard:
        s.seq += 1
        f = FieldCard(s.seq, c, zone, side, role, c is not None, monster_play=monster_play)
        s.table.append(f)
        return f

    @handles(mv.FieldDraw)

    def _e_field_draw(self, s: HouskaState, m: mv.FieldDraw, notes: list[Announcement]) -> None:
        d = s.duties[0] if s.duties else None
        if m.card is None:  # face-down observation card
            s.combat_pile -= 1
            self._new_field_card(s, None, "monster_field", MONSTER, "observation")
            return
        self._take(s, m.card)
        if d is not None and d.kind == "monster_play":
            s.duties.pop(0)
            s.monster_played += 1
            f = self._new_field_card(s, m.card, m.to, MONSTER, "play", monster_play=True)
            new = self._placed(s, f, notes)
            if f.role == "stolen" and self.replace_stolen and s.monster_played < s.budget:
                new.append(Duty("monster_play"))
            s.duties[0:0] = new
        elif d is not None and d.kind == "bodyguard":
            assert d.side is not None
            s.duties.pop(0)
            f = self._new_field_card(s, m.card, m.to, d.side, "bodyguard")
            notes.append(state_change(f"{m.card} is the bodyguard of {d.card}"))
            s.duties[0:0] = self._placed(s, f, notes)
        else:
            self._new_field_card(s, m.card, "monster_field", MONSTER, "observation")

    @handles(mv.MonsterAce)

    def _e_monster_ace(self, s: HouskaState, m: mv.MonsterAce, notes: list[Announcement]) -> None:
        self._take(s, m.card)
        s.rewards.append(m.card)
        notes.append(state_change(f"{m.card} is a reward under the monster: draw a replacement"))

    @handles(mv.TurnUp)

    def _e_turn_up(self, s: HouskaState, m: mv.TurnUp, notes: list[Announcement]) -> None:
        if s.phase == "hero":  # turning the hidden card up ends a one-card initial attack
            self._start_monster_step(s, notes)
        f = next(g for g in s.table if g.card is None)
        self._take(s, m.card, from_pile=False)
        f.card, f.face_up = m.card, True
        ace = m.card.rank == "A"
        if s.phase == "observe":
            if ace:
                f.role = "ace"
                s.duties.insert(0, Duty("to_rewards", m.card))
            return
        s.duties.pop(0)  # the reveal duty
        if ace:
            f.role = "ace"
            s.duties[0:0] = [Duty("to_rewards", m.card), Duty("monster_play", forced=True)]
            return
        f.zone = m.to
        f.monster_play = True
        s.monster_played += 1
        new = self._placed(s, f, notes)
        if f.role == "stolen" and self.replace_stolen and s.monster_played < s.budget:
            new.append(Duty("monster_play"))
        s.duties[0:0] = new

    @handles(mv.TurnDown)

    def _e_turn_down(self, s: HouskaState, m: mv.TurnDown, notes: list[Announcement]) -> None:
        f = s.find(m.card)
        assert f is not None
        f.face_up = False
        s.duties.pop(0)

    def _hero_place(self, s: HouskaState, c: Card, zone: str, notes: list[Announcement],
                    from_hand: bool = True) -> list[Duty]:
        if from_hand:
            s.hand.remove(c)
        s.placed += 1
        if s.exchange == 1:
            s.initial_count += 1
        f = self._new_field_card(s, c, zone, HERO, "play")
        return self._placed(s, f, notes)

    @handles(mv.Play)

    def _e_play(self, s: HouskaState, m: mv.Play, notes: list[Announcement]) -> None:
        if m.first:
            # The other initial card, taken by the Queen, actually went down second: undo its
            # placement, then place this card and that one again in the right order.
            d = s.duties.pop(0)
            assert d.card is not None
            earlier = s.find(d.card)
            assert earlier is not None and earlier.thief is not None
            s.table.remove(earlier)
            s.steals[MONSTER].insert(0, earlier.thief)
            s.placed -= 1
            s.initial_count -= 1
            notes.append(state_change(f"{m.card} went down before {d.card}"))
            new = self._hero_place(s, m.card, m.to, notes)
            new += self._hero_place(s, d.card, earlier.zone, notes, from_hand=False)
        else:
            new = self._hero_place(s, m.card, m.to, notes)
        s.duties.extend(new)

    @handles(mv.Cross)

    def _e_cross(self, s: HouskaState, m: mv.Cross, notes: list[Announcement]) -> None:
        f = s.find(m.card)
        assert f is not None
        f.zone = m.to
        s.duties.pop(0)

    @handles(mv.AceToRewards)

    def _e_ace_to_rewards(self, s: HouskaState, m: mv.AceToRewards, notes: list[Announcement]) -> None:
        f = s.find(m.card)
        assert f is not None
        s.table.remove(f)
        s.rewards.append(m.card)
        s.duties.pop(0)
        notes.append(state_change(f"{m.card} is a reward under the monster: draw a replacement"))

    @handles(mv.Cleanup)

    def _e_cleanup(self, s: HouskaState, m: mv.Cleanup, notes: list[Announcement]) -> None:
        if m.src == "monster_slot":
            s.monster = None
        else:
            f = s.find(m.card)
            assert f is not None
            s.table.remove(f)
        s.combat_known.add(m.card)
        s.combat_pile += 1

    @handles(mv.CollectReward)

    def _e_collect(self, s: HouskaState, m: mv.CollectReward, notes: list[Announcement]) -> None:
        s.rewards.remove(m.card)
        s.duties[0:0] = self._level_up(s, m.card, notes)

    @handles(mv.UseHeroPoint)

    def _e_hero_point(self, s: HouskaState, m: mv.UseHeroPoint, notes: list[Announcement]) -> None:
        s.hero_points -= 1
        s.hero_points_used += 1
        if len(s.hand) >= s.max_hp:
            notes.append(state_change("Your hand is already full: this Hero Point is wasted"))
        elif s.combat_pile == 0:
            notes.append(state_change("combat_pile is empty: this Hero Point heals nothing"))
        notes.append(damage(
            f"Hero Point used ({s.hero_points} left): heal to Max HP {s.max_hp}",
            hero_points=s.hero_points))
        s.duties.insert(0, Duty("heal"))
        if s.phase == "death":
            s.phase, s.exchange, s.placed, s.hero_done = "hero", s.exchange + 1, 0, False
            s.exchanges += 1

    @handles(mv.EndTurn)

    def _e_end_turn(self, s: HouskaState, m: mv.EndTurn, notes: list[Announcement]) -> None:
        if s.phase == "hero":
            s.hero_done = True
        elif s.phase == "regen":
            s.phase = "reveal"
        else:
            self._e_concede(s, mv.Concede(), notes)

    @handles(mv.Concede)

    def _e_concede(self, s: HouskaState, m: mv.Concede, notes: list[Announcement]) -> None:
        h, mm = s.sums()
        self._defeat(s, notes, f"Hero {h} vs Monster {mm}: the Hero declines his Hero Point")

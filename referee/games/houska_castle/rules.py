"""Houska Castle's rules: what each move needs (``reason``), what it does (``effect``) and
the forced consequences that follow without a player's choice (``settle``).

One function decides legality (``reason`` returns the player-facing reason or None), so
``legal`` (a filter over candidate moves) and ``apply`` can never disagree. Forced steps the
player must carry out physically (draw a bodyguard, turn a nullified card face down, move a
stolen card under its Queen, the level-up search and heal) are ``Duty`` entries, done in
order before anything else; steps nobody has to show (a shuffle, a heal or a search that
cannot happen) resolve in ``settle``.
"""

from __future__ import annotations

from collections.abc import Callable

import referee.games.houska_castle.moves as mv
from referee.announcements import Announcement, announce, ask, damage, result, state_change
from referee.cards import SUIT_NAMES, SUITS, Card
from referee.core import Move, move_table
from referee.games.houska_castle.checks import Checks
from referee.games.houska_castle.effects import Effects
from referee.games.houska_castle.state import (
    FIELD,
    FIELDS,
    HERO,
    MONSTER,
    Duty,
    FieldCard,
    HouskaState,
    other,
    rank_text,
)
from referee.games.houska_castle.variants import Variants

COMBAT_PHASES = frozenset({"observe", "hero", "monster", "death"})
# A chance source for ``legal``: ("combat"|"monster"|"hidden"|"marker", rank) -> cards.
Chance = Callable[[str, int], list[Card]]


class Rules(Checks, Effects):
    """The rules of one configured game (variants read once)."""

    def __init__(self, variants: Variants):
        self.hero_wins_ties = bool(variants.hero_wins_ties)
        self.exactly_2 = variants.initial_hero_cards == "exactly_2"
        self.king_both = variants.king_monster_observation == "both_revealed"
        self.replace_stolen = bool(variants.replace_stolen_monster_card)
        self.heal_first = variants.levelup_order == "heal_then_shuffle"
        self.death_mandatory = variants.death_hero_point == "mandatory"
        self.reasons = move_table(self, step="reason")
        self.effects = move_table(self)

    # ==== public ==========================================================================
    def reason(self, s: HouskaState, move: Move) -> str | None:
        """Why ``move`` is illegal now (one player-facing line), or None if it is legal."""
        if s.phase == "over":
            return "The game is over"
        check = self.reasons.get(type(move))
        if check is None:
            return f"{type(move).__name__} is not a Houska Castle move"
        return check(s, move)

    def effect(self, s: HouskaState, move: Move, notes: list[Announcement]) -> None:
        """Carry out a legal move on ``s`` (a private copy), then its forced consequences."""
        self.effects[type(move)](s, move, notes)
        if s.monster is not None and s.phase in COMBAT_PHASES and _touches_field(move):
            notes.append(self._sums_note(s))
        self.settle(s, notes)

    def legal(self, s: HouskaState, chance: Chance | None = None) -> list[Move]:
        """Every legal move. Chance outcomes (which card comes off a face-down pile) are
        every card that can be there, or what ``chance`` says (a simulator's truth)."""
        return [m for m in self.candidates(s, chance) if self.reason(s, m) is None]

    def candidates(self, s: HouskaState, chance: Chance | None = None) -> list[Move]:
        """The moves ``legal`` tries, each then kept if ``reason`` finds nothing against it."""
        if s.phase == "over":
            return []

        def cards(source: str, rank: int = 0) -> list[Card]:
            if chance is not None:
                return chance(source, rank)
            if source == "monster":
                return sorted(s.pool)
            unseen = sorted(s.pool | s.combat_known)
            return [c for c in unseen if c.rank == rank_text(rank)] if rank else unseen

        out: list[Move] = []
        d = s.duties[0] if s.duties else None
        if d is not None:
            out += self._duty_candidates(s, d, cards)
        elif s.phase == "setup":
            out += [mv.SetUp(Card("5", suit)) for suit in SUITS]
        elif s.phase in ("regen", "reveal"):
            out += _draws(cards("combat")) + [mv.EndTurn(), mv.UseHeroPoint()]
            out += [mv.MonsterPileAce(c) if c.rank == "A" else mv.RevealMonster(c) for c in cards("monster")]
        elif s.phase == "observe":
            out.append(mv.FieldDraw(None, "monster_field"))
            out += [mv.MonsterAce(c) if c.rank == "A" else mv.FieldDraw(c, "monster_field")
                    for c in cards("combat")]
            if s.hidden_count():
                out += [mv.TurnUp(c) for c in cards("hidden")]
        elif s.phase == "hero":
            out += [mv.Play(c, f) for c in s.hand for f in sorted(FIELDS)]
            out += [mv.EndTurn(), mv.UseHeroPoint()]
            if s.hidden_count():
                out += [mv.TurnUp(c, f) for c in cards("hidden") for f in sorted(FIELDS)]
        elif s.phase == "death":
            out += [mv.UseHeroPoint(), mv.EndTurn(), mv.Concede()]
        elif s.phase == "cleanup":
            out += [mv.Cleanup(f.card, f.zone) for f in s.table if f.card is not None]
            if s.monster is not None:
                out.append(mv.Cleanup(s.monster, "monster_slot"))
        elif s.phase == "rewards":
            out += [mv.CollectReward(c) for c in s.rewards] + [mv.UseHeroPoint()]
        return out

    def _duty_candidates(self, s: HouskaState, d: Duty, cards: Callable[..., list[Card]]) -> list[Move]:
        k = d.kind
        if k == "heal":
            return _draws(cards("combat"))
        if k == "marker":
            if len(s.marker) == 1:
                return [mv.MarkerIn(c) for c in cards("marker", d.rank)] + [mv.NoMarker()]
            return [mv.MarkerOut(s.marker[0])]
        if k in ("bodyguard", "monster_play"):
            out: list[Move] = []
            for c in cards("combat"):
                if c.rank == "A":
                    out.append(mv.DrawAce(c) if d.side == HERO else mv.MonsterAce(c))
                else:
                    out += [mv.FieldDraw(c, f) for f in sorted(FIELDS)]
            return out
        if k == "steal":
            f = s.find(d.card) if d.card else None
            out = [mv.Cross(d.card, FIELD[f.side])] if f is not None and d.card is not None else []
            if self.reorder_open(s):
                out += [mv.Play(c, "hero_field", first) for c in s.hand for first in (False, True)]
            return out
        if k == "nullify":
            f = s.find(d.card) if d.card else None
            return [mv.TurnDown(d.card, f.zone)] if f is not None and d.card is not None else []
        if k == "reveal":
            return [mv.TurnUp(c, f) for c in cards("hidden") for f in sorted(FIELDS)]
        if k == "to_rewards" and d.card is not None:
            return [mv.AceToRewards(d.card)]
        return []

    # ==== settle: forced consequences =====================================================
    def settle(self, s: HouskaState, notes: list[Announcement]) -> None:
        """Resolve everything that follows without a choice or a card to show."""
        while s.phase != "over":
            if s.duties:
                if not self._auto_duty(s, s.duties[0], notes):
                    return
                continue
            p = s.phase
            if p == "deal":
                s.phase = "reveal"
                notes.append(announce(f"Dealt: HP {len(s.hand)}/{s.max_hp}", hp=len(s.hand), max_hp=s.max_hp))
            elif p == "reveal":
                if s.monster_pile == 0:
                    self._victory(s, notes)
                return
            elif p == "observe":
                if not self._observation_complete(s):
                    return
                self._start_initial_attack(s, notes)
            elif p == "hero":
                if not self._hero_step_over(s):
                    return
                self._start_monster_step(s, notes)
            elif p == "monster":
                self._compare(s, notes)
            elif p == "cleanup":
                if s.table or s.monster is not None:
                    return
                self._end_cleanup(s, notes)
            elif p == "rewards":
                if s.rewards:
                    return
                if s.final:
                    self._victory(s, notes)
                    return
                self._start_regen(s, notes)
            elif p == "regen":
                if len(s.hand) < s.max_hp and s.regen_draws < 2 and s.combat_pile > 0:
                    return
                s.phase = "reveal"
            else:  # death: waits for the Hero's answer
                return

    def _auto_duty(self, s: HouskaState, d: Duty, notes: list[Announcement]) -> bool:
        """Resolve the front duty if nothing needs to be shown; True if it was resolved."""
        k = d.kind
        if k == "heal":
            if len(s.hand) >= s.max_hp or s.combat_pile == 0:
                s.duties.pop(0)
                if len(s.hand) < s.max_hp:
                    notes.append(state_change(
                        f"combat_pile is empty: healed to {len(s.hand)}/{s.max_hp} only",
                        hp=len(s.hand)))
                return True
            return False
        if k == "shuffle":
            s.duties.pop(0)
            s.shuffles += 1
            notes.append(state_change("Shuffle combat_pile well", pile="combat_pile"))
            return True
        if k == "marker":
            if len(s.marker) == 1 and not self._marker_possible(s, d.rank):
                s.duties.pop(0)
                notes.append(state_change(
                    f"No {rank_text(d.rank)} can be in combat_pile: the referee keeps Max HP "
                    f"{s.max_hp}; {s.marker[0]} stays on max_hp_card", max_hp=s.max_hp))
                return True
            return False
        if k in ("bodyguard", "monster_play") and s.combat_pile == 0:
            s.duties.pop(0)
            what = "no bodyguard" if k == "bodyguard" else "the monster is exhausted"
            notes.append(state_change(f"combat_pile is empty: {what}"))
            return True
        return False

    def _marker_possible(self, s: HouskaState, rank: int) -> bool:
        if s.combat_pile == 0:
            return False
        r = rank_text(rank)
        if any(c.rank == r for c in s.combat_known):
            return True
        return len(s.pool) > s.monster_pile and any(c.rank == r for c in s.pool)

    def _need_up(self, s: HouskaState) -> int:
        king = s.monster is not None and s.monster.rank == "K"
        return 2 if king and self.king_both else 1

    def _observation(self, s: HouskaState) -> tuple[int, int]:
        """(observation cards on the field, how many of them face up)."""
        n = up = 0
        for f in s.table:
            if f.role == "observation":
                n += 1
                up += f.card is not None
        return n, up

    def _observation_complete(self, s: HouskaState) -> bool:
        n, up = self._observation(s)
        full = n >= 2 or s.combat_pile == 0
        return full and up == min(self._need_up(s), n)

    def _start_initial_attack(self, s: HouskaState, notes: list[Announcement]) -> None:
        s.phase, s.exchange, s.placed, s.hero_done = "hero", 1, 0, False
        s.exchanges += 1
        new: list[Duty] = []
        for f in s.table:
            if f.role == "observation" and f.card is not None and not f.monster_play:
                f.monster_play = True
                s.monster_played += 1
                new += self._placed(s, f, notes)
        s.duties.extend(new)

    def _hero_step_over(self, s: HouskaState) -> bool:
        if s.hero_done or not s.hand:
            return True
        return s.placed >= (2 if s.exchange == 1 else 1)

    def _start_monster_step(self, s: HouskaState, notes: list[Announcement]) -> None:
        s.phase, s.hero_done = "monster", True
        if not s.hand and s.placed == 0:
            notes.append(state_change("The Hero's hand is empty: the monster goes on"))
        if s.exchange == 1:
            if s.hidden_count():
                s.duties.append(Duty("reveal"))
            if s.monster is not None and s.monster.rank == "K":
                s.duties.append(Duty("monster_play"))
        elif s.monster_played < s.budget and s.combat_pile > 0:
            s.duties.append(Duty("monster_play"))
        else:
            why = "combat_pile is empty" if s.combat_pile == 0 else f"all {s.budget} cards played"
            notes.append(state_change(f"The monster is exhausted ({why}): it plays nothing"))

    def _compare(self, s: HouskaState, notes: list[Announcement]) -> None:
        h, m = s.sums()
        win = h >= m if self.hero_wins_ties else h > m
        if win:
            s.defeated += 1
            s.steals[HERO].clear()
            s.steals[MONSTER].clear()
            s.phase = "cleanup"
            notes.append(announce(
                f"Hero {h} vs Monster {m}: the Hero defeats {s.monster} (exchange {s.exchange})",
                hero=h, monster=m, winner="hero", defeated=s.defeated))
            return
        if s.hand:
            s.phase, s.exchange, s.placed, s.hero_done = "hero", s.exchange + 1, 0, False
            s.exchanges += 1
            notes.append(announce(
                f"Hero {h} vs Monster {m}: the monster leads; exchange {s.exchange}: place 1 card",
                hero=h, monster=m, winner="monster", exchange=s.exchange, plays_left=s.plays_left()))
            return
        if s.hero_points > 0:
            s.phase = "death"
            choices = ["hero_point"] if self.death_mandatory else ["hero_point", "defeat"]
            notes.append(ask(
                f"Hero {h} vs Monster {m} and your hand is empty: move a joker to "
                f"hero_points_used to heal" + ("" if self.death_mandatory else ", or answer defeat"),
                choices, hero=h, monster=m))
            return
        self._defeat(s, notes, f"Hero {h} vs Monster {m} with an empty hand and no Hero Points")

    def _end_cleanup(self, s: HouskaState, notes: list[Announcement]) -> None:
        lost = s.encounter_start_hp - len(s.hand)
        s.hp_lost += max(0, lost)
        notes.append(damage(
            f"Cleanup done; the fight cost {max(0, lost)} HP: HP {len(s.hand)}/{s.max_hp}",
            hp=len(s.hand), max_hp=s.max_hp, lost=max(0, lost)))
        if s.rewards:
            s.phase = "rewards"
        else:
            self._start_regen(s, notes)

    def _start_regen(self, s: HouskaState, notes: list[Announcement]) -> None:
        s.phase, s.regen_draws = "regen", 0

    def _victory(self, s: HouskaState, notes: list[Announcement]) -> None:
        s.phase, s.result = "over", "victory"
        notes.append(result(
            f"Victory! monster_pile is empty: {plural(s.defeated, 'monster')} defeated, "
            f"{plural(s.hero_points, 'Hero Point')} left", winner=HERO, defeated=s.defeated,
            hero_points=s.hero_points))

    def _defeat(self, s: HouskaState, notes: list[Announcement], why: str) -> None:
        s.phase, s.result = "over", "defeat"
        notes.append(result(
            f"Game over: {why}; the Hero falls in encounter {s.encounter} "
            f"({plural(s.defeated, 'monster')} defeated)", winner=MONSTER, defeated=s.defeated))

    # ==== placing a card (steal check, then its ability; docs/rules/houska_castle.md) ========
    def _placed(self, s: HouskaState, f: FieldCard, notes: list[Announcement]) -> list[Duty]:
        """A card was placed for ``f.side``: resolve a queued steal or its ability. Returns
        the duties it creates (the caller puts them in order)."""
        assert f.card is not None
        owner = f.side
        thief = other(owner)
        # A bodyguard is not "played": no steal takes it (and none can be waiting for it:
        # the King it guards would have been taken first).
        if s.steals[thief] and f.role != "bodyguard":
            queen = s.steals[thief].pop(0)
            f.side, f.thief, f.role = thief, queen, "stolen"
            if f.monster_play:
                f.monster_play = False
                s.monster_played -= 1
            notes.append(damage(f"{queen} steals {f.card}: it now counts for the {thief}",
                                card=str(f.card), queen=str(queen), side=thief))
            return [] if f.zone == FIELD[thief] else [Duty("steal", f.card)]
        if f.role == "bodyguard":
            return []
        rank = f.card.rank
        if rank == "J":
            targets = [g for g in s.table if g.side == thief and g.counting]
            if not targets:
                notes.append(state_change(f"{f.card}: the {thief} has no card to nullify"))
                return []
            t = min(targets, key=lambda g: (s.value(g), g.seq))
            t.nullified = True
            assert t.card is not None
            notes.append(damage(f"{f.card} nullifies {t.card}: turn it face down",
                                card=str(t.card), jack=str(f.card)))
            return [Duty("nullify", t.card)]
        if rank == "Q":
            s.steals[owner].append(f.card)
            notes.append(state_change(f"{f.card} will steal the {thief}'s next card",
                                      queen=str(f.card), victim=thief))
            return []
        if rank == "K":
            notes.append(state_change(
                f"{f.card} brings a bodyguard: draw the top card of combat_pile onto {FIELD[owner]}"))
            return [Duty("bodyguard", f.card, owner)]
        return []

    def _level_up(self, s: HouskaState, ace: Card, notes: list[Announcement]) -> list[Duty]:
        s.artifacts.append(ace)
        s.buff[ace.suit] += 1
        s.max_hp += 1
        notes.append(damage(
            f"Level up with {ace}: Max HP {s.max_hp}, {SUIT_NAMES[ace.suit]} +{s.buff[ace.suit]}",
            max_hp=s.max_hp, buff={k: v for k, v in s.buff.items() if v}))
        tail = [Duty("heal"), Duty("shuffle")] if self.heal_first else [Duty("shuffle"), Duty("heal")]
        return [Duty("marker", rank=s.max_hp), *tail]

    # ==== what to say ======================================================================
    def _sums_note(self, s: HouskaState) -> Announcement:
        h, m = s.sums()
        k = s.plays_left()
        return announce(
            f"Hero {h} vs Monster {m}; the monster may play {k} more card{'s' if k != 1 else ''}",
            hero=h, monster=m, plays_left=k, hp=len(s.hand))

    def duty_text(self, s: HouskaState, d: Duty) -> str:
        k = d.kind
        if k == "heal":
            return f"draw from combat_pile until your hand holds {s.max_hp} cards"
        if k == "marker":
            if len(s.marker) == 1:
                return (f"level up: take a {rank_text(d.rank)} from combat_pile onto max_hp_card "
                        f"(or report no_marker)")
            return f"put the old marker {s.marker[0]} at the bottom of combat_pile"
        if k == "bodyguard":
            return f"draw the top card of combat_pile onto {FIELD[d.side or HERO]} as {d.card}'s bodyguard"
        if k == "steal":
            f = s.find(d.card) if d.card else None
            return f"move {d.card} under the Queen on {FIELD[f.side] if f else 'the other field'}"
        if k == "nullify":
            return f"turn {d.card} face down (nullified)"
        if k == "reveal":
            return "turn up the hidden observation card (the monster's attack)"
        if k == "monster_play":
            return "the monster plays the top card of combat_pile onto monster_field"
        if k == "to_rewards":
            return f"move {d.card} to monster_rewards (an ace is a reward, not a fighter)"
        return "shuffle combat_pile"

    def expect(self, s: HouskaState) -> str:
        """One line: what the referee waits for now (the LEGAL announcement)."""
        if s.duties:
            t = self.duty_text(s, s.duties[0])
            return t[0].upper() + t[1:]
        p = s.phase
        if p == "setup":
            return "Set up and report the Max HP marker: setup marker=5S (monster_pile=25)"
        if p == "deal":
            return "Deal: draw 5 cards from combat_pile into hand"
        if p == "reveal":
            return "Reveal the top card of monster_pile onto monster_slot"
        if p == "regen":
            k = min(2 - s.regen_draws, s.max_hp - len(s.hand))
            return (f"HP Regen: draw up to {k} card{'s' if k != 1 else ''} from combat_pile into hand, "
                    f"then end_turn or reveal the next monster")
        if p == "observe":
            if self._need_up(s) == 2:
                return "Observation (King): 2 cards from combat_pile onto monster_field, both turned up"
            return "Observation: 2 cards from combat_pile face down onto monster_field, turn one up"
        if p == "hero":
            if s.exchange == 1:
                if s.placed == 0:
                    return ("Initial attack: place 2 cards from hand onto hero_field" if self.exactly_2
                            else "Initial attack: place 1 or 2 cards from hand onto hero_field")
                return "Place a second card, or end_turn"
            return f"Exchange {s.exchange}: place 1 card from hand onto hero_field"
        if p == "death":
            if self.death_mandatory:
                return "Use a Hero Point: move a joker from hero_points to hero_points_used"
            return "Move a joker from hero_points to hero_points_used, or answer defeat"
        if p == "cleanup":
            return "Cleanup: put every field card and the monster under combat_pile"
        if p == "rewards":
            return "Collect the rewards: move each ace from monster_rewards to artifacts"
        return ""


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _draws(cards: list[Card]) -> list[Move]:
    return [mv.DrawAce(c) if c.rank == "A" else mv.Draw(c) for c in cards]


def _touches_field(move: Move) -> bool:
    return isinstance(move, (mv.FieldDraw, mv.TurnUp, mv.TurnDown, mv.Play, mv.Cross, mv.MonsterAce,
                             mv.AceToRewards, mv.DrawAce))


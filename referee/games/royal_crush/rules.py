"""Royal Crush's rules (docs/rules/royal_crush.md): what is legal in a state and what each move
does, one handler a move type. The deal, the dice and the ladder checks are here; a conquest's
steps C3-C6 are in ``conquest.py`` and its aftermath C7-C9 in ``aftermath.py``, the two parts
of :class:`Rules` by phase."""

from __future__ import annotations

from typing import Any

import referee.games.royal_crush.moves as mv
from referee.announcements import Announcement, announce, legal, state_change
from referee.cards import Card
from referee.core import Move, handler, handles, move_table
from referee.errors import IllegalMove
from referee.games.royal_crush.aftermath import AftermathRules
from referee.games.royal_crush.conquest import ConquestRules
from referee.games.royal_crush.resolve import ScoringRules
from referee.games.royal_crush.state import (
    ALLIANCES,
    CLEANUP,
    COMMIT,
    DEAL,
    DECK_SIZE,
    DECLARE,
    DRAW,
    FIRST_ROLL,
    OVER,
    REVEAL,
    ROLLOFF,
    SIDES,
    CrushState,
)
from referee.games.royal_crush.variants import Variants

MAX_PLAYERS = 7


def player_ids(n: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(1, n + 1))


def zone_ids(players: tuple[str, ...]) -> frozenset[str]:
    per_player = [f"{z}_{p}" for p in players for z in ("hand", "commit", "ladder")]
    return frozenset(["draw_pile", "side_attacker", "side_victim", "dice_tray", *per_player])


class Rules(ConquestRules, AftermathRules):
    """The rules of one configured game (``v``: its variants; players seated p1..pN)."""

    def __init__(self, variants: Variants):
        self.v = variants
        n = int(variants.players)
        self.players = player_ids(n)
        self.zones = zone_ids(self.players)
        self.dice_count = 1 if variants.dice == "1d6" else 2
        self.scoring = ScoringRules(
            ally_may_play_joker=bool(variants.ally_may_play_joker),
            two_kings_suppress=bool(variants.two_kings_suppress),
            combo_mode=bool(variants.combo_mode),
            combo_scope=str(variants.combo_scope),
        )
        self.no_draw = bool(variants.no_draw)
        self.role_reversal = bool(variants.role_reversal)
        self.hand_size = self._hand_size(n)
        self.handlers = move_table(self)

    def _hand_size(self, n: int) -> int:
        """7 cards; No Draw deals 13, or as many as the deck allows (A1 x No Draw)."""
        if not self.no_draw:
            return 7
        if self.v.no_draw_deal == "even_split":
            return DECK_SIZE // n
        return min(13, DECK_SIZE // n)

    # ---- legal moves ---------------------------------------------------------------------
    def legal(self, state: CrushState) -> list[Move]:
        s = state
        moves: list[Move] = []
        if s.phase == DEAL:
            moves += [mv.DealCard(p) for p in s.players if s.hand[p] < s.hand_size]
            moves.append(mv.DealAll())
        elif s.phase in (FIRST_ROLL, ROLLOFF):
            for p in s.rollers:
                if p not in s.rolls:
                    moves += [mv.Roll(p, v) for v in _dice_outcomes(self.dice_count)]
        elif s.phase == DECLARE:
            assert s.conquest
            moves += [mv.Declare(s.conquest.attacker, v) for v in self._victims(s)]
        elif s.phase == ALLIANCES:
            moves += self._alliance_moves(s)
        elif s.phase in (COMMIT, REVEAL):
            moves += self._commit_moves(s)
        elif s.phase == CLEANUP:
            moves += self._cleanup_moves(s)
        elif s.phase == DRAW:
            moves += [mv.Draw(p) for p in dict.fromkeys(s.drawers)]
        if s.phase == ROLLOFF:
            moves += self._return_moves(s)
        moves += [mv.CheckLadder(p, s.ladder[p]) for p in s.players]
        return moves

    def _victims(self, s: CrushState) -> list[str]:
        assert s.conquest
        return [p for p in s.active() if p != s.conquest.attacker]

    def _alliance_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q and q.victim
        moves: list[Move] = [mv.LockSides()]
        others = [p for p in s.active() if p not in (q.attacker, q.victim)]
        for p in others:
            if p in q.allies:
                moves.append(mv.Leave(p))
            elif s.hand[p] > 0:
                moves += [mv.Join(p, side) for side in SIDES if self._join_error(s, p, side) is None]
            for side in SIDES:
                by = q.principal(side)
                assert by
                if p not in q.excluded.get(side, []):
                    moves.append(mv.Exclude(by, p))
                    if p not in q.invited.get(side, []):
                        moves.append(mv.Invite(by, p))
        if not q.allies:
            moves.append(mv.Countdown())
        moves += [mv.Commit(p) for p in self._participants(q) if self._commit_error(s, p, None) is None]
        return moves

    def _commit_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q
        moves: list[Move] = []
        if s.phase == COMMIT:
            for p in self._participants(q):
                if self._commit_error(s, p, None) is None:
                    moves.append(mv.Commit(p))
            moves += [mv.Uncommit(p) for p, slot in q.slots.items() if slot.facedown]
            if self._countdown_error(s) is None:
                moves.append(mv.Countdown())
        if s.phase == REVEAL or self._countdown_error(s) is None:
            for p, slot in q.slots.items():
                if slot.facedown:
                    moves += [mv.Flip(p, c) for c in self._possible_cards(s, p)]
        return moves

    def _cleanup_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q
        moves: list[Move] = []
        for p, slot in q.slots.items():
            counted = list(slot.shown)
            for c in slot.returned:
                counted.remove(c)
            moves += [mv.Sweep(p, c) for c in dict.fromkeys(counted)]
        return moves + self._return_moves(s)

    def _return_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q
        return [mv.ReturnCard(p, c) for p, slot in q.slots.items() for c in dict.fromkeys(slot.returned)]

    # ---- apply ---------------------------------------------------------------------------
    def apply(self, state: CrushState, move: Move) -> list[Announcement]:
        return handler(self.handlers, move, "Royal Crush")(state, move)

    # deal and first roll
    @handles(mv.DealCard)
    def _do_DealCard(self, s: CrushState, m: mv.DealCard) -> list[Announcement]:
        self._need(s, DEAL, "deal")
        if s.hand[m.player] >= s.hand_size:
            raise IllegalMove(f"{m.player} already has {s.hand_size} cards: deal to {self._short_hands(s)}")
        self._take_from_pile(s, m.player)
        return self._after_deal(s)

    @handles(mv.DealAll)
    def _do_DealAll(self, s: CrushState, m: mv.DealAll) -> list[Announcement]:
        self._need(s, DEAL, "deal")
        for p in s.players:
            while s.hand[p] < s.hand_size:
                self._take_from_pile(s, p)
        return self._after_deal(s)

    def _after_deal(self, s: CrushState) -> list[Announcement]:
        if any(s.hand[p] < s.hand_size for p in s.players):
            return []
        s.phase = FIRST_ROLL
        s.rollers = list(s.players)
        dice = self.v.dice
        return [
            announce(f"Dealt. Each player rolls {dice}: the highest total attacks first.", **self._status(s)),
            legal(f"Roll {dice}: {', '.join(s.rollers)}", rollers=list(s.rollers)),
        ]

    @handles(mv.Roll)
    def _do_Roll(self, s: CrushState, m: mv.Roll) -> list[Announcement]:
        if s.phase not in (FIRST_ROLL, ROLLOFF):
            raise IllegalMove(f"No dice roll is due now: {self.expect(s)}")
        if m.player not in s.rollers:
            raise IllegalMove(f"{m.player} does not roll now: {', '.join(s.rollers)} roll")
        if len(m.values) != self.dice_count or any(not 1 <= v <= 6 for v in m.values):
            raise IllegalMove(
                f"A roll is {self.dice_count} die value{'s' if self.dice_count > 1 else ''} 1-6 "
                f"(dice: {self.v.dice}), got {list(m.values)}"
            )
        corrected = m.player in s.rolls
        s.rolls[m.player] = list(m.values)
        verb = "corrected to" if corrected else "rolls"
        notes = [state_change(f"{m.player} {verb} {'+'.join(map(str, m.values))} = {sum(m.values)}",
                              player=m.player, values=list(m.values))]
        waiting = [p for p in s.rollers if p not in s.rolls]
        if waiting:
            return notes
        totals = {p: sum(s.rolls[p]) for p in s.rollers}
        best = max(totals.values())
        top = [p for p in s.rollers if totals[p] == best]
        s.bump("rerolls" if len(top) > 1 else "roll_rounds", 1)
        if len(top) > 1:
            s.rollers, s.rolls = top, {}
            notes.append(announce(f"Tie at {best}: {' and '.join(top)} roll again", rollers=top))
            return notes
        winner = top[0]
        s.rollers, s.rolls = [], {}
        if s.phase == FIRST_ROLL:
            notes.append(state_change(f"{winner} rolls highest ({best}) and attacks first", first=winner))
            return notes + self._start_conquest(s, winner)
        q = s.conquest
        assert q and q.resolution
        side = q.resolution.sides[winner]
        q.resolution.winner_side = side
        notes.append(announce(f"{winner} wins the roll-off ({best}): the {side} side wins", winner_side=side))
        return notes + self._finish_conquest(s)

    # C1-C2
    @handles(mv.CheckLadder)
    def _do_CheckLadder(self, s: CrushState, m: mv.CheckLadder) -> list[Announcement]:
        if m.player not in s.ladder:
            raise IllegalMove(f"There is no player {m.player}")
        if s.ladder[m.player] != m.spot:
            raise IllegalMove(f"{m.player}'s token belongs on {s.ladder[m.player]}, not {m.spot}")
        return [state_change(f"{m.player}'s token on {m.spot}: correct", player=m.player, spot=m.spot)]

    # ---- helpers -------------------------------------------------------------------------
    def _need(self, s: CrushState, phase: str, what: str) -> None:
        if s.phase != phase:
            raise IllegalMove(f"Cannot {what} now: {self.expect(s)}")

    def _short_hands(self, s: CrushState) -> str:
        return ", ".join(p for p in s.players if s.hand[p] < s.hand_size)

    def expect(self, s: CrushState) -> str:
        """What the table should do next, for reject reasons."""
        q = s.conquest
        if s.phase == DEAL:
            return f"finish the deal ({self._short_hands(s)} need cards)"
        if s.phase in (FIRST_ROLL, ROLLOFF):
            waiting = [p for p in s.rollers if p not in s.rolls]
            return f"waiting for dice from {', '.join(waiting)}"
        if q is None or s.phase == OVER:
            return "the game is over"
        if s.phase == DECLARE:
            return f"{q.attacker} names a victim"
        if s.phase == ALLIANCES:
            return "alliances are open; lock the sides to start commitments"
        if s.phase == COMMIT:
            return "commitments are being placed"
        if s.phase == REVEAL:
            return "reveal the commitments"
        if s.phase == CLEANUP:
            return "clear the mats (cards under the draw pile, returned cards to their hands)"
        if s.phase == DRAW:
            return f"{', '.join(s.drawers)} draw a card"
        return s.phase

    def _where(self, s: CrushState, c: Card) -> str:
        for p, known in s.hand_known.items():
            if c in known:
                return f"{c} is known to be in {p}'s hand"
        if any(c in b for b in s.draw_under):
            return f"{c} was put under the draw pile"
        q = s.conquest
        if q:
            for p, slot in q.slots.items():
                if c in slot.shown:
                    return f"{c} is already on the table in {p}'s slot"
        return f"{c} is not in play"

    def _status(self, s: CrushState) -> dict[str, Any]:
        q = s.conquest
        return {
            "phase": s.phase,
            "conquest": s.conquests,
            "attacker": q.attacker if q else None,
            "victim": q.victim if q else None,
            "ladders": dict(s.ladder),
            "hands": dict(s.hand),
            "draw_pile": s.draw_count,
        }


def _dice_outcomes(n: int) -> list[tuple[int, ...]]:
    if n == 1:
        return [(a,) for a in range(1, 7)]
    return [(a, b) for a in range(1, 7) for b in range(1, 7)]

"""Royal Shuffle's rules: when each move is legal (with the reason when it is not), what it
does to the state, and what the referee says about it (docs/rules/royal_shuffle.md)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import referee.games.royal_shuffle.moves as mv
from referee.announcements import Announcement, announce, legal, result, state_change
from referee.cards import Card
from referee.core import Move, handler, handles, move_table
from referee.errors import IllegalMove
from referee.games.royal_shuffle.scoring import (
    Settlement,
    SettlementError,
    best_settlement,
    evaluate,
)
from referee.games.royal_shuffle.state import (
    COURT_ZONES,
    DEAL,
    DRAW,
    FLIP,
    HAND,
    HAND_SIZE,
    OVER,
    PLAY,
    PLAYERS,
    STEPS,
    TURN,
    VILLAGE,
    ShuffleState,
    other,
)
from referee.games.royal_shuffle.variants import Variants

STEP_TEXT = {FLIP: "flip", DRAW: "draw", PLAY: "play"}


def round_score(score: Fraction, rounding: str) -> int:
    """One rounding, at the very end (A7): down, or toward zero for negative totals."""
    return math.floor(score) if rounding == "floor" else int(score)


def court_zone(c: Card) -> str | None:
    """The court zone of a royal card (K, Q, J, JK); None for a village card."""
    return COURT_ZONES.get(c.rank)


def places_for(c: Card) -> list[str]:
    """Where a card may be placed: either village, or its one court zone (§4.1)."""
    zone = court_zone(c)
    return [zone] if zone else [VILLAGE[p] for p in PLAYERS]


class Rules:
    def __init__(self, variants: Variants):
        self.v = variants
        self.handlers = move_table(self)

    # ---- scores ------------------------------------------------------------------------
    def settlement(self, s: ShuffleState, p: str) -> Settlement:
        if self.v.settlement == "as_laid_out":
            return evaluate(s.villages[p], s.layouts[p], s.court())
        return best_settlement(s.villages[p], s.court())

    def scores(self, s: ShuffleState) -> dict[str, tuple[int, Settlement]]:
        out = {}
        for p in PLAYERS:
            st = self.settlement(s, p)
            out[p] = (round_score(st.score, self.v.rounding), st)
        return out

    def score_note(self, s: ShuffleState, event: str = "Scores") -> Announcement:
        scores = self.scores(s)
        parts = []
        for p, (points, st) in scores.items():
            detail = st.describe()
            parts.append(f"{p} {points}" + (f" ({detail})" if detail else ""))
        return announce("Scores: " + ", ".join(parts), **self._score_data(scores, event))

    @staticmethod
    def _score_data(scores: dict[str, tuple[int, Settlement]], event: str) -> dict[str, Any]:
        return {
            "event": event,
            "scores": {p: pts for p, (pts, _) in scores.items()},
            "exact": {p: str(st.score) for p, (_, st) in scores.items()},
            "homeless": {p: [str(c) for c in st.homeless] for p, (_, st) in scores.items()},
            "derelict": {p: [str(c) for c in st.derelict] for p, (_, st) in scores.items()},
            "homes": {p: {str(a): str(b) for a, b in st.homes} for p, (_, st) in scores.items()},
        }

    # ---- what may happen now -----------------------------------------------------------
    def legal(self, s: ShuffleState) -> list[Move]:
        if s.phase == DEAL:
            moves: list[Move] = [mv.Deal(p) for p in PLAYERS if s.hand_count[p] < HAND_SIZE]
            if all(n == 0 for n in s.hand_count.values()):
                moves.append(mv.DealAll())
            if s.first is None:
                moves += [mv.FirstPlayer(p) for p in PLAYERS]
            return moves
        assert s.active is not None
        p = s.active
        moves = [mv.ClearMonarch(c) for c in s.to_discard]
        moves += [mv.CountHand(q, s.hand_count[q]) for q in PLAYERS]
        if not s.done:
            moves.append(mv.EndTurn())
        todo = s.still_to_do()
        allowed = todo[:1] if self.v.step_order == "strict" else todo
        if FLIP in allowed:
            moves += [mv.Flip(p, c, z) for c in self.pile_cards(s) for z in places_for(c)]
        if DRAW in allowed:
            moves.append(mv.Draw(p))
        if PLAY in allowed:
            moves += [mv.Play(p, c, z) for c in self.hand_cards(s, p) for z in places_for(c)]
        return moves

    def pile_cards(self, s: ShuffleState) -> list[Card]:
        """Identities the top of draw_pile can have: unseen and not known in a hand."""
        known = Counter(s.hand_known[PLAYERS[0]]) + Counter(s.hand_known[PLAYERS[1]])
        return sorted(c for c, n in s.unseen.items() if n > known[c])

    def hand_cards(self, s: ShuffleState, p: str) -> list[Card]:
        """Identities a card from ``p``'s hand can have."""
        if len(s.hand_known[p]) == s.hand_count[p]:
            return sorted(set(s.hand_known[p]))
        theirs = Counter(s.hand_known[other(p)])
        return sorted(c for c, n in s.unseen.items() if n > theirs[c])

    # ---- apply -------------------------------------------------------------------------
    def apply(self, s: ShuffleState, move: Move) -> list[Announcement]:
        return handler(self.handlers, move, "Royal Shuffle")(s, move)

    # set-up
    @handles(mv.Deal)
    def _do_Deal(self, s: ShuffleState, m: mv.Deal) -> list[Announcement]:
        self._need_deal(s)
        if s.hand_count[m.player] >= HAND_SIZE:
            raise IllegalMove(f"{m.player} already has {HAND_SIZE} cards")
        s.hand_count[m.player] += 1
        s.draw_pile -= 1
        return self._maybe_start(s)

    @handles(mv.DealAll)
    def _do_DealAll(self, s: ShuffleState, m: mv.DealAll) -> list[Announcement]:
        self._need_deal(s)
        if any(s.hand_count.values()):
            raise IllegalMove("The deal has begun: report the remaining cards one by one")
        for p in PLAYERS:
            s.hand_count[p] = HAND_SIZE
        s.draw_pile -= HAND_SIZE * len(PLAYERS)
        return self._maybe_start(s)

    @handles(mv.FirstPlayer)
    def _do_FirstPlayer(self, s: ShuffleState, m: mv.FirstPlayer) -> list[Announcement]:
        self._need_deal(s)
        if s.first is not None:
            raise IllegalMove(f"{s.first} was already chosen to start")
        s.first = m.player
        notes = [state_change(f"{m.player} won the draw of lots and starts", event="FirstPlayer",
                              player=m.player)]
        return notes + self._maybe_start(s)

    def _need_deal(self, s: ShuffleState) -> None:
        if s.phase != DEAL:
            raise IllegalMove("The deal is over")

    def _maybe_start(self, s: ShuffleState) -> list[Announcement]:
        if s.first is None or any(s.hand_count[p] < HAND_SIZE for p in PLAYERS):
            return []
        s.phase = TURN
        s.turn = 1
        s.active = s.first
        return self._turn_start(s)

    # the three steps
    @handles(mv.Flip)
    def _do_Flip(self, s: ShuffleState, m: mv.Flip) -> list[Announcement]:
        self._check_pile_step(s, m.player, FLIP)
        if m.card not in self.pile_cards(s):
            raise IllegalMove(self._not_unseen(s, m.card))
        self._check_place(m.card, m.to)
        s.draw_pile -= 1
        s.done.append(FLIP)
        notes = [state_change(f"{m.player} flips {m.card} onto {m.to}", event="Flip",
                              player=m.player, card=str(m.card), to=m.to)]
        return notes + self._place(s, m.card, m.to, "flip")

    @handles(mv.Draw)
    def _do_Draw(self, s: ShuffleState, m: mv.Draw) -> list[Announcement]:
        self._check_pile_step(s, m.player, DRAW)
        s.draw_pile -= 1
        s.hand_count[m.player] += 1
        s.done.append(DRAW)
        return self._after_step(s)

    @handles(mv.Play)
    def _do_Play(self, s: ShuffleState, m: mv.Play) -> list[Announcement]:
        if m.player != s.active and not s.done:
            raise IllegalMove(
                f"Only one card from hand per turn: {m.player}'s turn is over, {s.active} is to play")
        self._check_step(s, m.player, PLAY)
        if PLAY in s.done:
            raise IllegalMove("Only one card from hand per turn")
        if s.hand_count[m.player] == 0:
            raise IllegalMove(f"{m.player}'s hand is empty")
        if m.card not in self.hand_cards(s, m.player):
            raise IllegalMove(self._not_unseen(s, m.card, m.player))
        self._check_place(m.card, m.to)
        s.hand_count[m.player] -= 1
        if m.card in s.hand_known[m.player]:
            s.hand_known[m.player].remove(m.card)
        s.done.append(PLAY)
        notes = [state_change(f"{m.player} plays {m.card} onto {m.to}", event="Play",
                              player=m.player, card=str(m.card), to=m.to)]
        return notes + self._place(s, m.card, m.to, "hand")

    def _check_pile_step(self, s: ShuffleState, player: str, step: str) -> None:
        """A step that takes the draw pile's top (a flip or a draw): the player's, once per
        turn, with a card left to take."""
        self._check_step(s, player, step)
        if step in s.done:
            raise IllegalMove(f"Only one {step} per turn")
        if s.draw_pile == 0:
            raise IllegalMove(f"The draw pile is empty: there is nothing to {step}")

    def _check_step(self, s: ShuffleState, player: str, step: str) -> None:
        if s.phase != TURN:
            raise IllegalMove("Deal 4 cards to each player and report who starts first")
        if player != s.active:
            raise IllegalMove(f"It is {s.active}'s turn")
        if self.v.step_order == "strict" and step not in s.done:
            todo = s.still_to_do()
            if todo and todo[0] != step:
                raise IllegalMove(
                    f"Flip first, then draw, then play (step_order: strict): {STEP_TEXT[todo[0]]} now")

    def _check_place(self, c: Card, to: str) -> None:
        zone = court_zone(c)
        if zone is None:
            if to not in VILLAGE.values():
                raise IllegalMove("Number cards and aces go to a village")
            return
        if to == zone:
            return
        if c.is_joker:
            raise IllegalMove("A joker goes to the court (court_joker)")
        if to in VILLAGE.values():
            raise IllegalMove(f"Royal cards go to the court ({c} to {zone})")
        raise IllegalMove(f"{c} goes to {zone}, not {to}")

    def _not_unseen(self, s: ShuffleState, c: Card, hand_of: str | None = None) -> str:
        """Why ``c`` cannot come from the draw pile (``hand_of`` None) or from that hand."""
        source = f"{hand_of}'s hand" if hand_of else "the draw pile"
        where = s.locate(c)
        if where is not None:
            return f"{c} cannot come from {source}: it lies on {where}"
        for p, known in s.hand_known.items():
            if c in known and p != hand_of:
                return f"{c} cannot come from {source}: {p} showed it in hand"
        if hand_of is not None and s.hand_known[hand_of]:
            shown = " ".join(map(str, s.hand_known[hand_of]))
            return f"{c} cannot come from {source}: {hand_of} showed {shown}"
        return f"{c} cannot come from {source}: both jokers are out"

    # placement, monarchs and jokers
    def _place(self, s: ShuffleState, c: Card, to: str, source: str) -> list[Announcement]:
        s.unseen[c] -= 1
        if s.unseen[c] == 0:
            del s.unseen[c]
        notes: list[Announcement] = []
        if to in VILLAGE.values():
            s.villages[to.removeprefix("village_")].append(c)
        elif c.rank in ("K", "Q"):
            old = s.king if c.rank == "K" else s.queen
            if old is not None:
                s.discard.append(old)
                s.to_discard.append(old)
                title = "King" if c.rank == "K" else "Queen"
                notes.append(state_change(
                    f"{c} replaces {old} as {title}: put {old} on discard_pile",
                    event="MonarchReplaced", card=str(old), by=str(c)))
            if c.rank == "K":
                s.king = c
            else:
                s.queen = c
        elif c.rank == "J":
            s.jacks.append(c)
        else:
            s.jokers.append(c)
            return notes + self._joker(s, source)
        notes.append(self.score_note(s))
        return notes + self._after_step(s)

    def _joker(self, s: ShuffleState, source: str) -> list[Announcement]:
        how = "flipped" if source == "flip" else "played from hand"
        if self.v.joker_mode == "second_ends" and len(s.jokers) == 1:
            scores = self.scores(s)
            leader = self._winner(scores)
            lead = f"{leader} leads" if leader else "level"
            notes = [announce(
                f"Joker {how}: interim comparison {self._score_text(scores)}, {lead}; "
                "the second joker ends the reign",
                **self._score_data(scores, "JokerPlayed"), source=source, interim=True)]
            return notes + self._after_step(s)
        return self._finish(s, f"Joker {how}: the reign ends", source)

    def _finish(self, s: ShuffleState, why: str, source: str | None = None) -> list[Announcement]:
        scores = self.scores(s)
        s.phase = OVER
        s.winner = self._winner(scores)
        verdict = f"{s.winner} wins" if s.winner else "draw"
        if s.winner and scores[PLAYERS[0]][0] == scores[PLAYERS[1]][0]:
            verdict += " (fewer penalty cards)"
        s.end_reason = f"{why}: {self._score_text(scores)}, {verdict}"
        data = self._score_data(scores, "GameEnd")
        return [result(s.end_reason, winner=s.winner, by_rules=True, source=source, **data)]

    def _winner(self, scores: dict[str, tuple[int, Settlement]]) -> str | None:
        a, b = PLAYERS
        if scores[a][0] != scores[b][0]:
            return a if scores[a][0] > scores[b][0] else b
        if self.v.tie == "fewer_penalty_cards_wins":
            pa, pb = scores[a][1].penalties, scores[b][1].penalties
            if pa != pb:
                return a if pa < pb else b
        return None

    @staticmethod
    def _score_text(scores: dict[str, tuple[int, Settlement]]) -> str:
        return ", ".join(f"{p} {pts}" for p, (pts, _) in scores.items())

    @handles(mv.ClearMonarch)
    def _do_ClearMonarch(self, s: ShuffleState, m: mv.ClearMonarch) -> list[Announcement]:
        if m.card in s.to_discard:
            s.to_discard.remove(m.card)
            return []
        if m.card in (s.king, s.queen):
            raise IllegalMove(f"{m.card} stays in the court until a new "
                              f"{'King' if m.card.rank == 'K' else 'Queen'} replaces it")
        raise IllegalMove(f"{m.card} is not a replaced monarch waiting for discard_pile")

    # turns
    def _after_step(self, s: ShuffleState) -> list[Announcement]:
        notes: list[Announcement] = []
        if s.draw_pile == 0 and not s.pile_ran_out and s.phase == TURN:
            s.pile_ran_out = True
            notes.append(state_change(
                "The draw pile is empty: from now on flip and draw are skipped, play from hand",
                event="PileEmpty"))
        if s.still_to_do():
            return notes
        if s.pile_ran_out and self.v.exhaustion == "score_immediately":
            return notes + self._finish(s, "The draw pile ran out")
        return notes + self._next_turn(s)

    def _next_turn(self, s: ShuffleState) -> list[Announcement]:
        notes: list[Announcement] = []
        assert s.active is not None
        text = f"{s.active}'s turn is over"
        for _ in PLAYERS:  # a player with no cards left (and no pile) is passed over
            notes.append(state_change(text, event="TurnEnd", player=s.active))
            s.active = other(s.active)
            s.turn += 1
            s.done = []
            if s.still_to_do():
                return notes + self._turn_start(s)
            text = f"{s.active} has no cards left: the turn passes"
        return notes + self._finish(s, "No cards are left to play")

    def _turn_start(self, s: ShuffleState) -> list[Announcement]:
        assert s.active is not None
        p = s.active
        todo = s.still_to_do()
        scores = self.scores(s)
        text = f"Turn {s.turn}: {p} to {', '.join(STEP_TEXT[t] for t in todo)} ({self._score_text(scores)})"
        if s.draw_pile == 0:
            text += "; draw pile empty: no flip, no draw"
        data = {"event": "TurnStart", "turn": s.turn, "player": p, "steps": todo,
                "draw_pile": s.draw_pile, "hands": dict(s.hand_count),
                "scores": {q: pts for q, (pts, _) in scores.items()}}
        return [announce(text, **data), legal(self.expect(s), player=p, steps=todo)]

    def expect(self, s: ShuffleState) -> str:
        """What the table should do now, in words."""
        if s.phase == DEAL:
            short = [p for p in PLAYERS if s.hand_count[p] < HAND_SIZE]
            parts = [f"deal to {', '.join(short)}"] if short else []
            if s.first is None:
                parts.append("report who starts (first player=p1 or p2)")
            return "; ".join(parts)
        if s.phase == OVER:
            return "the game is over"
        p = s.active
        todo = s.still_to_do()
        words = {FLIP: "flip the top card of draw_pile into play", DRAW: f"draw a card into {HAND[p]}",
                 PLAY: f"play a card from {HAND[p]}"}
        order = todo[:1] if self.v.step_order == "strict" else todo
        joiner = ", then " if self.v.step_order == "strict" else "; "
        return f"{p}: " + joiner.join(words[t] for t in (order if order else STEPS))

    @handles(mv.EndTurn)
    def _do_EndTurn(self, s: ShuffleState, m: mv.EndTurn) -> list[Announcement]:
        if s.phase != TURN:
            raise IllegalMove(f"Not during the deal: {self.expect(s)}")
        if s.done:
            todo = ", ".join(STEP_TEXT[t] for t in s.still_to_do())
            raise IllegalMove(f"{s.active}'s turn ends by itself; still to do: {todo}")
        return [state_change(f"Turn over: now {self.expect(s)}", event="TurnEnd")]

    # what the camera cannot see
    @handles(mv.ShowHand)
    def _do_ShowHand(self, s: ShuffleState, m: mv.ShowHand) -> list[Announcement]:
        n = s.hand_count[m.player]
        if len(m.cards) != n:
            raise IllegalMove(f"{m.player} holds {n} card{'s' if n != 1 else ''}, {len(m.cards)} shown")
        theirs = Counter(s.hand_known[other(m.player)])
        for c, k in Counter(m.cards).items():
            if s.unseen.get(c, 0) - theirs[c] < k:
                raise IllegalMove(self._not_unseen(s, c, m.player))
        s.hand_known[m.player] = sorted(m.cards)
        text = f"{m.player} shows {' '.join(map(str, sorted(m.cards))) or 'an empty hand'}"
        if any(c.is_joker for c in m.cards):
            text += ": a joker, the reign ends when it is played"
        return [state_change(text, event="HandShown", player=m.player, cards=[str(c) for c in m.cards])]

    @handles(mv.CountHand)
    def _do_CountHand(self, s: ShuffleState, m: mv.CountHand) -> list[Announcement]:
        n = s.hand_count[m.player]
        if m.count != n:
            raise IllegalMove(f"{m.player} should hold {n} cards, not {m.count}: check the hand")
        return [state_change(f"{m.player} holds {n} cards: correct", event="HandCount",
                             player=m.player, count=n)]

    @handles(mv.Layout)
    def _do_Layout(self, s: ShuffleState, m: mv.Layout) -> list[Announcement]:
        if self.v.settlement != "as_laid_out":
            raise IllegalMove("Settlement is automatic (settlement: optimal_auto): no layout is read")
        if s.phase != TURN:
            raise IllegalMove("Report a layout once the game is under way")
        homes = dict(m.homes)
        if len(homes) != len(m.homes):
            raise IllegalMove("Each card lives in one place only")
        try:
            evaluate(s.villages[m.player], homes, s.court())
        except SettlementError as e:
            raise IllegalMove(str(e)) from None
        s.layouts[m.player] = homes
        return [self.score_note(s, "Layout")]


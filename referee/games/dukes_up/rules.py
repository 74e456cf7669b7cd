"""Dukes Up!'s rules: what each move means now, whether it is legal, and what it changes
(docs/rules/dukes_up.md). ``Rules.apply`` mutates a private copy of the state and raises IllegalMove
with a player-facing reason; the core referee throws that copy away on a REJECT.

The turn runs draw -> (forced castle flip) -> play -> validation -> discard. The draw step has
no "done" signal: it closes at the player's first other action, which is also when the
fill rule, the final-turn check (A5) and the forced flip (T2) are settled.
"""

from __future__ import annotations

import random

import referee.games.dukes_up.moves as mv
from referee.announcements import Announcement, announce, ask, legal, result, state_change
from referee.cards import Card
from referee.core import Move, handles, move_table
from referee.errors import IllegalMove
from referee.games.dukes_up.melds import meld_problem, show, sort_cards
from referee.games.dukes_up.state import (
    BLACK,
    CASTLE_BONUS,
    DUKES_AT_SETUP,
    HAND_LIMIT,
    MAX_DRAW,
    PLAYERS,
    RED,
    SETUP_DRAW,
    DukesState,
    Side,
    other,
    owner,
)
from referee.games.dukes_up.variants import Variants

Notes = list[Announcement]
# Moves a player makes in their play phase (each one is a "play", A13).
OWN_DUKE = "Your own dukes cannot go into a meld: switch one into your hand first (A8)"
PLAYS = (mv.Meld, mv.Shift, mv.TakeDuke, mv.TakeCastle, mv.ReturnCastle, mv.SwitchOut, mv.SwitchIn,
         mv.CreateDuke, mv.Regroup)


def actor(state: DukesState, move: Move) -> str | None:
    """Whose action ``move`` is (None: the active player's by nature, e.g. end_turn)."""
    if isinstance(move, (mv.TakeDuke, mv.TakeCastle)):
        return other(move.player) if move.player != state.active else state.active
    return getattr(move, "player", None)


class Rules:
    def __init__(self, variants: Variants):
        self.v = variants
        self.ace_wrap = bool(variants.ace_wrap)
        self.setup_steps = move_table(self, step="setup")
        self.turn_steps = move_table(self)
        self.plays = move_table(self, step="play")

    # ---- dispatch ------------------------------------------------------------------------
    def apply(self, s: DukesState, move: Move, notes: Notes) -> None:
        if s.phase == "setup":
            self._setup(s, move, notes)
            return
        if s.phase == "first":
            if not isinstance(move, mv.ChooseFirst):
                raise IllegalMove("Answer first: who plays first? (black / red)")
            s.first = move.player
            notes.append(announce(f"{move.player} plays first", event="FirstPlayer", player=move.player))
            self._start_turn(s, move.player, notes)
            return
        if s.phase == "second_discard":
            if (isinstance(move, mv.Discard) and move.player == s.active) or isinstance(move, mv.EndTurn):
                if isinstance(move, mv.Discard):
                    self._discard_card(s, move, notes)
                self._end_turn(s, notes)
                return
            if s.final_turn:
                raise IllegalMove(f"{s.active}'s final turn: discard a second card or end_turn")
            # The next player's first action ends the turn that offered a second discard.
            self._end_turn(s, notes)
        who = actor(s, move)
        if who is not None and who != s.active:
            if isinstance(move, mv.Discard) and s.phase == "draw" and s.drawn == 0 and s.prev_played:
                raise IllegalMove("Second discard only if you did not play")
            raise IllegalMove(f"It is {s.active}'s turn")
        step = self.turn_steps.get(type(move))
        if step is None:
            raise IllegalMove(f"{move.describe()} is not possible now (turn {s.turn}, {s.active} to play)")
        step(s, move, notes)

    # ---- set-up (§4) ---------------------------------------------------------------------
    def _setup(self, s: DukesState, move: Move, notes: Notes) -> None:
        step = self.setup_steps.get(type(move))
        if step is None:
            raise IllegalMove(
                "Set-up first: each player draws 4, puts 1 castle and 2 dukes face-down, then dukes_up")
        step(s, move, notes)

    @handles(mv.Draw, step="setup")
    def _setup_draw(self, s: DukesState, move: mv.Draw, notes: Notes) -> None:
        side = s.sides[move.player]
        if side.hand + side.setup_dukes + int(side.castle_down) >= SETUP_DRAW:
            raise IllegalMove(f"Set-up: {move.player} draws exactly {SETUP_DRAW} cards")
        side.draw -= 1
        side.hand += 1

    @handles(mv.PlaceDown, step="setup")
    def _place_down(self, s: DukesState, move: mv.PlaceDown, notes: Notes) -> None:
        side = s.sides[move.player]
        if side.hand == 0:
            raise IllegalMove(f"{move.player} has no card in hand to place")
        if move.zone == "castle" and side.castle_down:
            raise IllegalMove(f"{move.player} already has a castle: one castle each")
        side.hand -= 1
        if move.zone == "castle":
            side.castle_down = True
        else:
            side.setup_dukes += 1

    @handles(mv.PickUp, step="setup")
    def _pick_up(self, s: DukesState, move: mv.PickUp, notes: Notes) -> None:
        side = s.sides[move.player]
        there = side.castle_down if move.zone == "castle" else side.setup_dukes > 0
        if not there:
            raise IllegalMove(f"There is no face-down card in {move.zone}_{move.player}")
        side.hand += 1
        if move.zone == "castle":
            side.castle_down = False
        else:
            side.setup_dukes -= 1

    @handles(mv.RevealDukes, step="setup")
    def _reveal(self, s: DukesState, move: mv.RevealDukes, notes: Notes) -> None:
        for p, dukes in ((BLACK, move.black), (RED, move.red)):
            side = s.sides[p]
            if len(dukes) != DUKES_AT_SETUP:
                raise IllegalMove(f"Exactly 2 dukes: {p} shows {len(dukes)}")
            if side.hand + side.setup_dukes + int(side.castle_down) != SETUP_DRAW:
                raise IllegalMove(f"Set-up: {p} has drawn {side.hand + side.setup_dukes + side.castle_down} "
                                  f"cards, not {SETUP_DRAW}")
            if not side.castle_down or side.setup_dukes != DUKES_AT_SETUP or side.hand != 1:
                raise IllegalMove(f"Set-up: {p} needs 1 castle and 2 dukes face-down and 1 card in hand "
                                  f"(has {int(side.castle_down)}, {side.setup_dukes}, {side.hand})")
            for c in dukes:
                if owner(c) != p:
                    suits = "spades and clubs" if p == BLACK else "hearts and diamonds"
                    raise IllegalMove(f"{c} is not {p}'s: {p} has {suits}")
            if len(set(dukes)) != len(dukes):
                raise IllegalMove(f"{p} shows the same duke twice")
        for p, dukes in ((BLACK, move.black), (RED, move.red)):
            side = s.sides[p]
            side.hidden -= set(dukes)
            side.dukes = sort_cards(dukes)
            side.setup_dukes = 0
        notes.append(announce(f"Dukes Up! black dukes {show(move.black)}, red dukes {show(move.red)}",
                              event="DukesRevealed"))
        choice = self.v.first_player
        if choice == "ask":
            s.phase = "first"
            notes.append(ask("Who plays first?", list(PLAYERS), event="FirstPlayer"))
            return
        if choice == "random":  # reproducible from the log: seeded by the revealed dukes
            seed = " ".join(map(str, (*move.black, *move.red)))
            choice = random.Random(seed).choice(PLAYERS)
        s.first = choice
        notes.append(announce(f"{choice} plays first", event="FirstPlayer", player=choice))
        self._start_turn(s, choice, notes)

    # ---- turn frame (§5) -----------------------------------------------------------------
    def _start_turn(self, s: DukesState, p: str, notes: Notes) -> None:
        cap = int(self.v.max_turns)
        if cap and s.turn >= cap:
            self._game_over(s, notes, f"stopped after {cap} turns (max_turns)", by_rules=False)
            return
        side = s.sides[p]
        s.active, s.turn, s.phase = p, s.turn + 1, "draw"
        s.allowance = min(MAX_DRAW, HAND_LIMIT - side.hand)
        s.drawn = 0
        s.flip_due = s.played = s.created_duke = False
        s.switch_out = s.switch_in = s.castle_taken = s.last_stand = None
        s.taken, s.guards = [], []
        s.discards = 0
        notes.append(announce(f"Turn {s.turn}: {p} draws up to {s.allowance}", event="Turn", player=p,
                              turn=s.turn))
        self._check_exhaustion(s, notes)

    def _close_draw(self, s: DukesState, notes: Notes) -> None:
        """End the draw step at the first other action: fill rule, final turn, forced flip."""
        if s.phase != "draw":
            return
        side = s.sides[s.active]
        missing = s.allowance - s.drawn
        if self.v.draw_rule == "fill_up_to_two" and missing > 0 and side.draw + len(side.discard) > 0:
            raise IllegalMove(f"Draw {missing} more first (draw_rule fill_up_to_two: you draw {s.allowance})")
        s.phase = "play"
        if not side.dukes and side.castle_down:
            s.flip_due = True
            notes.append(legal(f"{s.active} has no dukes: flip your castle face-up", event="FlipDue"))

    def _check_exhaustion(self, s: DukesState, notes: Notes) -> None:
        """Both piles of the active player empty: no more drawing, so the draw step is over
        and this is the final turn (A5), or the end with ``exhaustion_end: immediately``."""
        side = s.sides[s.active]
        if side.draw or side.discard or s.final_turn:
            return
        s.final_turn = True
        notes.append(announce(f"Final turn for {s.active}: draw and discard piles are empty",
                              event="FinalTurn", player=s.active))
        if self.v.exhaustion_end == "immediately":
            self._game_over(s, notes, f"{s.active}'s draw and discard piles are empty")
        else:
            self._close_draw(s, notes)

    @handles(mv.Draw)
    def _turn_draw(self, s: DukesState, move: mv.Draw, notes: Notes) -> None:
        self._draw(s, move.player, notes)

    def _draw(self, s: DukesState, p: str, notes: Notes) -> None:
        side = s.sides[p]
        if s.phase != "draw":
            raise IllegalMove("The draw step is over: draw before anything else")
        if s.drawn >= s.allowance:
            if s.allowance < MAX_DRAW:
                raise IllegalMove(f"Hand limit {HAND_LIMIT}: you may draw {s.allowance}")
            raise IllegalMove(f"Draw {MAX_DRAW} cards at most")
        if side.draw == 0:
            if not side.discard:
                raise IllegalMove(f"{p} has no card left to draw")
            self._reshuffle(s, p, notes)
        side.draw -= 1
        side.hand += 1
        s.drawn += 1
        self._check_exhaustion(s, notes)

    def _reshuffle(self, s: DukesState, p: str, notes: Notes) -> None:
        side = s.sides[p]
        side.hidden |= set(side.discard)
        side.draw = len(side.discard)
        side.discard = []
        s.reshuffles += 1
        notes.append(state_change(f"{p}'s draw pile is empty: shuffle the discard pile into a new draw "
                                  f"pile ({side.draw} cards)", event="Reshuffle", player=p))

    @handles(mv.DrawDiscard)
    def _draw_discard(self, s: DukesState, move: mv.DrawDiscard, notes: Notes) -> None:
        if not self.v.draw_from_discard:
            raise IllegalMove("Draw from your draw pile (draw_from_discard is off)")
        side = s.sides[move.player]
        if s.phase != "draw":
            raise IllegalMove("The draw step is over: draw before anything else")
        if s.drawn >= s.allowance:
            raise IllegalMove(f"Hand limit {HAND_LIMIT}: you may draw {s.allowance}")
        if not side.discard or side.discard[-1] != move.card:
            top = side.discard[-1] if side.discard else "none"
            raise IllegalMove(f"Only the top card of your discard pile may be drawn (top: {top})")
        side.discard.pop()
        side.hand_known.append(move.card)
        side.hand += 1
        s.drawn += 1
        self._check_exhaustion(s, notes)

    @handles(mv.FlipCastle)
    def _flip(self, s: DukesState, move: mv.FlipCastle, notes: Notes) -> None:
        self._close_draw(s, notes)
        side = s.sides[move.player]
        if not s.flip_due:
            raise IllegalMove("A castle is turned up only at the start of a turn without dukes (A9)")
        if move.card not in side.hidden:
            where = s.locate(move.card)
            raise IllegalMove(f"{move.card} cannot be {move.player}'s castle (it is on {where})")
        side.hidden.remove(move.card)
        side.castle_down, side.castle_up, s.flip_due = False, move.card, False
        notes.append(state_change(f"{move.player}'s castle {move.card} is face-up", event="CastleRevealed",
                                  card=str(move.card)))

    # ---- play phase (T3) -----------------------------------------------------------------
    @handles(*PLAYS)
    def _play(self, s: DukesState, move: Move, notes: Notes) -> None:
        self._close_draw(s, notes)
        if s.phase == "over":
            raise IllegalMove("The game is over")
        if s.flip_due:
            raise IllegalMove("Flip your castle first")
        pending = s.switch_out is not None or s.switch_in is not None
        completes = (s.switch_out is not None and isinstance(move, mv.SwitchIn)) or (
            s.switch_in is not None and isinstance(move, mv.SwitchOut))
        if pending and not completes:
            raise IllegalMove(self._switch_problem(s) or "Finish the duke switch first")
        if self.plays[type(move)](s, move, notes) is not False:  # False: the same table again
            s.played = True

    @handles(mv.Meld, step="play")
    def _meld(self, s: DukesState, move: mv.Meld, notes: Notes) -> None:
        self._take_from_hand(s, move.player, move.card)
        self._put(s, move.card, move.meld)

    @handles(mv.Shift, step="play")
    def _shift(self, s: DukesState, move: mv.Shift, notes: Notes) -> None:
        if move.card in s.pool:
            s.pool.remove(move.card)
            self._put(s, move.card, move.meld)
            return
        src = s.meld_of(move.card)
        if src is None:
            raise IllegalMove(f"{move.card} is not on the table (it is on {s.locate(move.card)})")
        if src == move.meld:
            raise IllegalMove(f"{move.card} is already in {src}")
        self._remove_from_table(s, move.card)
        self._put(s, move.card, move.meld)

    @handles(mv.TakeDuke, step="play")
    def _meld_duke(self, s: DukesState, move: mv.TakeDuke, notes: Notes) -> None:
        self._take_duke(s, move.player, move.card, notes)
        self._put(s, move.card, move.meld)

    @handles(mv.TakeCastle, step="play")
    def _meld_castle(self, s: DukesState, move: mv.TakeCastle, notes: Notes) -> None:
        self._take_castle(s, move.player, move.card, notes)
        self._put(s, move.card, move.meld)

    def _put(self, s: DukesState, card: Card, meld: str) -> None:
        if meld == "table":  # laid on the table, its meld unnamed: grouped at validation
            s.pool.append(card)
            return
        s.melds.setdefault(meld, []).append(card)

    def _remove_from_table(self, s: DukesState, card: Card) -> None:
        if card in s.pool:
            s.pool.remove(card)
            return
        key = s.meld_of(card)
        assert key is not None
        s.melds[key].remove(card)
        if not s.melds[key]:
            del s.melds[key]

    def _take_from_hand(self, s: DukesState, p: str, card: Card) -> None:
        side = s.sides[p]
        if card in side.hand_known:
            side.hand_known.remove(card)
        elif owner(card) == p and card in side.hidden and side.hand_unknown > 0:
            side.hidden.remove(card)
        else:
            where = s.locate(card)
            seen = "" if "hidden" in where else f" (it is on {where})"
            raise IllegalMove(f"{card} is not in {p}'s hand{seen}")
        side.hand -= 1

    def _take_duke(self, s: DukesState, p: str, card: Card, notes: Notes) -> None:
        if p == s.active:
            raise IllegalMove(OWN_DUKE)
        side = s.sides[p]
        if card not in side.dukes:
            raise IllegalMove(f"{card} is not one of {p}'s dukes")
        side.dukes.remove(card)
        s.taken.append(card)
        notes.append(state_change(f"{s.active} takes {p}'s duke {card}", event="TakeDuke", card=str(card)))

    def _take_castle(self, s: DukesState, p: str, card: Card, notes: Notes) -> None:
        side = s.sides[p]
        if p == s.active:
            if not self.v.own_castle_last_stand or not s.final_turn:
                raise IllegalMove("Your own castle cannot go into a meld (A8)")
            if side.castle_up != card:
                raise IllegalMove("Only a face-up castle can go into a meld on the final turn")
            side.castle_up, s.last_stand = None, card
            notes.append(state_change(f"{p} melds its own castle {card} (last stand)", event="LastStand"))
            return
        if side.castle_up is None:
            if side.castle_down:
                raise IllegalMove("A castle can only be taken when face-up")
            raise IllegalMove(f"{p} has no castle")
        if card != side.castle_up:
            raise IllegalMove(f"{card} is not {p}'s castle ({side.castle_up})")
        side.castle_up = None
        s.castle_taken, s.guards = card, list(side.dukes)
        notes.append(state_change(f"{s.active} takes {p}'s castle {card}", event="TakeCastle",
                                  card=str(card)))

    @handles(mv.ReturnCastle, step="play")
    def _return_castle(self, s: DukesState, move: mv.ReturnCastle, notes: Notes) -> None:
        if move.player != s.active or s.last_stand != move.card:
            raise IllegalMove("Table cards cannot return to hand: only a last-stand castle goes back")
        self._remove_from_table(s, move.card)
        s.sides[move.player].castle_up, s.last_stand = move.card, None
        notes.append(state_change(f"{move.card} is back face-up on castle_{move.player}",
                                  event="ReturnCastle"))

    @handles(mv.SwitchOut, mv.SwitchIn, mv.CreateDuke, step="play")
    def _duke_change(self, s: DukesState, move: mv.SwitchOut | mv.SwitchIn | mv.CreateDuke,
                     notes: Notes) -> None:
        side = s.sides[move.player]
        if isinstance(move, mv.CreateDuke):
            if side.dukes or s.switch_out is not None:
                raise IllegalMove("A new duke only when you have none (A7)")
            if s.created_duke:
                raise IllegalMove("One new duke per turn (A7)")
            self._take_from_hand(s, move.player, move.card)
            side.dukes.append(move.card)
            s.created_duke = True
            notes.append(state_change(f"{move.player} creates the duke {move.card}", event="CreateDuke"))
            return
        if self.v.no_switch_first_turn and s.turn == 1:
            raise IllegalMove("No duke switch on the first player's first turn (no_switch_first_turn)")
        if isinstance(move, mv.SwitchOut):
            if move.card not in side.dukes:
                raise IllegalMove(f"{move.card} is not one of {move.player}'s dukes")
            if move.card == s.switch_in:
                raise IllegalMove(f"{move.card} just became a duke: move an old duke into your hand")
            side.dukes.remove(move.card)
            side.hand_known.append(move.card)
            side.hand += 1
            if s.switch_in is not None:
                notes.append(state_change(f"{move.player} switches duke {move.card} for {s.switch_in}",
                                          event="SwitchDuke"))
                s.switch_in = None
            else:
                s.switch_out = move.card
            return
        if not side.dukes and s.switch_out is None:
            raise IllegalMove("You have no duke to switch: that would be a new duke")
        self._take_from_hand(s, move.player, move.card)
        side.dukes.append(move.card)
        if s.switch_out is not None:
            notes.append(state_change(f"{move.player} switches duke {s.switch_out} for {move.card}",
                                      event="SwitchDuke"))
            s.switch_out = None
        else:
            s.switch_in = move.card

    @handles(mv.Regroup, step="play")
    def _regroup(self, s: DukesState, move: mv.Regroup, notes: Notes) -> bool:
        """The camera's new table: check conservation, take the new cards from where they can
        only have come from, and adopt the melds. False if nothing changed."""
        before = s.table_cards()
        after = {c for meld in move.melds for c in meld}
        gone = before - after
        if gone:
            raise IllegalMove(f"Table cards cannot return to hand: {show(gone)}")
        me, opp = s.active, other(s.active)
        for card in sort_cards(after - before):
            if owner(card) == opp:
                if card in s.sides[opp].dukes:
                    self._take_duke(s, opp, card, notes)
                elif card == s.sides[opp].castle_up:
                    self._take_castle(s, opp, card, notes)
                else:
                    raise IllegalMove(f"{card} is not yours to play: only {opp}'s dukes and face-up castle "
                                      "may be taken")
            elif card in s.sides[me].dukes:
                raise IllegalMove(OWN_DUKE)
            elif card == s.sides[me].castle_up:
                self._take_castle(s, me, card, notes)
            else:
                self._take_from_hand(s, me, card)
        old = sorted(tuple(sort_cards(m)) for m in s.melds.values())
        new = [tuple(sort_cards(m)) for m in move.melds]
        s.melds = {f"meld_{i}": list(m) for i, m in enumerate(new, 1)}
        pooled, s.pool = bool(s.pool), []
        if sorted(new) == old and not pooled:
            return False
        notes.append(state_change("Table: " + " | ".join(f"{k} {show(v)}" for k, v in s.melds.items()),
                                  event="Rearrange"))
        return True

    # ---- validation (T4) -----------------------------------------------------------------
    def _switch_problem(self, s: DukesState) -> str | None:
        if s.switch_out is not None:
            return f"Finish the duke switch first: put a hand card among your dukes for {s.switch_out}"
        if s.switch_in is not None:
            return f"Finish the duke switch first: move one old duke into your hand ({s.switch_in} came in)"
        return None

    def problem(self, s: DukesState) -> str | None:
        """Why the table may not be left as it is now (None: valid)."""
        switch = self._switch_problem(s)
        if switch:
            return switch
        if s.pool:
            return f"Group the cards laid on the table ({show(s.pool)}) into melds"
        for key in sorted(s.melds, key=lambda k: int(k.split("_")[1])):
            why = meld_problem(s.melds[key], self.ace_wrap)
            if why:
                return f"meld {show(s.melds[key])} {why}"
        if s.castle_taken is not None:
            table = s.table_cards()
            missing = [c for c in s.guards if c not in table]
            if missing:
                return f"Take every duke ({show(missing)}) in the same turn as the castle"
        if s.last_stand is not None and s.castle_taken is None:
            return (f"Return your castle {s.last_stand} to castle_{s.active} face-up: "
                    "the opponent's castle was not taken")
        return None

    def _validate(self, s: DukesState, notes: Notes) -> None:
        self._close_draw(s, notes)
        if s.phase == "over":
            raise IllegalMove("The game is over")
        if s.flip_due:
            raise IllegalMove("Flip your castle first")
        why = self.problem(s)
        if why:
            raise IllegalMove(why)

    # ---- discard (T5) and the end of a turn ------------------------------------------------
    def _adopt(self, s: DukesState, melds: tuple[tuple[Card, ...], ...] | None, notes: Notes) -> None:
        """Adopt a reading of the whole table (cards laid on it ungrouped, a camera's pool): a
        meld that keeps all its cards keeps its id, the others get new ids; announced."""
        if melds is None:
            return
        if {c for m in melds for c in m} != s.table_cards() or sum(map(len, melds)) != len(s.table_cards()):
            raise IllegalMove("That reading is not the table's cards")
        old = s.melds
        s.melds, s.pool = {}, []
        changed = []
        for m in melds:
            key = next((k for k, v in old.items() if set(v) <= set(m) and k not in s.melds), None)
            if key is None or set(old[key]) != set(m):
                key = key or next(f"meld_{n}" for n in range(1, 1000)
                                  if f"meld_{n}" not in old and f"meld_{n}" not in s.melds)
                changed.append(key)
            s.melds[key] = list(m)
        notes.append(state_change("Table read: " + " | ".join(f"{k} {show(s.melds[k])}" for k in changed),
                                  event="TableRead"))

    @handles(mv.Discard)
    def _discard(self, s: DukesState, move: mv.Discard, notes: Notes) -> None:
        self._close_draw(s, notes)
        self._adopt(s, move.melds, notes)
        self._validate(s, notes)
        self._discard_card(s, move, notes)
        if s.castle_taken is not None:
            self._game_over(s, notes, f"{s.active} took {other(s.active)}'s castle {s.castle_taken}")
            return
        if s.discards == 1 and not s.played and self.discard_source(s, s.active):
            s.phase = "second_discard"
            notes.append(legal(f"{s.active} did not play: discard a second card, or end_turn",
                               event="SecondDiscard"))
            return
        self._end_turn(s, notes)

    def _discard_card(self, s: DukesState, move: mv.Discard, notes: Notes) -> None:
        p, card = move.player, move.card
        side = s.sides[p]
        if owner(card) != p:
            raise IllegalMove(f"Only your own colour: {card} is {other(p)}'s")
        bottom = False
        if move.source == "hand":
            self._take_from_hand(s, p, card)
        elif move.source == "draw_pile":
            if side.draw == 0:
                raise IllegalMove("Your draw pile is empty")
            if card not in side.hidden:
                raise IllegalMove(f"{card} cannot come from your draw pile (it is on {s.locate(card)})")
            side.hidden.remove(card)
            side.draw -= 1
            bottom = bool(self.v.draw_from_discard)
        else:
            key = s.meld_of(card)
            if key is None:
                raise IllegalMove(f"{card} is not on the table (it is on {s.locate(card)})")
            rest = [c for c in s.melds[key] if c != card]
            why = meld_problem(rest, self.ace_wrap)
            if why:
                raise IllegalMove(f"Removing {card} leaves {show(rest)}: that meld {why}")
            self._remove_from_table(s, card)
        if bottom:
            side.discard.insert(0, card)
        else:
            side.discard.append(card)
        s.discards += 1
        notes.append(state_change(f"{p} discards {card} from {move.source}", event="Discard"))

    def discard_source(self, s: DukesState, p: str) -> bool:
        """Is there anything ``p`` could discard (A18)?"""
        side = s.sides[p]
        if side.hand or side.draw:
            return True
        for cards in s.melds.values():
            for c in cards:
                if owner(c) == p and meld_problem([x for x in cards if x != c], self.ace_wrap) is None:
                    return True
        return False

    @handles(mv.EndTurn)
    def _end_turn_request(self, s: DukesState, move: mv.EndTurn, notes: Notes) -> None:
        self._close_draw(s, notes)
        self._adopt(s, move.melds, notes)
        self._validate(s, notes)
        if s.castle_taken is not None:
            self._game_over(s, notes, f"{s.active} took {other(s.active)}'s castle {s.castle_taken}")
            return
        if self.discard_source(s, s.active):
            raise IllegalMove("Discard one card to end your turn "
                              "(from hand, draw pile or your colour off the table)")
        notes.append(announce(f"{s.active} has nothing to discard: the turn ends (A18)", event="NoDiscard"))
        self._end_turn(s, notes)

    def _end_turn(self, s: DukesState, notes: Notes) -> None:
        s.prev_played = s.played
        if s.final_turn:
            self._game_over(s, notes, f"{s.active}'s final turn is over (draw and discard piles empty)")
            return
        self._start_turn(s, other(s.active), notes)

    # ---- end and scoring (§7) ------------------------------------------------------------
    def scores(self, s: DukesState) -> dict[str, int]:
        out = {p: 0 for p in PLAYERS}
        for cards in s.melds.values():
            for c in cards:
                out[owner(c)] += 1
        for p, side in s.sides.items():
            out[p] += len(side.dukes) + int(side.has_castle)
        taker = s.castle_taken_by
        if taker is not None:
            out[taker] += CASTLE_BONUS
            if self.v.castle_points_to == "taker":
                out[other(taker)] -= 1
                out[taker] += 1
        return out

    def _game_over(self, s: DukesState, notes: Notes, reason: str, by_rules: bool = True) -> None:
        if s.castle_taken is not None:
            s.castle_taken_by = s.active
        s.phase = "over"
        s.scores = self.scores(s)
        b, r = s.scores[BLACK], s.scores[RED]
        s.winner = BLACK if b > r else RED if r > b else None
        s.end_reason, s.by_rules = reason, by_rules
        verdict = f"{s.winner} wins" if s.winner else "a draw"
        notes.append(result(f"{reason}: black {b}, red {r}: {verdict}", event="GameOver", winner=s.winner,
                            scores=dict(s.scores), by_rules=by_rules))


def side_summary(side: Side) -> str:
    castle = "face-down" if side.castle_down else (str(side.castle_up) if side.castle_up else "taken")
    return (f"hand {side.hand}, dukes {show(side.dukes) or '-'}, castle {castle}, "
            f"draw {side.draw}, discard {len(side.discard)}")

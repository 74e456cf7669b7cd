"""Royal Crush referee: conquests with attacker, victim and allies, royal powers, the ladder.

The rules follow ``shared/rules/royal_crush.md`` (section numbers C1-C9 and ambiguities A1-A22
below refer to it). What the camera cannot see arrives as game observations (see
``docs/royal_crush.md``): dice readings, the declared victim, alliances, the reveal of the
face-down commitments. Hands stay hidden: the referee counts cards and tracks which
identities are still unseen, so a revealed card that cannot be in that hand is refused.
"""

from __future__ import annotations

from typing import Any

from referee.announcements import Announcement, announce, damage, legal, result, state_change
from referee.cards import Card
from referee.config import GameConfig
from referee.core import Game, Move, Outcome
from referee.errors import IllegalMove, InvariantError
from referee.games.royal_crush_observe import interpret_observation, validate_observation
from referee.games.royal_crush_resolve import ScoringRules, recount, resolve, validate_slot
from referee.games.royal_crush_sim import CrushSimulator
from referee.games.royal_crush_state import (
    ALLIANCES,
    CLEANUP,
    COMMIT,
    DEAL,
    DECK_COUNTS,
    DECK_SIZE,
    DECLARE,
    DRAW,
    FIRST_ROLL,
    LADDER_TOP,
    OVER,
    REVEAL,
    ROLLOFF,
    SIDES,
    CheckLadder,
    Commit,
    Conquest,
    Countdown,
    CrushState,
    DealAll,
    DealCard,
    Declare,
    Draw,
    Exclude,
    Flip,
    Invite,
    Join,
    Leave,
    LockSides,
    ReturnCard,
    Reveal,
    Roll,
    Slot,
    Sweep,
    Uncommit,
)

MAX_PLAYERS = 7


def player_ids(n: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(1, n + 1))


def zone_ids(players: tuple[str, ...]) -> frozenset[str]:
    per_player = [f"{z}_{p}" for p in players for z in ("hand", "commit", "ladder")]
    return frozenset(["draw_pile", "side_attacker", "side_victim", "dice_tray", *per_player])


class RoyalCrush(Game):
    """Royal Crush for 3 to 7 players (4 by default), seated p1..pN clockwise."""

    name = "royal_crush"
    players = player_ids(4)
    zones = zone_ids(player_ids(MAX_PLAYERS))
    observation_types = (
        "move", "answer", "end_turn", "deal", "dice", "declare", "join", "leave", "invite",
        "exclude", "lock_sides", "countdown", "reveal", "ladder",
    )

    def __init__(self, config: GameConfig):
        super().__init__(config)
        n = int(self.v.get("players", 4))
        self.players = player_ids(n)
        self.zones = zone_ids(self.players)
        self.dice_count = 1 if self.v.get("dice") == "1d6" else 2
        self.rules = ScoringRules(
            ally_may_play_joker=bool(self.v.get("ally_may_play_joker", False)),
            two_kings_suppress=bool(self.v.get("two_kings_suppress", False)),
            combo_mode=bool(self.v.get("combo_mode", False)),
            combo_scope=str(self.v.get("combo_scope", "side")),
        )
        self.no_draw = bool(self.v.get("no_draw", False))
        self.role_reversal = bool(self.v.get("role_reversal", False))
        self.hand_size = self._hand_size(n)

    def _hand_size(self, n: int) -> int:
        """7 cards; No Draw deals 13, or as many as the deck allows (A1 x No Draw)."""
        if not self.no_draw:
            return 7
        if self.v.get("no_draw_deal") == "even_split":
            return DECK_SIZE // n
        return min(13, DECK_SIZE // n)

    # ---- state ---------------------------------------------------------------------------
    def new_state(self) -> CrushState:
        return CrushState(
            players=self.players,
            hand_size=self.hand_size,
            ladder={p: 0 for p in self.players},
            hand={p: 0 for p in self.players},
            hand_known={p: [] for p in self.players},
            draw_top=DECK_SIZE,
        )

    def copy_state(self, state: CrushState) -> CrushState:
        return state.clone()

    def is_terminal(self, state: CrushState) -> bool:
        return state.phase == OVER

    def outcome(self, state: CrushState) -> Outcome | None:
        if state.phase != OVER:
            return None
        winner = "+".join(state.winners) if state.winners else None
        return Outcome(winner, state.end_reason, state.by_rules)

    def stats(self, state: CrushState) -> dict[str, Any]:
        out: dict[str, Any] = {"conquests": state.conquests}
        out.update(sorted(state.counters.items()))
        out["top_ladder"] = max(state.ladder.values())
        return out

    def start_announcements(self, state: CrushState) -> list[Announcement]:
        n = len(self.players)
        return [
            announce(
                f"Royal Crush, {n} players {', '.join(self.players)} (clockwise). Shuffle the 54 "
                f"cards and deal {self.hand_size} face-down to each player; the rest is the draw pile.",
                **self._status(state),
            ),
            legal(f"Deal {self.hand_size} cards to each of {', '.join(self.players)}", phase=DEAL),
        ]

    def choice_label(self, state: CrushState, move: Move) -> str:
        if isinstance(move, Join):
            return move.side
        if isinstance(move, (Invite, Exclude)):
            return move.by
        if isinstance(move, (Roll, Flip, Sweep, ReturnCard, Commit, Uncommit, Draw, DealCard)):
            return move.player
        return move.describe()

    # ---- observations --------------------------------------------------------------------
    def validate(self, obs, loc: str = "") -> None:
        super().validate(obs, loc)
        validate_observation(self, obs, loc)

    def interpret(self, state: CrushState, obs) -> list[Move]:
        return interpret_observation(self, state, obs)

    # ---- legal moves ---------------------------------------------------------------------
    def _legal_moves(self, state: CrushState) -> list[Move]:
        s = state
        moves: list[Move] = []
        if s.phase == DEAL:
            moves += [DealCard(p) for p in s.players if s.hand[p] < s.hand_size]
            moves.append(DealAll())
        elif s.phase in (FIRST_ROLL, ROLLOFF):
            for p in s.rollers:
                if p not in s.rolls:
                    moves += [Roll(p, v) for v in _dice_outcomes(self.dice_count)]
        elif s.phase == DECLARE:
            assert s.conquest
            moves += [Declare(s.conquest.attacker, v) for v in self._victims(s)]
        elif s.phase == ALLIANCES:
            moves += self._alliance_moves(s)
        elif s.phase in (COMMIT, REVEAL):
            moves += self._commit_moves(s)
        elif s.phase == CLEANUP:
            moves += self._cleanup_moves(s)
        elif s.phase == DRAW:
            moves += [Draw(p) for p in dict.fromkeys(s.drawers)]
        if s.phase == ROLLOFF:
            moves += self._return_moves(s)
        moves += [CheckLadder(p, s.ladder[p]) for p in s.players]
        return moves

    def _victims(self, s: CrushState) -> list[str]:
        assert s.conquest
        return [p for p in s.active() if p != s.conquest.attacker]

    def _alliance_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q and q.victim
        moves: list[Move] = [LockSides()]
        others = [p for p in s.active() if p not in (q.attacker, q.victim)]
        for p in others:
            if p in q.allies:
                moves.append(Leave(p))
            elif s.hand[p] > 0:
                moves += [Join(p, side) for side in SIDES if self._join_error(s, p, side) is None]
            for side in SIDES:
                by = q.principal(side)
                assert by
                if p not in q.excluded.get(side, []):
                    moves.append(Exclude(by, p))
                    if p not in q.invited.get(side, []):
                        moves.append(Invite(by, p))
        if not q.allies:
            moves.append(Countdown())
        moves += [Commit(p) for p in self._participants(q) if self._commit_error(s, p, None) is None]
        return moves

    def _commit_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q
        moves: list[Move] = []
        if s.phase == COMMIT:
            for p in self._participants(q):
                if self._commit_error(s, p, None) is None:
                    moves.append(Commit(p))
            moves += [Uncommit(p) for p, slot in q.slots.items() if slot.facedown]
            if self._countdown_error(s) is None:
                moves.append(Countdown())
        if s.phase == REVEAL or self._countdown_error(s) is None:
            for p, slot in q.slots.items():
                if slot.facedown:
                    moves += [Flip(p, c) for c in self._possible_cards(s, p)]
        return moves

    def _cleanup_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q
        moves: list[Move] = []
        for p, slot in q.slots.items():
            counted = list(slot.shown)
            for c in slot.returned:
                counted.remove(c)
            moves += [Sweep(p, c) for c in dict.fromkeys(counted)]
        return moves + self._return_moves(s)

    def _return_moves(self, s: CrushState) -> list[Move]:
        q = s.conquest
        assert q
        return [ReturnCard(p, c) for p, slot in q.slots.items() for c in dict.fromkeys(slot.returned)]

    # ---- apply ---------------------------------------------------------------------------
    def _apply(self, state: CrushState, move: Move) -> list[Announcement]:
        handler = getattr(self, f"_do_{type(move).__name__}", None)
        if handler is None:
            raise IllegalMove(f"{move.describe()} is not a Royal Crush move")
        return handler(state, move)

    # deal and first roll
    def _do_DealCard(self, s: CrushState, m: DealCard) -> list[Announcement]:
        self._need(s, DEAL, "deal")
        if s.hand[m.player] >= s.hand_size:
            raise IllegalMove(f"{m.player} already has {s.hand_size} cards: deal to {self._short_hands(s)}")
        self._take_from_pile(s, m.player)
        return self._after_deal(s)

    def _do_DealAll(self, s: CrushState, m: DealAll) -> list[Announcement]:
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
        dice = self.v.get("dice", "2d6")
        return [
            announce(f"Dealt. Each player rolls {dice}: the highest total attacks first.", **self._status(s)),
            legal(f"Roll {dice}: {', '.join(s.rollers)}", rollers=list(s.rollers)),
        ]

    def _do_Roll(self, s: CrushState, m: Roll) -> list[Announcement]:
        if s.phase not in (FIRST_ROLL, ROLLOFF):
            raise IllegalMove(f"No dice roll is due now: {self._expect(s)}")
        if m.player not in s.rollers:
            raise IllegalMove(f"{m.player} does not roll now: {', '.join(s.rollers)} roll")
        if len(m.values) != self.dice_count or any(not 1 <= v <= 6 for v in m.values):
            raise IllegalMove(
                f"A roll is {self.dice_count} die value{'s' if self.dice_count > 1 else ''} 1-6 "
                f"(dice: {self.v.get('dice', '2d6')}), got {list(m.values)}"
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
    def _do_Declare(self, s: CrushState, m: Declare) -> list[Announcement]:
        self._need(s, DECLARE, "declare")
        q = s.conquest
        assert q
        if m.attacker != q.attacker:
            raise IllegalMove(f"It is {q.attacker}'s conquest, not {m.attacker}'s")
        if m.victim == q.attacker:
            raise IllegalMove(f"{q.attacker} cannot attack itself: name another player")
        if m.victim not in s.players:
            raise IllegalMove(f"There is no player {m.victim}")
        if m.victim in s.eliminated:
            raise IllegalMove(f"{m.victim} is out of the game and cannot be attacked")
        q.victim = m.victim
        s.phase = ALLIANCES
        others = [p for p in s.active() if p not in (q.attacker, q.victim)]
        how = "when invited" if self.v.get("alliance") == "invite_only" else "unless excluded"
        return [
            announce(f"Conquest {q.number}: {q.attacker} attacks {q.victim}", **self._status(s)),
            legal(
                f"Alliances: {', '.join(others) or 'nobody'} may join a side ({how}); then lock the sides",
                candidates=others,
            ),
        ]

    def _join_error(self, s: CrushState, player: str, side: str) -> str | None:
        q = s.conquest
        assert q
        if player in (q.attacker, q.victim):
            return f"{player} is the {q.side_of(player)} and cannot be an ally"
        if player in s.eliminated:
            return f"{player} is out of the game"
        if player in q.allies:
            if q.allies[player] == side:
                return f"{player} is already on the {side} side"
            return f"{player} is already on the {q.allies[player]} side: nobody joins both sides"
        principal = q.principal(side)
        if player in q.excluded.get(side, []):
            return f"{principal} has excluded you"
        if self.v.get("alliance") == "invite_only" and player not in q.invited.get(side, []):
            return f"{principal} has not invited {player} (alliance: invite_only)"
        if s.hand[player] == 0:
            return f"{player} has no card to commit"
        return None

    def _do_Join(self, s: CrushState, m: Join) -> list[Announcement]:
        self._need(s, ALLIANCES, "join a side")
        err = self._join_error(s, m.player, m.side)
        if err:
            raise IllegalMove(err)
        q = s.conquest
        assert q
        q.allies[m.player] = m.side
        return [state_change(f"{m.player} joins the {m.side} side ({q.principal(m.side)})",
                             player=m.player, side=m.side)]

    def _do_Leave(self, s: CrushState, m: Leave) -> list[Announcement]:
        self._need(s, ALLIANCES, "leave a side")
        q = s.conquest
        assert q
        if m.player not in q.allies:
            raise IllegalMove(f"{m.player} is not an ally in this conquest")
        side = q.allies.pop(m.player)
        return [state_change(f"{m.player} leaves the {side} side", player=m.player, side=side)]

    def _principal_side(self, s: CrushState, by: str, player: str, what: str) -> str:
        q = s.conquest
        assert q
        side = "attacker" if by == q.attacker else "victim" if by == q.victim else None
        if side is None:
            raise IllegalMove(f"Only {q.attacker} and {q.victim} may {what}")
        if player in (q.attacker, q.victim):
            raise IllegalMove(f"{player} is a principal of this conquest")
        if player in s.eliminated:
            raise IllegalMove(f"{player} is out of the game")
        return side

    def _do_Invite(self, s: CrushState, m: Invite) -> list[Announcement]:
        self._need(s, ALLIANCES, "invite")
        side = self._principal_side(s, m.by, m.player, "invite allies")
        q = s.conquest
        assert q
        if m.player in q.excluded.get(side, []):
            raise IllegalMove(f"{m.by} has excluded {m.player}")
        if m.player in q.invited.get(side, []):
            raise IllegalMove(f"{m.by} has already invited {m.player}")
        q.invited[side] = sorted([*q.invited.get(side, []), m.player])
        return [state_change(f"{m.by} invites {m.player} to the {side} side", by=m.by, player=m.player)]

    def _do_Exclude(self, s: CrushState, m: Exclude) -> list[Announcement]:
        self._need(s, ALLIANCES, "exclude")
        side = self._principal_side(s, m.by, m.player, "exclude players")
        q = s.conquest
        assert q
        if m.player in q.excluded.get(side, []):
            raise IllegalMove(f"{m.by} has already excluded {m.player}")
        q.excluded[side] = sorted([*q.excluded.get(side, []), m.player])
        if m.player in q.invited.get(side, []):
            q.invited[side].remove(m.player)
        notes = [state_change(f"{m.by} excludes {m.player} from the {side} side", by=m.by, player=m.player)]
        if q.allies.get(m.player) == side:
            del q.allies[m.player]
            notes.append(state_change(f"{m.player} leaves the {side} side (excluded)", player=m.player))
        return notes

    def _do_LockSides(self, s: CrushState, m: LockSides) -> list[Announcement]:
        self._need(s, ALLIANCES, "lock the sides")
        return self._lock(s)

    def _lock(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        s.phase = COMMIT
        members = {side: [q.principal(side)] + [p for p, x in sorted(q.allies.items()) if x == side]
                   for side in SIDES}
        text = "; ".join(f"{side} {' + '.join(str(p) for p in members[side])}" for side in SIDES)
        allies = sorted(q.allies)
        first = (f"allies {', '.join(allies)} place one attack card face-down, then "
                 if allies else "")
        return [
            announce(f"Sides locked: {text}", sides={k: list(v) for k, v in members.items()}, phase=COMMIT),
            legal(f"Commit: {first}{q.attacker} and {q.victim} place up to one attack and one royal card "
                  "face-down; then 3-2-1 and reveal", allies=allies),
        ]

    # C3-C4
    def _participants(self, q: Conquest) -> list[str]:
        return [q.attacker, *([q.victim] if q.victim else []), *sorted(q.allies)]

    def _commit_error(self, s: CrushState, player: str, side: str | None) -> str | None:
        q = s.conquest
        assert q
        mine = q.side_of(player)
        if mine is None:
            if side and player in q.excluded.get(side, []):
                return f"{q.principal(side)} has excluded you"
            if s.phase == ALLIANCES:
                return f"{player} has not joined a side: declare the alliance first"
            return f"{player} is not in this conquest"
        if side is not None and side != mine:
            return f"{player} is on the {mine} side: place the card on the side_{mine} mat"
        if s.hand[player] == 0:
            return f"{player} has no cards in hand"
        slot = q.slots.get(player)
        placed = slot.facedown + len(slot.shown) if slot else 0
        if player in q.allies:
            if placed >= 1:
                return "Allies commit exactly one attack card"
            return None
        if placed >= 2:
            return "Attacker and victim commit at most one attack card and one royal card"
        if self.v.get("commit_order", "allies_first") == "allies_first":
            waiting = self._allies_waiting(q)
            if waiting:
                return f"Allies commit first: waiting for {', '.join(waiting)}"
        return None

    def _allies_waiting(self, q: Conquest) -> list[str]:
        def placed(p: str) -> int:
            slot = q.slots.get(p)
            return slot.facedown + len(slot.shown) if slot else 0

        return [p for p in sorted(q.allies) if not placed(p)]

    def _do_Commit(self, s: CrushState, m: Commit) -> list[Announcement]:
        if s.phase not in (ALLIANCES, COMMIT):
            if s.phase == REVEAL:
                raise IllegalMove("The countdown has started: no more cards may be placed")
            raise IllegalMove(f"No commitments now: {self._expect(s)}")
        err = self._commit_error(s, m.player, m.side)
        if err:
            raise IllegalMove(err)
        notes = self._lock(s) if s.phase == ALLIANCES else []
        q = s.conquest
        assert q
        side = q.side_of(m.player)
        assert side
        slot = q.slots.setdefault(m.player, Slot(side))
        slot.facedown += 1
        s.hand[m.player] -= 1
        notes.append(state_change(f"{m.player} places a face-down card on the {side} side",
                                  player=m.player, side=side, cards=slot.facedown))
        return notes

    def _do_Uncommit(self, s: CrushState, m: Uncommit) -> list[Announcement]:
        if s.phase != COMMIT:
            raise IllegalMove("Cards may be taken back only before the countdown")
        q = s.conquest
        assert q
        slot = q.slots.get(m.player)
        if not slot or not slot.facedown:
            raise IllegalMove(f"{m.player} has no face-down card to take back")
        slot.facedown -= 1
        s.hand[m.player] += 1
        if not slot.facedown and not slot.shown:
            del q.slots[m.player]
        return [state_change(f"{m.player} takes a face-down card back", player=m.player)]

    def _countdown_error(self, s: CrushState) -> str | None:
        q = s.conquest
        if q is None or s.phase not in (ALLIANCES, COMMIT):
            return f"No countdown now: {self._expect(s)}"
        if s.phase == ALLIANCES and q.allies:
            return "Lock the sides and let the allies commit first"
        waiting = self._allies_waiting(q)
        if waiting:
            return f"{', '.join(waiting)} must commit one attack card before the countdown"
        return None

    def _do_Countdown(self, s: CrushState, m: Countdown) -> list[Announcement]:
        err = self._countdown_error(s)
        if err:
            raise IllegalMove(err)
        return self._begin_reveal(s)

    def _begin_reveal(self, s: CrushState) -> list[Announcement]:
        notes = self._lock(s) if s.phase == ALLIANCES else []
        s.phase = REVEAL
        q = s.conquest
        assert q
        if not any(slot.facedown for slot in q.slots.values()):
            return notes + self._resolve(s)
        notes.append(state_change("3-2-1: reveal all commitments", phase=REVEAL))
        return notes

    def _possible_cards(self, s: CrushState, player: str) -> list[Card]:
        """Identities ``player``'s next face-down card can have."""
        q = s.conquest
        assert q
        known = s.hand_known[player]
        slot = q.slots[player]
        if len(known) >= s.hand[player] + slot.facedown:
            return sorted(set(known))
        return sorted(set(known) | set(s.unseen()))

    def _flip(self, s: CrushState, player: str, c: Card) -> None:
        q = s.conquest
        assert q
        slot = q.slots.get(player)
        if not slot or not slot.facedown:
            raise IllegalMove(f"{player} has no face-down card to reveal")
        if c.is_back:
            raise IllegalMove("A revealed card must show its face")
        known = s.hand_known[player]
        if c in known:
            known.remove(c)
        elif s.located().get(c, 0) < DECK_COUNTS.get(c, 0):
            if len(known) >= s.hand[player] + slot.facedown:
                raise IllegalMove(
                    f"{c} cannot be {player}'s card: {player}'s hidden cards are {', '.join(map(str, known))}"
                )
        else:
            raise IllegalMove(f"{c} cannot be {player}'s card: {self._where(s, c)}")
        slot.facedown -= 1
        if slot.shown:
            slot.order_known = False
        slot.shown.append(c)

    def _do_Flip(self, s: CrushState, m: Flip) -> list[Announcement]:
        notes = self._reveal_start(s)
        self._flip(s, m.player, m.card)
        q = s.conquest
        assert q
        notes.append(state_change(f"{m.player} reveals {m.card}", player=m.player, card=str(m.card)))
        if any(slot.facedown for slot in q.slots.values()):
            return notes
        return notes + self._resolve(s)

    def _reveal_start(self, s: CrushState) -> list[Announcement]:
        if s.phase == REVEAL:
            return []
        err = self._countdown_error(s)
        if err:
            raise IllegalMove(err)
        return self._begin_reveal(s)

    def _do_Reveal(self, s: CrushState, m: Reveal) -> list[Announcement]:
        notes = self._reveal_start(s)
        q = s.conquest
        assert q
        given = dict(m.cards)
        for p, slot in q.slots.items():
            if slot.facedown and len(given.get(p, ())) != slot.facedown:
                n = len(given.get(p, ()))
                raise IllegalMove(f"{p} has {slot.facedown} face-down card(s), the reveal shows {n}")
        for p, cards in m.cards:
            slot = q.slots.get(p)
            if not slot or not slot.facedown:
                raise IllegalMove(f"{p} has no face-down card to reveal")
            fresh = not slot.shown
            for c in cards:
                self._flip(s, p, c)
            slot.order_known = fresh and m.order_known
        shown = "; ".join(f"{p} {' '.join(map(str, cards))}" for p, cards in m.cards)
        notes.append(state_change(f"Revealed: {shown}", cards={p: [str(c) for c in cs] for p, cs in m.cards}))
        return notes + self._resolve(s)

    # C5
    def _resolve(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q and q.victim
        notes: list[Announcement] = []
        counted: dict[str, list[Card]] = {}
        for p in self._participants(q):
            slot = q.slots.get(p)
            cards = slot.shown if slot else []
            order_known = slot.order_known if slot else True
            keep, back = validate_slot(cards, order_known, p not in q.allies, self.rules)
            counted[p] = keep
            if slot:
                slot.returned = sorted(back)
            for c in back:
                why = "an ally commits one attack card" if p in q.allies else "one attack and one royal card"
                notes.append(state_change(f"{c} counts for nothing ({why}): return it to {p}'s hand",
                                          player=p, card=str(c)))
                s.bump("returned_cards")
        order = [p for p in s.clockwise_from(q.attacker) if p in counted]
        sides = {p: q.side_of(p) or "" for p in order}
        res = resolve(order, q.victim, sides, counted, self.rules)
        q.resolution = res
        s.phase = ROLLOFF  # until decided below
        if res.kings == 1:
            s.bump("king_suppressions")
            notes.append(state_change("A King: every other royal card is worth 0 and has no effect"))
        elif res.kings >= 2:
            s.bump("kings_cancelled")
            notes.append(state_change("Two Kings cancel each other: both are worth 0"))
        for p in res.switched:
            s.bump("joker_switches")
            notes.append(state_change(f"{p}'s Joker: {p} switches to the {res.sides[p]} side", player=p,
                                      side=res.sides[p]))
        if res.all_win:
            s.bump("all_win")
            notes.append(announce("One side is empty: every participant wins the conquest", all_win=True))
            return notes + self._finish_conquest(s)
        for side in SIDES:
            parts = [f"{c}={v}" for p, c, v in res.powers if res.sides[p] == side]
            mult = " x2 combo" if res.multipliers[side] > 1 else ""
            text = f"{side} side: {' '.join(parts) or 'no cards'}{mult} = {res.totals[side]}"
            notes.append(state_change(text,
                                      side=side, total=res.totals[side]))
        if res.multipliers["attacker"] > 1 or res.multipliers["victim"] > 1 or res.player_multipliers:
            s.bump("combos")
        a, v = res.totals["attacker"], res.totals["victim"]
        if res.winner_side:
            notes.append(announce(f"{a} to {v}: the {res.winner_side} side wins", totals=dict(res.totals),
                                  winner_side=res.winner_side))
            return notes + self._finish_conquest(s)
        s.bump("ties")
        s.rollers = [res.tie_reps["attacker"], res.tie_reps["victim"]]
        s.rolls = {}
        notes.append(announce(f"Tie {a} to {v}: roll-off {' vs '.join(s.rollers)}", rollers=list(s.rollers),
                              phase=ROLLOFF))
        dice = self.v.get("dice", "2d6")
        notes.append(legal(f"Roll {dice}: {', '.join(s.rollers)}", rollers=list(s.rollers)))
        return notes

    # C6
    def _finish_conquest(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q and q.resolution
        res = q.resolution
        everyone = list(res.sides)
        if res.all_win:
            up, down = everyone, []
        else:
            up = [p for p in everyone if res.sides[p] == res.winner_side]
            down = [p for p in everyone if res.sides[p] != res.winner_side]
        if self.role_reversal:
            up, down = down, up
            s.bump("reversals")
        notes: list[Announcement] = []
        for p in everyone:
            before = s.ladder[p]
            after = min(LADDER_TOP, before + 1) if p in up else max(0, before - 1)
            s.ladder[p] = after
            verb = "up to" if after > before else "down to" if after < before else "stays on"
            notes.append(damage(f"{p} {verb} {after}", player=p, ladder=after, change=after - before))
        notes.append(announce("Ladders: " + ", ".join(f"{p} {s.ladder[p]}" for p in s.players),
                              **self._status(s)))
        top = [p for p in s.players if s.ladder[p] >= LADDER_TOP]
        if top:
            return notes + self._game_over(s, top, f"{' and '.join(top)} reached {LADDER_TOP}")
        ace = next((p for p in res.ace_players if p in up), None)
        s.next_attacker = ace
        if ace:
            s.bump("ace_turns")
            notes.append(state_change(f"{ace} won with an Ace: {ace} attacks next", player=ace))
        s.phase = CLEANUP
        return notes + self._cleanup_prompt(s)

    def _game_over(self, s: CrushState, winners: list[str], reason: str, by_rules: bool = True):
        s.phase = OVER
        s.winners = list(winners)
        s.end_reason = reason
        s.by_rules = by_rules
        who = " and ".join(winners) + (" win" if len(winners) > 1 else " wins") if winners else "Nobody wins"
        return [result(f"{who}: {reason}", winners=list(winners), reason=reason, by_rules=by_rules,
                       ladders=dict(s.ladder))]

    # C7-C8
    def _cleanup_prompt(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        sweep, back = [], []
        for p in s.clockwise_from(q.attacker):
            slot = q.slots.get(p)
            if slot is None:
                continue
            counted = list(slot.shown)
            for c in slot.returned:
                counted.remove(c)
            sweep += counted
            back += [f"{c} to {p}'s hand" for c in slot.returned]
        if sweep:
            s.draw_under.append([])
        if not sweep and not back:
            return self._after_cleanup(s)
        parts = []
        if sweep:
            parts.append(f"put {' '.join(map(str, sweep))} under the draw pile")
        if back:
            parts.append("return " + ", ".join(back))
        return [state_change("Cleanup: " + "; ".join(parts), phase=CLEANUP)]

    def _slot_with(self, s: CrushState, player: str, c: Card):
        q = s.conquest
        assert q
        slot = q.slots.get(player)
        if not slot or c not in slot.shown:
            raise IllegalMove(f"{c} is not in {player}'s slot")
        return slot

    def _do_Sweep(self, s: CrushState, m: Sweep) -> list[Announcement]:
        self._need(s, CLEANUP, "clear the mats")
        slot = self._slot_with(s, m.player, m.card)
        if slot.shown.count(m.card) <= slot.returned.count(m.card):
            raise IllegalMove(f"{m.card} counted for nothing: it goes back to {m.player}'s hand")
        slot.shown.remove(m.card)
        batch = s.draw_under[-1]
        batch.append(m.card)
        batch.sort()
        return self._cleanup_progress(s)

    def _do_ReturnCard(self, s: CrushState, m: ReturnCard) -> list[Announcement]:
        if s.phase not in (ROLLOFF, CLEANUP):
            raise IllegalMove(f"No card goes back to a hand now: {self._expect(s)}")
        slot = self._slot_with(s, m.player, m.card)
        if m.card not in slot.returned:
            raise IllegalMove(f"{m.card} counted: it goes under the draw pile, not back to the hand")
        slot.returned.remove(m.card)
        slot.shown.remove(m.card)
        s.hand[m.player] += 1
        s.hand_known[m.player] = sorted([*s.hand_known[m.player], m.card])
        if s.phase == CLEANUP:
            return self._cleanup_progress(s)
        return []

    def _cleanup_progress(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        if any(slot.shown for slot in q.slots.values()):
            return []
        return self._after_cleanup(s)

    def _after_cleanup(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        q.slots = {}
        notes: list[Announcement] = []
        if self.no_draw:
            out = [p for p in s.active() if s.hand[p] == 0]
            for p in out:
                s.eliminated.append(p)
                s.bump("eliminations")
                text = f"{p} has no cards left and is out of the game"
                notes.append(damage(text, player=p, eliminated=True))
            left = s.active()
            if len(left) == 1:
                return notes + self._game_over(s, left, f"{left[0]} is the last player standing")
            if not left:
                return notes + self._wipeout(s, out)
            s.drawers = []
        else:
            order = [p for p in s.clockwise_from(q.attacker) if p not in s.eliminated]
            if self.v.get("draw_mode", "all_draw_one") == "all_draw_one":
                drawers = order
            else:
                per = s.hand_size if self.v.get("empty_hand_refill") == "hand_size" else 1
                drawers = [p for p in order if s.hand[p] == 0 for _ in range(per)]
            s.drawers = drawers[: s.draw_count]
        if not s.drawers:
            return notes + self._start_next(s)
        s.phase = DRAW
        names = ", ".join(s.drawers)
        text = f"Draw one card each, clockwise from {q.attacker}: {names}"
        notes.append(legal(text, drawers=list(s.drawers)))
        return notes

    def _wipeout(self, s: CrushState, last: list[str]) -> list[Announcement]:
        if self.v.get("no_draw_wipeout", "highest_ladder") == "draw":
            return self._game_over(s, [], "every remaining player ran out of cards at once")
        best = max(s.ladder[p] for p in last)
        top = [p for p in last if s.ladder[p] == best]
        return self._game_over(s, top, f"everyone ran out of cards at once; highest on the ladder ({best})")

    def _do_Draw(self, s: CrushState, m: Draw) -> list[Announcement]:
        self._need(s, DRAW, "draw")
        if m.player not in s.drawers:
            raise IllegalMove(f"{m.player} does not draw now: {', '.join(s.drawers)} still draw")
        s.drawers.remove(m.player)
        self._take_from_pile(s, m.player)
        if s.drawers:
            return []
        return self._start_next(s)

    def _take_from_pile(self, s: CrushState, player: str) -> None:
        if not s.draw_top:
            if not s.draw_under:
                raise IllegalMove("The draw pile is empty")
            s.draw_top = len(s.draw_under.pop(0))  # the batch's cards become unseen again
        s.draw_top -= 1
        s.hand[player] += 1

    # C9
    def _start_next(self, s: CrushState) -> list[Announcement]:
        q = s.conquest
        assert q
        ace = s.next_attacker
        s.next_attacker = None
        if ace and ace not in s.eliminated:
            return self._start_conquest(s, ace, ace_turn=True)
        assert s.anchor
        return self._start_conquest(s, s.after(s.anchor))

    def _start_conquest(self, s: CrushState, attacker: str, ace_turn: bool = False) -> list[Announcement]:
        cap = int(self.v.get("max_conquests", 0))
        if cap and s.conquests >= cap:
            best = max(s.ladder[p] for p in s.active())
            top = [p for p in s.active() if s.ladder[p] == best]
            reason = f"cap of {cap} conquests reached; highest on the ladder"
            return self._game_over(s, top, reason, by_rules=False)
        if not (ace_turn and self.v.get("ace_resume") == "original_order"):
            s.anchor = attacker
        s.conquests += 1
        s.conquest = Conquest(s.conquests, attacker, ace_turn)
        s.phase = DECLARE
        extra = " (Ace: extra turn)" if ace_turn else ""
        return [
            announce(f"Conquest {s.conquests}: {attacker} attacks{extra}", **self._status(s)),
            legal(f"{attacker}: name a victim ({', '.join(self._victims(s))})", victims=self._victims(s)),
        ]

    def _do_CheckLadder(self, s: CrushState, m: CheckLadder) -> list[Announcement]:
        if m.player not in s.ladder:
            raise IllegalMove(f"There is no player {m.player}")
        if s.ladder[m.player] != m.spot:
            raise IllegalMove(f"{m.player}'s token belongs on {s.ladder[m.player]}, not {m.spot}")
        return [state_change(f"{m.player}'s token on {m.spot}: correct", player=m.player, spot=m.spot)]

    # ---- helpers -------------------------------------------------------------------------
    def _need(self, s: CrushState, phase: str, what: str) -> None:
        if s.phase != phase:
            raise IllegalMove(f"Cannot {what} now: {self._expect(s)}")

    def _short_hands(self, s: CrushState) -> str:
        return ", ".join(p for p in s.players if s.hand[p] < s.hand_size)

    def _expect(self, s: CrushState) -> str:
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

    # ---- invariants ----------------------------------------------------------------------
    def check_invariants(self, state: CrushState) -> None:
        s = state
        q = s.conquest
        slots = q.slots if q else {}
        facedown = sum(slot.facedown for slot in slots.values())
        on_table = [c for slot in slots.values() for c in slot.shown]
        total = s.draw_count + sum(s.hand.values()) + facedown + len(on_table)
        if total != DECK_SIZE:
            raise InvariantError(f"{total} cards in play, expected {DECK_SIZE}")
        located = s.located()
        twice = [f"{c} x{n}" for c, n in located.items() if n > 1 and (n > 2 or not c.is_joker)]
        if twice:
            raise InvariantError(f"cards in two places: {', '.join(twice)}")
        hidden_known = sum(len(v) for v in s.hand_known.values())
        unseen = DECK_SIZE - sum(located.values())
        if unseen != s.draw_top + sum(s.hand.values()) + facedown - hidden_known:
            raise InvariantError(
                f"{unseen} unseen cards for {s.draw_top} on the pile, {sum(s.hand.values())} in hands "
                f"({hidden_known} known) and {facedown} face-down"
            )
        for p in s.players:
            slot = slots.get(p)
            if len(s.hand_known[p]) > s.hand[p] + (slot.facedown if slot else 0):
                raise InvariantError(f"{p} has more known cards than hidden cards")
            if not 0 <= s.ladder[p] <= LADDER_TOP:
                raise InvariantError(f"{p}'s ladder {s.ladder[p]} outside 0..{LADDER_TOP}")
            if s.hand[p] < 0:
                raise InvariantError(f"{p} has {s.hand[p]} cards")
        empty_batches = [i for i, b in enumerate(s.draw_under) if not b]
        if empty_batches and (s.phase != CLEANUP or empty_batches != [len(s.draw_under) - 1]):
            raise InvariantError("an empty batch under the draw pile")
        if q and q.victim:
            if q.victim == q.attacker:
                raise InvariantError("attacker and victim are the same player")
            for p, side in q.allies.items():
                if p in (q.attacker, q.victim) or p in q.excluded.get(side, []):
                    raise InvariantError(f"{p} is an ally of the {side} side against the rules")
            for p, slot in slots.items():
                limit = 1 if p in q.allies else 2
                if slot.facedown + len(slot.shown) > limit:
                    raise InvariantError(f"{p}'s slot holds {slot.facedown + len(slot.shown)} cards")
                for c in slot.returned:
                    if slot.returned.count(c) > slot.shown.count(c):
                        raise InvariantError(f"returned {c} is not in {p}'s slot")
            res = q.resolution
            if res is not None and recount(res) != res.totals:
                raise InvariantError(f"totals {res.totals} do not add up to {recount(res)}")
        if s.phase == OVER and s.by_rules and s.winners:
            at_top = [p for p in s.players if s.ladder[p] >= LADDER_TOP]
            if at_top and sorted(at_top) != sorted(s.winners):
                raise InvariantError(f"winners {s.winners} but {at_top} are on {LADDER_TOP}")


def _dice_outcomes(n: int) -> list[tuple[int, ...]]:
    if n == 1:
        return [(a,) for a in range(1, 7)]
    return [(a, b) for a in range(1, 7) for b in range(1, 7)]


GAME = RoyalCrush
SIMULATOR = CrushSimulator

__all__ = ["GAME", "SIMULATOR", "CrushSimulator", "RoyalCrush"]

"""Royal Crush, C1-C4: declaring the victim, alliances, face-down commitments, the reveal.

Part of :class:`referee.games.royal_crush.rules.Rules`: each ``@handles`` method mutates the
private copy of the state it is given or raises IllegalMove with the reason a player reads.
"""

from __future__ import annotations

import referee.games.royal_crush.moves as mv
from referee.announcements import Announcement, announce, legal, state_change
from referee.cards import Card
from referee.core import handles
from referee.errors import IllegalMove
from referee.games.royal_crush.state import (
    ALLIANCES,
    COMMIT,
    DECK_COUNTS,
    DECLARE,
    REVEAL,
    SIDES,
    Conquest,
    CrushState,
    Slot,
)


class ConquestRules:
    """Moves from naming the victim to the last card turned face-up."""

    @handles(mv.Declare)
    def _do_Declare(self, s: CrushState, m: mv.Declare) -> list[Announcement]:
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
        how = "when invited" if self.v.alliance == "invite_only" else "unless excluded"
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
        if self.v.alliance == "invite_only" and player not in q.invited.get(side, []):
            return f"{principal} has not invited {player} (alliance: invite_only)"
        if s.hand[player] == 0:
            return f"{player} has no card to commit"
        return None

    @handles(mv.Join)
    def _do_Join(self, s: CrushState, m: mv.Join) -> list[Announcement]:
        self._need(s, ALLIANCES, "join a side")
        err = self._join_error(s, m.player, m.side)
        if err:
            raise IllegalMove(err)
        q = s.conquest
        assert q
        q.allies[m.player] = m.side
        return [state_change(f"{m.player} joins the {m.side} side ({q.principal(m.side)})",
                             player=m.player, side=m.side)]

    @handles(mv.Leave)
    def _do_Leave(self, s: CrushState, m: mv.Leave) -> list[Announcement]:
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

    @handles(mv.Invite)
    def _do_Invite(self, s: CrushState, m: mv.Invite) -> list[Announcement]:
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

    @handles(mv.Exclude)
    def _do_Exclude(self, s: CrushState, m: mv.Exclude) -> list[Announcement]:
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

    @handles(mv.LockSides)
    def _do_LockSides(self, s: CrushState, m: mv.LockSides) -> list[Announcement]:
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
        if self.v.commit_order == "allies_first":
            waiting = self._allies_waiting(q)
            if waiting:
                return f"Allies commit first: waiting for {', '.join(waiting)}"
        return None

    def _allies_waiting(self, q: Conquest) -> list[str]:
        def placed(p: str) -> int:
            slot = q.slots.get(p)
            return slot.facedown + len(slot.shown) if slot else 0

        return [p for p in sorted(q.allies) if not placed(p)]

    @handles(mv.Commit)
    def _do_Commit(self, s: CrushState, m: mv.Commit) -> list[Announcement]:
        if s.phase not in (ALLIANCES, COMMIT):
            if s.phase == REVEAL:
                raise IllegalMove("The countdown has started: no more cards may be placed")
            raise IllegalMove(f"No commitments now: {self.expect(s)}")
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

    @handles(mv.Uncommit)
    def _do_Uncommit(self, s: CrushState, m: mv.Uncommit) -> list[Announcement]:
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
            return f"No countdown now: {self.expect(s)}"
        if s.phase == ALLIANCES and q.allies:
            return "Lock the sides and let the allies commit first"
        waiting = self._allies_waiting(q)
        if waiting:
            return f"{', '.join(waiting)} must commit one attack card before the countdown"
        return None

    @handles(mv.Countdown)
    def _do_Countdown(self, s: CrushState, m: mv.Countdown) -> list[Announcement]:
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

    @handles(mv.Flip)
    def _do_Flip(self, s: CrushState, m: mv.Flip) -> list[Announcement]:
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

    @handles(mv.Reveal)
    def _do_Reveal(self, s: CrushState, m: mv.Reveal) -> list[Announcement]:
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

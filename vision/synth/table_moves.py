"""What the players of a rendered game do with the cards for each observation.

Royal Family's and Royal Shuffle's observations move every card that moves, and their
referees tidy up in their heads before the table does (a destroyed fortification lies on until
it is cleared): the table follows the observations alone. In Houska Castle, Dukes Up! and
Royal Crush some observations are typed and still move cards (a set-up laid out, commitments
turned up by ``reveal``, a discard pile turned over as the new draw pile, a nullified card
turned face down where it lies): after each observation the players make the face-up cards
of the table what the rules have there (``tidy``), moving, turning up or turning down the
fewest cards, so the camera sees what a table laid out by the rules shows.

A card lying face down in a zone where cards lie face up (a commitment, a hidden monster
card, a castle before ``dukes_up``) is kept as ``~NAME``: unseen, so its name can still be
swapped with any other unseen card's when it comes up (``Table``'s hidden-card rule).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from referee.core import Referee
from referee.games import load_game
from referee.observations import Observation
from vision.layout import Layout
from vision.synth.table_state import Table, face_down, laid_from

# Games whose tables follow their observations alone (their referees clean up before the table).
OBSERVED_ONLY = ("royal_family", "royal_shuffle")


@dataclass(frozen=True)
class Move:
    """One card taken from position ``index`` of ``src`` and put on top of ``dst``; ``up``:
    whether it lies face up there (None: as the zone's cards lie)."""

    src: str
    index: int
    dst: str
    up: bool | None = None


class TablePlayers:
    """Plans the card moves of each observation against the physical ``Table``; the caller
    applies each ``Move`` (``Table.take`` / ``Table.put``) before asking for the next."""

    def __init__(self, game_name: str, layout: Layout, table: Table):
        self.layout, self.table = layout, table
        self.referee = Referee(load_game(game_name))
        self.referee.start()
        self.tidy = game_name not in OBSERVED_ONLY
        self.up_zones = [z.id for z in layout.table_zones if z.face == "up"]
        self.players = {str(p) for p in self.referee.game.players}

    def moves(self, obs: Observation, actor: str) -> Iterator[Move]:
        self.referee.feed(obs)
        own = None
        if obs.type == "move" and obs.card is not None and obs.src and obs.dst:
            own = (str(obs.card), self.layout.lies_in(obs.src), self.layout.lies_in(obs.dst))
        if not self.tidy:
            if own is not None:
                card, src, dst = own
                yield Move(src, self.table.locate(card, src)[0], dst)
            elif obs.type == "placed" and obs.card is not None and self._on_table(obs.dst):
                # A card put in view from somewhere unseen (Royal Shuffle): from the player's hand.
                hand = f"hand_{actor}"
                src = hand if hand in self.table.zones else "draw_pile"
                yield Move(src, self.table.locate(str(obs.card), src)[0], str(obs.dst))
            return
        # Cards the rules put out of view first (a discard pile turned over before the draw
        # that needed it), then the observation's own move, then cards the rules turned up.
        yield from self._put_away(own)
        if own is not None:
            yield from self._observed(*own)
        yield from self._bring(obs)

    # ---- the observation's own move ---------------------------------------------------
    def _observed(self, card: str, src: str, dst: str) -> Iterator[Move]:
        t = self.table
        pile = t.zones.get(src, [])
        if card == "BACK":
            # Face down in the zone named, or (a card taken back into a hand) one its owner laid
            # anywhere: the referee names a side mat or a slot for either.
            downs = [] if src in t.hidden else self._face_down(src) or self._face_down(dst, here=False)
            if downs:
                src, index = downs[0]
            else:
                index = t.locate("BACK", src)[0]
            yield Move(src, index, dst, up=False if self._on_table(dst) else None)
        elif src == dst:
            return  # turned over where it lies: done by _put_away or _bring
        elif card in pile:
            yield Move(src, len(pile) - 1 - pile[::-1].index(card), dst)
        elif t.unseen_in(src) and self._referee_zone(card) != src:
            # Face down there (a commitment taken back, a hidden card taken): it takes its name.
            index = t.unseen_in(src)[-1]
            t.name_unseen(src, index, card)
            yield Move(src, index, dst)
        # else: already where the rules have it (put away or brought by the tidy-up)

    # ---- the table made what the rules have ------------------------------------------
    def _zones(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for zone, cards in (self.referee.game.cards_by_zone(self.referee.state) or {}).items():
            out.setdefault(self.layout.lies_in(zone), []).extend(str(c) for c in cards)
        return out

    def _wanted(self) -> Counter:
        """How many of each card the rules have face up on the table (anywhere: a card stays
        where the players put it; Royal Crush's referee files a revealed card under its
        owner's slot wherever it lies)."""
        zones = self._zones()
        return Counter(c for z in self.up_zones for c in zones.get(z, []))

    def _shown(self) -> Counter:
        return Counter(c for z in self.up_zones for c in self.table.zones.get(z, []) if not face_down(c))

    def _referee_zone(self, card: str) -> str | None:
        return next((z for z, cards in self._zones().items() if card in cards), None)

    def _put_away(self, own: tuple[str, str, str] | None) -> Iterator[Move]:
        """Face-up cards the rules no longer have face up: to where the rules have them (a
        face-down pile, a hand), or turned face down where they lie (where the observation
        turns them over, or where the rules keep them unseen)."""
        surplus = self._shown() - self._wanted()
        for card in list(surplus.elements()):
            zone = next(z for z in self.up_zones if card in self.table.zones.get(z, []))
            if own is not None and own[0] == card and own[1] == own[2]:
                zone = own[1]
            pile = self.table.zones[zone]
            index = len(pile) - 1 - pile[::-1].index(card)
            home = self._referee_zone(card)
            mine = own is not None and own[0] == card
            if mine and own[1] == zone != own[2]:
                continue  # the observation's own move takes it
            if (mine and own[1] == own[2]) or home is None or home in self.up_zones:
                yield Move(zone, index, zone, up=False)  # turned face down where it lies
            else:
                yield Move(zone, index, home)

    def _face_down(self, zone: str, here: bool = True) -> list[tuple[str, int]]:
        """Cards lying face down that a player means by ``zone``, likeliest first: in it, top
        first, then those laid from a zone of the same owner (Royal Crush's referee files a
        player's commitment under ``commit_pN`` wherever on the table it lies)."""
        t, owner = self.table, zone.rsplit("_", 1)[-1]
        mine = [(zone, i) for i, c in enumerate(t.zones.get(zone, [])) if face_down(c)][::-1] if here else []
        if owner not in self.players:
            return mine
        theirs = [
            (z, i) for z in self.up_zones if z != zone for i, c in enumerate(t.zones.get(z, []))
            if face_down(c) and laid_from(c).rsplit("_", 1)[-1] == owner
        ]
        return mine + theirs[::-1]

    def _bring(self, obs: Observation) -> Iterator[Move]:
        zones = self._zones()
        for zone in self.up_zones:
            for card in zones.get(zone, []):
                if self._shown()[card] < self._wanted()[card]:
                    yield self._bring_unseen(card, zone, obs)

    def _bring_unseen(self, card: str, zone: str, obs: Observation) -> Move:
        """An unseen card the rules now have face up in ``zone``: turned up where it lies face
        down there, or taken from where its owner laid a card face down, else brought from the
        zone the observation names, else from where it lies unseen."""
        t = self.table
        downs = self._face_down(zone)
        if downs:
            # Turned up where it lies, or, laid on a side mat, turned up into the slot where
            # the rules (and the camera following them) now have it.
            z, i = downs[0]
            t.name_unseen(z, i, card)
            return Move(z, i, zone, up=True)
        src = self.layout.lies_in(obs.src) if obs.src else None
        if src is not None and obs.card is not None and str(obs.card) == card and t.unseen_in(src):
            index = t.unseen_in(src)[-1]
        else:
            src, index = t.where_unseen(card)
        t.name_unseen(src, index, card)
        return Move(src, index, zone, up=True)

    def _on_table(self, zone: str | None) -> bool:
        z = self.layout.zones.get(self.layout.lies_in(zone or ""))
        return z is not None and not z.offtable


"""Event inference: where vision meets the rules.

The camera gives a settled :class:`~vision.table_state.TableState` (face-up cards by zone).
This module keeps the *physical* table as the players left it (which can lag behind the
referee: a destroyed fortification stays on the table until someone clears it), compares
what the camera sees with what that table should show, and turns the differences into
observations for the referee:

- a card seen in a new zone is a ``move`` from where it was (for a card that was hidden, in
  the draw pile or under a pile's top, from where the referee says it is), or the game's own
  observation where the camera cannot tell where it came from (``Game.unseen_source``: a
  Royal Shuffle card flipped or played, a Royal Crush commitment turned up where it lay, a
  Houska Castle card drawn onto a field or the hidden observation card turned up);
- a card gone from a face-up zone where the game's cards may lie face down is also read as
  turned over where it lay (``Game.turned_down``: Houska Castle's nullify), the rules choosing;
- a card that left a zone for somewhere the camera cannot see (the face-down discard pile,
  out of the game) is a ``move`` to whichever hidden zone the referee accepts, preferring the
  clean-up it asked for; where no move explains it and the referee has already filed it in a
  hidden zone (told by a typed observation), it follows the referee;
- the referee's legal moves decide between those readings and the order of several changes,
  and, when the likeliest names explain nothing, between the other names the detector found
  likely for a card that changed (a king it half took for a queen);
- a card drawn and named unsurely that is later read surely as another card still unseen is
  renamed (a ``rename`` observation: the referee re-reads the game with the right name), when
  the rules accept the game and the table with it; when nothing else explains the table, a
  later read no surer than the first name will do, if the detector confused the two names,
  and so will a read by the same wrong name again where the rules refuse that name (the
  card then takes another name both reads found likely);
- when nothing of that explains the table, an earlier card named unsurely is re-read: the
  rules choose its name among all the cards still unseen, the detector's probabilities
  ordering the tries (a design whose court cards the detector cannot name); last, a card
  read now by an unsure name that explains nothing takes such a name. The camera then
  follows that card by the name it reads it by;
- still unexplained, the steps the camera missed (a card's time in staging, a move merged
  with the next by a lost read) are searched among the rules' legal moves
  (:mod:`vision.recovery`): one explanation is fed and flagged, several are asked.

A table the game cannot explain (a rejected move, a card in two places) is a *desync*: it
is announced once, nothing is guessed, and the referee waits until the table matches again.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections import Counter
from dataclasses import dataclass, field, replace

from referee.announcements import Announcement
from referee.cards import Card
from referee.core import Movement, Referee
from referee.errors import CardrefError, ConfigError
from referee.observations import Observation, is_swap
from vision.detector.detections import SURE_BACK
from vision.layout import Layout
from vision.recovery import (
    MAX_CHOICES,
    Explanation,
    RecoveryQuestion,
    accepted,
    legal_steps,
    missed_steps,
    refused,
    trial_copy,
)
from vision.table_state import TableState, copies_of

MAX_PERMUTED = 4  # changes tried in every order; more than this are fed in the natural order
MAX_RENAMED = 2  # cards whose other likely names are tried together
MAX_RENAMINGS = 24  # renamings tried per table state, likeliest first
UNSURE_NAMING = 0.6  # a card named with less probability than this may be renamed later
MAX_CORRECTIONS = 6  # renames of earlier cards tried per table state, likeliest first
MAX_REREADS = 40  # other names of earlier unsure cards tried when nothing else explains the table
UNLIKELY = 0.001  # the probability of a name a read did not list among its candidates
TRADE_ODDS = 3.0  # two cards read swapped are taken for each other when that is this much likelier
AS_LIKELY = 0.5  # a name read at least this share of the read name's probability is confused with it
RENAME_MARGIN = 0.15  # a later read renames a card when this much surer than its first name
# A card named unsurely and then read by another name where it lies, this many reads or more,
# is renamed when all its reads together favour the other name (``_pooled_rename``).
POOLED_READS = 3
# Cards changed at most for the camera to search the steps it missed: a lost read merges two
# or three moves; more is another table (a video restarted, a game put away), not a miss.
MAX_RECOVERED_CARDS = 4
# A typed move that waits for the camera and that the referee refuses waits through this many
# reads that fed moves (the camera a settled table or two behind the players), then is refused.
HELD_READS = 2
DECISIVE = ("DAMAGE", "RESULT")  # announcements a card's name may change for good: asked first
BEHIND = "the camera has not read the table since"  # why a typed move the referee accepts waits


def remove_last(cards: list[Card], card: Card) -> None:
    """Take the topmost copy of ``card`` out of a zone's cards (bottom first)."""
    del cards[len(cards) - 1 - cards[::-1].index(card)]


@dataclass(frozen=True)
class Change:
    """One difference between the camera and the physical table, with its possible readings:
    (from, to) zone pairs, best first. Only one side is ever unseen, so only it varies."""

    card: str
    readings: tuple[tuple[str, str], ...]
    vanished: bool = False  # the card left the camera's view (its destination is a guess)
    # The game's own observation for a card come from a place the camera cannot tell apart
    # (Royal Shuffle's ``placed``; Royal Crush's flip, ``7S commit_p1 -> commit_p1``, of a
    # card that lay face down there): fed instead of the readings, the referee decides or asks.
    unseen_source: Observation | None = None
    # For a card that left the camera's view: the game's observation of it turned face down
    # where it lay (Houska Castle's nullify, ``KD hero_field -> hero_field``), tried last.
    turned_down: Observation | None = None

    @property
    def src(self) -> str:
        return self.readings[0][0]

    def observations(self) -> list[Observation]:
        if self.unseen_source is not None:
            return [self.unseen_source]
        moves = [Observation.move(self.card, src, dst) for src, dst in self.readings]
        return moves + ([self.turned_down] if self.turned_down is not None else [])

    def describe(self) -> str:
        srcs = "/".join(dict.fromkeys(s for s, _ in self.readings))
        dsts = "/".join(dict.fromkeys(d for _, d in self.readings))
        return f"{self.card} {srcs} -> {dsts}"


@dataclass(frozen=True)
class Naming:
    """Where the camera first named a card that came out of hiding: the referee's index of
    that observation, the probability the detector gave the name, and the other names it
    found likely for that card."""

    at: int
    p: float
    others: tuple[str, ...] = ()
    # every other name the detector gave that card some probability, with it (likeliest first)
    candidates: tuple[tuple[str, float], ...] = ()
    camera: str | None = None  # the name the camera reads it by, where the rules chose another
    # Renamed by a surer later read: two reads decided it, a hesitant third does not weaken it
    # (a queen read QD, then QH surely, then QD and QH in turn).
    settled: bool = False


@dataclass(frozen=True)
class Context:
    """What the camera's picture is read against: the referee, the physical table as the
    players left it, and the cards the camera named. The inferrer keeps the one it has
    committed; a trial reads on its own copy, which the inferrer takes over only when the
    trial is accepted."""

    referee: Referee
    physical: dict[str, list[Card]]
    named: dict[str, Naming]

    def referee_zones(self) -> dict[str, list[Card]]:
        return self.referee.game.cards_by_zone(self.referee.state) or {}

    def asked(self) -> list[Movement]:
        """The clean-ups the referee asked for, which the camera may see next."""
        return self.referee.game.asked_movements(self.referee.state)

    def camera_name(self, card: str) -> str | None:
        """The name the camera reads ``card`` by, where the rules named it otherwise."""
        naming = self.named.get(card)
        return naming.camera if naming is not None else None

    def trial(self) -> Referee:
        """A copy of the referee to try observations on (without the game log)."""
        return trial_copy(self.referee)


@dataclass
class Reread:
    """An earlier card re-read by the rules (:meth:`EventInference._reread_plan`): the rename,
    the trial's context (the physical table and cards named after it), and the camera's
    picture, changes and plan after it."""

    rename: Observation
    context: Context
    seen: TableState
    changes: list[Change]
    plan: list[Observation] | None  # None where the rest of the table is read after it


@dataclass
class Correction:
    """A card named unsurely renamed by a later read (:meth:`EventInference._corrected_plan`):
    the rename, the trial's context (its physical table after it), the changes and plan after
    it, and the new name's probability."""

    rename: Observation
    context: Context
    changes: list[Change]
    plan: list[Observation] | None  # None where the rest of the table is read after it
    p: float


@dataclass
class Renaming:
    """Changed cards read by other likely names (:meth:`EventInference._renamed_plan`): the
    changes and plan with them, and each new name's reading (card fed -> name read)."""

    changes: list[Change]
    plan: list[Observation]
    read_as: dict[str, str]


@dataclass
class Stayed:
    """The table read with a card misread where it lay given its old name back
    (:meth:`EventInference._stayed_plan`): that reading, its changes, its plan (None if the
    rules explain it no better) and the name fed -> the name read."""

    seen: TableState
    changes: list[Change]
    plan: list[Observation] | None
    read_as: dict[str, str]


@dataclass
class Accepted:
    """A reading of a change the referee accepts, and the trial referee after it."""

    referee: Referee
    obs: Observation


@dataclass
class Partial:
    """The changes the referee accepts one by one (their plan), and those it never accepts."""

    plan: list[Observation]
    unexplained: list[Change]


@dataclass
class Result:
    fed: list[tuple[Observation, list[Announcement]]] = field(default_factory=list)
    desync: str | None = None  # set when the table cannot be explained (announced once)
    why: list[Announcement] = field(default_factory=list)  # the referee's reason for a desync
    resynced: bool = False  # the table matches the game again after a desync
    read_as: dict[str, str] = field(default_factory=dict)  # card fed -> the name the camera read
    seq: list[int | None] = field(default_factory=list)  # each fed observation's index in referee.fed
    # Steps the camera missed, found by the rules (fed with the changes seen: the players check)
    recovered: Explanation | None = None
    question: RecoveryQuestion | None = None  # several explanations: the players choose
    confirmed: set[str] = field(default_factory=set)  # cards the players named (not to check)


@dataclass
class Held:
    """A typed move waiting for the camera to feed the moves made before it, until its next read
    of the table: the referee may have refused it then (a draw typed before the camera saw the
    discard that ended the other player's turn: "It is red's turn"), or accepted it wrongly
    (as ending that turn before a second discard). Why it waits, when it was typed, and the
    reads it has waited through."""

    obs: Observation
    why: str
    t: float | None = None  # when it was typed (video seconds)
    reads: int = 0


def visible(layout: Layout, physical: dict[str, list[Card]]) -> Counter:
    """(zone, card name) -> how many the camera should see: a face-up pile shows its top,
    a spread every card, a face-down or off-table zone nothing."""
    out: Counter = Counter()
    for zone, cards in physical.items():
        z = layout.zones.get(zone)
        if z is None or z.offtable or z.face == "down" or not cards:
            continue
        for c in cards[-1:] if z.kind == "pile" else cards:
            out[(zone, str(c))] += 1
    return out


def seen_counts(state: TableState) -> Counter:
    return Counter((zone, name) for zone, names in state.cards.items() for name in names)


def renamed(
    state: TableState, renames: list[tuple[str, str, str]], keep_doubts: bool = False
) -> TableState | None:
    """``state`` with each (zone, name, new name) applied; None if that shows a card twice.
    ``keep_doubts``: the cards not renamed keep their likelihoods and other names."""
    cards = {z: list(names) for z, names in state.cards.items()}
    for zone, name, new in renames:
        cards[zone][cards[zone].index(name)] = new
    out = TableState(cards, dict(state.backs), list(state.loose), dict(state.confidence))
    if keep_doubts:
        gone = {(zone, name) for zone, name, _ in renames}
        for table in ("likelihood", "alternatives", "candidates"):
            getattr(out, table).update((k, v) for k, v in getattr(state, table).items() if k not in gone)
    shown = out.all_face_up()
    if any(k > copies_of(n) for n, k in shown.items()):
        return None
    return out


# Two cards read where each other lay (EventInference._read_as_each_other): how likely their
# first names and the trade are, the two names, and where each lay.
Crossed = tuple[float, float, str, str, str, str]


def read_p(seen: TableState, zone: str, shown: str, name: str) -> float:
    """How likely the card read as ``shown`` in ``zone`` is ``name``, as the camera read it."""
    if name == shown:
        return seen.likelihood.get((zone, shown), 1.0)
    return dict(seen.candidates.get((zone, shown), ())).get(name, UNLIKELY)


def confused_names(seen: TableState, zone: str, name: str) -> set[str]:
    """The names the card read as ``name`` in ``zone`` may be: the detector's alternatives, and
    every name it found at least ``AS_LIKELY`` as likely (a read that hardly prefers its name,
    a blurred card with a dozen names near 0.06, is confused with them all)."""
    p = seen.likelihood.get((zone, name), 1.0)
    likely = {n for n, q in seen.candidates.get((zone, name), ()) if q >= AS_LIKELY * p}
    return likely | set(seen.alternatives.get((zone, name), ()))


def named_p(naming: Naming, name: str) -> float:
    """How likely a card named with ``naming`` was ``name``, as the camera first read it."""
    return max(dict(naming.candidates).get(name, 0.0), UNLIKELY)


def names_before(first: Naming, old: str, new: str) -> tuple[tuple[str, float], ...]:
    """The names a card first named ``old`` (with ``first``) may still be once renamed
    ``new``: ``old`` and its other candidates, likeliest first."""
    others = ((old, first.p), *((n, p) for n, p in first.candidates if n != new))
    return tuple(sorted(others, key=lambda c: -c[1]))


def swapped(physical: dict[str, list[Card]], old: str, new: str) -> dict[str, list[Card]]:
    """The physical table once the card known as ``old`` is known to be ``new``: the ``new``
    the game thought hidden is then ``old``."""
    swap = {old: Card.parse(new), new: Card.parse(old)}
    return {z: [swap.get(str(c), c) for c in cs] for z, cs in physical.items()}


class EventInference:
    """Feeds a referee from settled table states. ``physical`` starts as the referee's zones."""

    def __init__(self, referee: Referee, layout: Layout):
        zones = referee.game.cards_by_zone(referee.state)
        if zones is None:
            # Only a game that tells every known card's zone can be compared with a table.
            name = referee.game.name
            raise ConfigError(
                f"{name}: the camera referee cannot follow this game yet (its referee keeps no "
                f"cards by zone); referee it from typed observations: cardref play {name}"
            )
        game_zones, table_zones = set(referee.game.zones), set(layout.zones)
        if game_zones != table_zones:
            # A variant played on a layout printed for another (Royal Crush's layout seats 4
            # players): the camera would miss some cards' moves and name zones the game lacks.
            lacks, more = sorted(game_zones - table_zones), sorted(table_zones - game_zones)
            said = [f"no zone {', '.join(lacks)}"] if lacks else []
            said += [f"zones {', '.join(more)} this game has not"] if more else []
            raise ConfigError(
                f"{referee.game.name}: the table layout {layout.name!r} has {' and '.join(said)} "
                "(its variants need another layout)"
            )
        self.layout = layout
        # The referee, the physical table and the cards the camera named as they came into view.
        self.context = Context(referee, {z: list(cs) for z, cs in zones.items()}, {})
        hidden = [z.id for z in layout.zones.values() if z.offtable or z.face == "down"]
        # A card that leaves the camera's view goes to the discard pile or out of the game far
        # more often than back into the draw pile: try that last.
        self.hidden_zones = tuple(sorted(hidden, key=lambda z: z.startswith("draw")))
        self.desync: str | None = None
        # Cards a typed observation put in view that the camera has not seen there yet.
        self.awaited: set[tuple[str, str]] = set()
        # A name the camera reads -> the name a player gave that card (a rename typed or keyed):
        # the classifier that misread a card once will most likely misread it again.
        self.aliases: dict[str, str] = {}
        # The aliases given for a card the camera had named surely: they stand for every read
        # of that name. A card it had named unsurely is read by other unsure names in turn, one
        # of which is the real card's when it comes out: its alias only marks where that card
        # is seen moving or lying (``changes``), never renames a read on the whole table.
        self.sure_aliases: set[str] = set()
        # The camera's picture (and the referee's length) that no re-reading explained last.
        self._unexplained: tuple | None = None
        # The sure reads of the last table that contradicted sure names (_surely_contradicted).
        self._contradicted: set[tuple[str, str, str]] = set()
        self.question: RecoveryQuestion | None = None  # open until a player picks an explanation
        # (zone, card) of cards gone from view that no legal move explained and the referee
        # keeps where they lay (a fort's card under the hit laid across it): the camera does not
        # see them, they have not moved. Left out of the changes until seen or moved again, so
        # that they do not leave every reading (and every search for missed steps) wanting.
        self.unseen_in_place: set[tuple[str, str]] = set()
        # Names standing for cards drawn and put out of sight unseen (``Explanation.blind``).
        self.stand_ins: set[str] = set()
        self._unfilled: tuple | None = None  # the last table a back in an empty zone left unexplained
        self._question_seen: TableState | None = None
        self._question_read_as: dict[str, str] = {}  # the names the rules chose for that table
        # Whether players answer questions (live, or a replay with its players): then a card
        # gone from view that legal moves put in two places is asked about, not guessed.
        self.ask_readings = False
        self.held: list[Held] = []  # typed moves waiting for the camera to catch up, in order
        # When each table zone last moved before the read being fed (video seconds), where the
        # camera tells: the held moves go between the camera's moves in that order.
        self._times: dict[str, float] | None = None
        self._since: float | None = None  # when the table before this read was read
        self._fed_at: dict[str, float] = {}  # layout zone -> when a move there was last fed
        # A card named as it came into view -> its reads since where the referee took it to lie
        # alone on a pile's top (name -> probability): many reads name a card better than one.
        self._still_reads: dict[str, list[dict[str, float]]] = {}

    @property
    def referee(self) -> Referee:
        return self.context.referee

    @property
    def physical(self) -> dict[str, list[Card]]:
        return self.context.physical

    @property
    def named(self) -> dict[str, Naming]:
        return self.context.named

    # ---- what changed ------------------------------------------------------------------
    def changes(self, seen: TableState, ctx: Context) -> list[Change]:
        """The differences between ``seen`` and the physical table of ``ctx``, with their
        readings by the rules of its referee."""
        expected, now = visible(self.layout, ctx.physical), seen_counts(seen)
        # A card a typed observation put in view (a reveal typed before the cards are turned
        # up) is not gone before the camera has seen it there once. (Every reading, a trial's
        # too, forgets those seen: a trial's picture is one the camera could have taken.)
        self.awaited = {a for a in self.awaited if now[a] == 0}
        appeared = [(z, n) for (z, n), k in (now - expected).items() for _ in range(k)]
        gone = [
            (z, n) for (z, n), k in (expected - now).items() for _ in range(k) if (z, n) not in self.awaited
        ]
        # A card the rules named otherwise than the camera, gone from where it lay, and the
        # camera's name for it read unsurely elsewhere: that card, moved (or, where it lay, the
        # same card still).
        for zone, name in list(appeared):
            if seen.likelihood.get((zone, name), 1.0) >= UNSURE_NAMING:
                continue
            confused = {name, *seen.alternatives.get((zone, name), ())}
            moved = next(  # the card that lay here first: two cards may share a camera name
                (
                    g
                    for g in sorted(gone, key=lambda g: g[0] != zone)
                    if ctx.camera_name(g[1]) == name or confused & self._given(g[1])
                ),
                None,
            )
            if moved is not None and moved[0] == zone:
                appeared.remove((zone, name))
                gone.remove(moved)
            elif moved is not None:
                appeared[appeared.index((zone, name))] = (zone, moved[1])
        # A card read unsurely by another name it was confused with, where that card lay, is
        # the same card read differently: names flip between reads of a hard card, and taking
        # each flip for a new card on top would feed moves that never happened.
        for zone, name in list(appeared):
            if seen.likelihood.get((zone, name), 1.0) >= UNSURE_NAMING:
                continue
            if any(n == name and z != zone and not refused(ctx.trial(), Observation.move(name, z, zone))
                   for z, n in gone):
                continue  # the card of that name left its zone, and may come here: it came here (a
                # drawn JD discarded face-up on a flop pile read JD at 0.07, not the JC it covers
                # read again). Not a resident the detector missed (held-out seed 149, staging
                # hidden: a guyenne KD on a flop read JH at chance as the resident JH went unseen).
            # (Not when that name is read elsewhere now: then it moved, and this is another card.)
            # A name the players gave a misread card stands for the camera's name of it too.
            confused = confused_names(seen, zone, name)
            confused |= {self.aliases[a] for a in confused if a in self.aliases}
            # A card whose name is settled (the players confirmed it) that the camera found
            # likely to be this name: a king also read as a jack, confirmed a king, is read as
            # the jack again where it lies (held-out seed 149 lost five moves to that).
            confused |= {c for c, naming in self.named.items() if naming.settled and name in naming.others}
            elsewhere = {n for z, n in appeared if z != zone}
            same = next(
                (g for g in gone if g[0] == zone and g[1] in confused and g[1] not in elsewhere), None
            )
            if same is not None:
                appeared.remove((zone, name))
                gone.remove(same)
        changes: list[Change] = []
        for zone, name in appeared:
            src = next((z for z, n in gone if n == name), None)
            if src is not None:
                gone.remove((src, name))
                changes.append(Change(name, ((src, zone),)))
            elif self._revealed(ctx, zone, name):
                continue  # was under the pile's top all along
            else:
                home = self._hidden_home(ctx, name)
                if home is None:
                    continue  # not a card of this game's table (a misread): ignore
                others = [h for h in self.hidden_zones if h != home]
                placed = ctx.referee.game.unseen_source(Card.parse(name), zone)
                changes.append(Change(name, tuple((h, zone) for h in [home, *others]), unseen_source=placed))
        # A card that left may lie under a pile's new top (a discard onto a flop pile and the
        # next flop on top of it, before the table settled).
        new_tops = [z for z, _ in appeared if self.layout.zones[z].kind == "pile"]
        misread_tops = self._misread_tops(seen, expected)
        for zone, name in gone:
            if self._left(ctx, zone, name, now):
                dests = [d for d in new_tops if d != zone] + [z for z, may in misread_tops if name in may]
                dests += list(self._hidden_destinations(ctx, name, zone))
                down = ctx.referee.game.turned_down(Card.parse(name), zone)
                readings = tuple((zone, d) for d in dict.fromkeys(dests))
                changes.append(Change(name, readings, vanished=True, turned_down=down))
        return [c for c in changes if not (c.vanished and (c.src, c.card) in self.unseen_in_place)]

    def _misread_tops(self, seen: TableState, expected: Counter) -> list[tuple[str, set[str]]]:
        """(pile, the names its top may be) for each pile stirred since the last read whose top
        is read unsurely by the name of the card the camera has there (``expected``, the
        physical table's view): a card that left, unseen where it went, with one of those names
        lies there, misread as the card it covers (a guyenne `JD` discarded face-up on the
        `JC`'s flop pile, read `JC` at chance, was fed as a face-down discard: held-out seed 147
        under noise lost its last three moves)."""
        if self._times is None or self._since is None:
            return []
        tops = []
        for zone, names in seen.cards.items():
            z = self.layout.zones.get(zone)
            if z is None or z.kind != "pile" or zone in self.hidden_zones or len(names) != 1:
                continue
            if self._times.get(zone, -math.inf) <= self._since or expected[(zone, names[0])] == 0:
                continue  # not stirred, or a card come here: its own reading
            if seen.likelihood.get((zone, names[0]), 1.0) < UNSURE_NAMING:
                tops.append((zone, confused_names(seen, zone, names[0])))
        return tops

    def _given(self, card: str) -> set[str]:
        """The camera's names of a card the players renamed (its aliases)."""
        return {read for read, given in self.aliases.items() if given == card}

    @staticmethod
    def _revealed(ctx: Context, zone: str, name: str) -> bool:
        return any(str(c) == name for c in ctx.physical.get(zone, [])[:-1])

    def _hidden_home(self, ctx: Context, name: str) -> str | None:
        """Where an unseen card physically is: a face-down zone, or under a pile's top."""
        view = visible(self.layout, ctx.physical)
        homes = [
            z for z, cards in ctx.physical.items() for c in cards if str(c) == name and view[(z, name)] == 0
        ]
        known = ctx.referee_zones()
        referee_zone = next((z for z, cards in known.items() if any(str(c) == name for c in cards)), None)
        if referee_zone in homes or (homes and referee_zone in self.hidden_zones):
            return referee_zone  # e.g. the discard pile turned over as the new draw pile
        return homes[0] if homes else None

    def _left(self, ctx: Context, zone: str, name: str, now: Counter) -> bool:
        """Did the card leave ``zone`` (rather than get covered, or go unseen for a moment)?"""
        z = self.layout.zones[zone]
        if z.kind != "pile":
            return True
        below = ctx.physical[zone][:-1]
        on_top_now = [n for (zz, n), k in now.items() if zz == zone and k > 0]
        if not below:
            return not on_top_now
        return str(below[-1]) in on_top_now

    def _hidden_destinations(self, ctx: Context, name: str, src: str) -> tuple[str, ...]:
        asked = [m.dst for m in ctx.asked() if m.card == name and m.src == src]
        rest = [z for z in self.hidden_zones if z not in asked]
        return tuple(asked + rest)

    # ---- feeding the referee -----------------------------------------------------------
    def update(self, seen: TableState, times: dict[str, float] | None = None,
               now: float | None = None, since: float | None = None) -> Result:
        """Feed the referee what changed between the last table and ``seen``; ``times``: when
        each layout zone last moved (places the moves typed meanwhile among the camera's),
        ``now``: when ``seen`` was read, ``since``: when the table before it was (a zone still
        since keeps its card, :meth:`_unmoved`)."""
        self._times, self._since = times, since
        result = self._update(self._unmoved(seen, since))
        if self.referee.pending is None and self.question is None:
            self._note_reads(seen)
            if (reread := self._pooled_rename(seen)) is not None:
                self._reread(reread, result)
        for obs, notes in result.fed if now is not None else []:
            if not any(a.kind == "REJECT" for a in notes):
                self._fed_at.update({self.layout.lies_in(z): now for z in (obs.src, obs.dst) if z})
        return result

    def backs_as_faces(self, seen: TableState, times: dict[str, float] | None,
                       since: float | None) -> TableState:
        """A back counted where the rules lay no more cards face down than lie there
        (``Game.face_down_count``: Dukes Up!'s dukes once turned up), in a zone that moved
        since the last read and where a card the camera saw there is not read now: a face the
        detector could not name, either that card (its name among the back's faces) or one
        laid in its place, named by its likeliest free face, unsurely, for the players' check.
        A guyenne `QH` laid as red's new duke for the `2D`, read back 0.10 and every face 0.06
        or less, was a back, and the switch was never seen (Dukes Up! bench seed 6). Only
        there: read by its faces wherever dukes lie, a duke untouched and read at chance is a
        switch nobody made. The camera reads its table through this before :meth:`update`, so
        that what it reports of a card (its name's probability, the names offered for a
        check) is of the table read so."""
        if times is None or since is None:
            return seen
        game, state = self.referee.game, self.referee.state
        expected: Counter | None = None  # what the camera should see: only once a zone qualifies
        out: TableState | None = None
        for zone, n in seen.backs.items():
            k = game.face_down_count(state, zone)
            if k is None or n <= k or times.get(zone, -math.inf) <= since:
                continue
            if expected is None:
                expected = visible(self.layout, self.physical)
            read = seen.cards.get(zone, [])
            missing = [name for (z, name), c in expected.items() if z == zone and c and name not in read]
            if not missing or not seen.back_faces.get(zone):
                continue
            if out is None:
                out = replace(seen, cards={z: list(v) for z, v in seen.cards.items()}, backs=dict(seen.backs),
                              likelihood=dict(seen.likelihood), candidates=dict(seen.candidates))
            shown = out.all_face_up()
            for _, faces in sorted(seen.back_faces[zone])[: min(n - k, len(missing))]:
                free = [(name, q) for name, q in faces if shown[name] < copies_of(name)]
                if not free:
                    continue
                there = [(name, q) for name, q in free if name in missing]
                name, q = there[0] if there else free[0]
                if there:
                    missing.remove(name)
                out.cards.setdefault(zone, []).append(name)
                out.likelihood[(zone, name)] = q
                out.candidates[(zone, name)] = tuple(f for f in free if f[0] != name)
                out.backs[zone] -= 1
                shown[name] += 1
        return out if out is not None else seen

    def _update(self, seen: TableState) -> Result:
        result = Result()
        self.question = self._question_seen = None  # a new table supersedes an open question
        if self.held and self.referee.pending is None:
            self._held_first(seen, result)
            if self.referee.pending is not None:
                return result  # the camera's moves before them asked: the rest after the answer
        self._stand_ins_out(seen, result)
        raw, seen = seen, self._aliased(seen, self.context)
        changes, plan = self._read(seen, self.context)
        contradicted = self._surely_contradicted(raw) if plan is None else set()
        if plan is None and (reread := self._read_again(raw, contradicted & self._contradicted)):
            # A card read surely by another name where it lies, twice running, and the table
            # unexplained: its first name was the wrong one, however sure. Put right first.
            self._reread(reread, result)
            seen = self._aliased(raw, self.context)
            changes, plan = self._read(seen, self.context)
        pairs = self._read_as_each_other(seen) if plan is None else []
        if pairs and (traded := self._traded(pairs, seen)) is not None:
            # Two cards read where each other lay: taken for each other, not moved. Put right
            # first, so that the rest of the table is read with the right names.
            self._correct(traded, result)
            changes, plan = self._read(seen, self.context)
        elif pairs and (back := self._read_back(pairs, seen)) is not None:
            seen = back  # or both misread now, each where it lay
            changes, plan = self._read(seen, self.context)
        # A card named unsurely, read surely as another now: the rename wins when the rules
        # then explain the table in fewer moves (or only then), and it beats a name the
        # detector found less likely than its first choice now.
        # Without a reading of the table, a surer name than the first is enough; with one,
        # the rename must be surer by a margin (a flip between unsure reads is not a re-read).
        stayed = self._stayed_plan(seen, len(plan) if plan is not None else None) if changes else None
        if stayed is None and plan is not None and len(plan) > 1:
            stayed = self._vanished_plan(seen, len(plan))  # moved, and misread where it landed
        if stayed is not None:  # the table read as if that card had not been misread
            seen, changes, plan, result.read_as = stayed.seen, stayed.changes, stayed.plan, stayed.read_as
        margin = RENAME_MARGIN if plan is not None else 0.0
        correction = None if stayed else self._corrected_plan(seen, margin)
        found: list[Explanation] | None = None
        sure = plan is None and correction is None and self._surely_read(seen)
        if sure and self._renamed_plan(seen) is None:
            # Every card that changed was read surely, and neither a surer read of an earlier
            # card nor their other likely names explain the table: a step missed, not a name
            # misread, is the likelier story (the last resorts' renamings of earlier cards
            # would fit a wrong name to the table).
            found = self._recover(seen)
        if found:
            pass
        elif correction is not None and (plan is None or len(correction.plan) < len(plan)):
            changes, plan = correction.changes, correction.plan
            self._correct(correction, result)
        elif plan is None:
            # Either the cards read now take other likely names, or, the last resort, a card's
            # first unsure name gives way to a read no surer (two names the detector confused,
            # or the same misreading again where the rules refuse it): the reading in fewer
            # moves wins, the renaming of the cards read now when the two tie.
            renamed = self._renamed_plan(seen)
            correction = self._corrected_plan(seen, None)
            if correction is not None and (renamed is None or len(correction.plan) < len(renamed.plan)):
                changes, plan = correction.changes, correction.plan
                self._correct(correction, result)
            elif renamed is not None:
                changes, plan, result.read_as = renamed.changes, renamed.plan, renamed.read_as
        # The last resorts try many names: not again on the same table the game did not explain.
        attempt = (tuple(sorted(seen_counts(raw).items())), len(self.referee.fed))
        if plan is None and not found and attempt != self._unexplained:
            reread = self._reread_plan(raw, {c.card for c in changes})
            if reread is not None and not reread.plan and len(missed := self._recover(seen)) == 1:
                # The re-read explains the change away (the card read now is the re-read
                # card, misread twice); one step missed explains it with the names as read
                # (a jack drawn onto a jack's flop pile, its time in staging unseen).
                found = missed
            elif reread is not None:
                seen, changes, plan = reread.seen, reread.changes, reread.plan
                self._reread(reread, result)
            elif (kept := self._stayed_plan(seen, None, True)) is not None and kept.plan is not None:
                # A card read by a name the rules refuse where it lies, the card that lay there
                # among its faint names or read by that name before: that card, misread (a court
                # card of a design the detector cannot name: a hero KH read JH at 0.47, KH at
                # 0.06; a Royal Shuffle king laid as JH, the rules chose KH, then read JH
                # surely). Before any unseen name: a card seldom changes where it lies. But as
                # for a re-read, when that explains the change away and one step missed explains
                # it with the names as read, the step was missed (held-out seed 147, staging
                # never seen, with the players: a JD drawn onto the JC's flop pile, read JD at
                # 0.1 with JC faint, was taken for the JC, and the game stayed out of step).
                if not kept.plan and len(missed := self._recover(seen)) == 1:
                    found = missed
                else:
                    seen, changes, plan, result.read_as = kept.seen, kept.changes, kept.plan, kept.read_as
            elif (came := self._vanished_plan(seen)) is not None:
                # A card read, however surely, by a name the rules cannot put where it lies,
                # as a card the camera no longer sees anywhere left its place: that card,
                # misread on its way (a blurred 8S attacking a fort read 8C there).
                seen, changes, plan, result.read_as = came.seen, came.changes, came.plan, came.read_as
            elif (renamed := self._renamed_plan(seen, wide=True)) is not None:
                changes, plan, result.read_as = renamed.changes, renamed.plan, renamed.read_as
        self._contradicted = contradicted if plan is None else set()
        carried: list[Observation] = []
        if plan is None and (found or (found is None and attempt != self._unexplained)):
            # Moves merged by a lost read: the steps the camera missed, searched among the
            # legal moves from the last agreed table (``vision.recovery``).
            found = found or self._recover(seen)
            if len(found) == 1:
                plan, result.recovered = list(found[0].steps), found[0]
                carried = list(found[0].carried)
            elif found:
                self._ask(RecoveryQuestion(found), seen, {}, result)
                self._unexplained = attempt
                return result
        elif plan is not None and attempt != self._unfilled and (filled := self._filled_unseen(seen, plan)):
            # A face-down zone where the game holds nothing shows a back that nothing read put
            # there: a card went there unseen (the game's first card discarded face down, its
            # draw never read; the next player's joker was read as the same player's draw).
            # Only a turn drawn unseen: the cards seen explain the table otherwise.
            blind = [e for e in self._recover(seen, filled) if e.blind]
            self._unfilled = attempt if not blind else None
            if len(blind) == 1:
                found, plan, result.recovered = blind, list(blind[0].steps), blind[0]
                carried = list(blind[0].carried)
        if plan and not found and self.ask_readings and (ways := self._ways_gone(changes, plan, seen)):
            self._ask(RecoveryQuestion(ways), seen, result.read_as, result)
            return result
        self._unexplained = attempt if plan is None else None
        unexplained: list[Change] = []
        if plan is None:  # no order explains everything: take what the rules explain
            partial = self._greedy(changes)
            plan, unexplained = partial.plan, partial.unexplained
        if plan and self.ask_readings and (which := self._name_asked(plan, seen, result.read_as)):
            # Announced from a name read at chance, a damage or a result may be wrong for good
            # (Houska Castle: a QC read JC at 0.28 "nullifies KD"): the players name it first
            # (the table is read again after their answer).
            self._ask(which, seen, result.read_as, result)
            return result
        plan = self._whole_moves(plan)
        self._feed_held(result, plan)  # typed before the camera's moves, where they stay legal
        for k, obs in enumerate(plan):
            if self.referee.pending is not None:
                break  # an ASK is open: the rest waits for the answer
            for i, step in enumerate(self._by_way_of(obs)):
                seq = len(self.referee.fed)
                notes = self.referee.feed(step)
                result.fed.append((step, notes))
                result.seq.append(seq)
                if i == 0:  # named where the camera saw it
                    self._remember_naming(obs, seq, seen, result.read_as)
                self._move(step, self.context)
            if self.referee.pending is None:
                self._feed_held(result, plan[k + 1 :])
        for obs in carried:
            self._move(obs, self.context)
        self._feed_held(result, [])
        if plan:
            self._expire_held(result)
        self._blind_named(result)
        self._sync_hidden()
        # A card gone from view with nowhere legal to have gone was most likely missed by the
        # detector (glare, a shadow): it stays where it was, unless the referee already keeps it
        # out of sight. A card seen where the game cannot have put it is a desync.
        self._follow_referee([c for c in unexplained if c.vanished])
        self._mark_unseen([c for c in unexplained if c.vanished], seen)
        unexplained = [c for c in unexplained if not c.vanished]
        if unexplained:
            reason = "the table does not match the game: " + ", ".join(c.describe() for c in unexplained)
            reason += f"; {self._put_right(unexplained[0])}"
            if reason != self.desync:
                result.desync = reason
                result.why = self.context.trial().feed(unexplained[0].observations()[0])  # state kept
            self.desync = reason
        elif self.desync is not None:
            self.desync, result.resynced = None, True
        return result

    def _ask(
        self, question: RecoveryQuestion, seen: TableState, read_as: dict[str, str], result: Result
    ) -> None:
        """Open ``question`` on the table ``seen`` (read with the names ``read_as``), for the
        players' pick (:meth:`choose`); nothing of that table is fed until then."""
        self.question, self._question_seen, self._question_read_as = question, seen, read_as
        result.question = question

    def _whole_moves(self, plan: list[Observation]) -> list[Observation]:
        """``plan`` without a card gone from view out of a zone that the rules then await a
        card in (``Game.awaited_zone``: a Dukes Up! duke taken into the hand, its replacement
        not seen), until the camera sees the second half: a duke the detector misses for one
        read is no switch (two guyenne dukes side by side, found as one box at 640x360, had the
        next typed draw refused). Kept where the rest of the plan needs it."""
        game = self.referee.game
        gone = [o for o in plan if o.dst in self.hidden_zones and o.src in self.layout.zones]
        if not gone or game.awaited_zone(self.referee.state) is not None:
            return plan
        trial = self.context.trial()
        for obs in plan:
            if trial.pending is not None or refused(trial, obs):
                return plan
        zone = game.awaited_zone(trial.state)
        half = [o for o in gone if o.src == zone]
        if not half:
            return plan
        rest = [o for o in plan if o is not half[-1]]
        trial = self.context.trial()
        if any(refused(trial, obs) for obs in rest):
            return plan
        return rest

    def _surely_read(self, seen: TableState) -> bool:
        """Whether every card seen where the physical table has it not was read surely."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        appeared = [k for k, n in (now - expected).items() if n > 0]
        return bool(appeared) and all(seen.likelihood.get(k, 1.0) >= UNSURE_NAMING for k in appeared)

    def _filled_unseen(self, seen: TableState, plan: list[Observation]) -> frozenset[str]:
        """The face-down zones on the table where the camera surely counts a back (every read
        of the table agreed, each back read at ``SURE_BACK`` or more: a pulsing light shows a
        back for a read or two, at a third of that), the physical table has no card and
        ``plan`` puts none."""
        put = {o.dst for o in plan}
        return frozenset(
            z
            for z in self.hidden_zones
            if z in self.layout.zones
            and not self.layout.zones[z].offtable
            and seen.backs.get(z, 0) > 0
            and seen.confidence.get(z, 1.0) >= 1.0
            and all(p >= SURE_BACK for p, _ in seen.back_faces.get(z, []))
            and not self.physical.get(z)
            and z not in put
        )

    def _recover(self, seen: TableState, filled: frozenset[str] = frozenset()) -> list[Explanation]:
        """The shortest legal explanations of this table through steps the camera missed (each
        putting a card into every zone of ``filled``, if any)."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        came = [(z, n) for (z, n), k in (now - expected).items() if k > 0]
        appeared = {n for _, n in came}
        gone = {(z, n) for (z, n), k in (expected - now).items() if k > 0} - self.unseen_in_place
        cards = appeared | {n for _, n in gone}
        # A pile's top card covered by one that arrived on it (a round's new flop) is most
        # likely still there: it is searched, but it says nothing of another table.
        arrived = {z for z, _ in came}
        covered = {n for z, n in gone if z in arrived and self.layout.zones[z].kind == "pile"}
        if not appeared or len(cards - covered) > MAX_RECOVERED_CARDS:
            return []  # nothing arrived (a card gone is followed), or another table altogether

        def read(trial: Referee, moved: tuple[Observation, ...]) -> tuple[list[Observation] | None, list]:
            """The plan after the cards ``moved`` so far, and the readings of what is left."""
            ctx = Context(trial, {z: list(cs) for z, cs in self.physical.items()}, self.named)
            for obs in moved:
                self._move(obs, ctx)
            changes = self.changes(seen, ctx)
            plan = (self._plan(changes, ctx) if changes else []) if moved else None
            return plan, [o for c in changes for o in c.observations()]

        hidden = frozenset(self.hidden_zones)
        return missed_steps(self.referee, cards, read, self._stirred(), hidden, filled)

    def _stirred(self) -> frozenset[str]:
        """The referee's zones the camera saw move since the last read (none where it does not
        tell): where a turn it saw nothing of may have drawn and put away a card."""
        if self._times is None or self._since is None:
            return frozenset()
        since, times = self._since, self._times
        zones = self.referee.game.zones
        return frozenset(z for z in zones if times.get(self.layout.lies_in(z), -math.inf) > since)

    def _blind_named(self, result: Result) -> None:
        """The stand-ins of cards drawn unseen (``Explanation.blind``) are named by nobody: any
        card still unseen may be theirs, and a sight of the stand-in's own name later renames
        them (:meth:`_stand_ins_out`)."""
        blind = set(result.recovered.blind) if result.recovered is not None else set()
        for (obs, _), seq in zip(result.fed, result.seq, strict=True):
            card = str(obs.card) if obs.card is not None else None
            if card in blind and seq is not None and obs.src in self.hidden_zones:
                self.named[card] = Naming(seq, 0.0)
                self.stand_ins.add(card)
                blind.discard(card)

    def _stand_ins_out(self, seen: TableState, result: Result) -> None:
        """A card seen whose name stands for a card drawn unseen (out of sight, where the
        referee keeps it): that card is another still unseen, renamed first (the first such name
        the referee accepts throughout the game), so that the card seen is read as come out of
        hiding (the turn drawn unseen put another card away)."""
        shown = {n for (_, n), k in seen_counts(seen).items() if k}
        for old in sorted(self.stand_ins & shown):
            self.stand_ins.discard(old)
            naming = self.named.get(old)
            in_view = {n for (_, n), k in visible(self.layout, self.physical).items() if k}
            if naming is None or old in in_view:
                continue  # renamed since, or in view already: the card seen is that one
            for new in self._unseen(in_view | shown):
                if copies_of(new) <= 1 and self._stand_in_renamed(old, new, 0.0, seen, result):
                    self.stand_ins.add(new)
                    break

    def _stand_in_renamed(self, old: str, new: str, p: float, seen: TableState, result: Result) -> bool:
        """Rename the stand-in ``old`` as ``new`` (named with probability ``p``), if the referee
        accepts the game re-read so: whether it did."""
        at = self.named[old].at
        named = dict(self.named)
        named.pop(old)
        named[new] = Naming(at, p)
        rename = Observation("rename", Card.parse(old), data={"as": new, "at": at})
        ctx = self._renamed_context(rename, named)
        if ctx is not None:
            self._reread(Reread(rename, ctx, seen, [], None), result)
        return ctx is not None

    def glimpsed(self, seen: TableState, zones: dict[str, str]) -> Result:
        """Stand-ins of cards drawn unseen, named by a glimpse: ``seen`` is a frame where the
        table stood still too briefly to be read (a game played fast: a drawn card shown in
        staging for a third of a second), ``zones`` each stand-in's zone where its draw put it
        in view. The likeliest face read there that the game has not shown yet is the card: the
        stand-in is renamed so (a re-read, flagged for the players' check like the turn it
        stands for). Read unsurely there, it stays a stand-in that a later sight renames."""
        result = Result()
        in_view = {n for (_, n), k in visible(self.layout, self.physical).items() if k}
        for card, zone in sorted(zones.items()):
            naming = self.named.get(card)
            if card not in self.stand_ins or naming is None:
                continue
            names = sorted(seen.cards.get(zone, []), key=lambda n: -seen.likelihood.get((zone, n), 1.0))
            for new in names:
                if new in in_view or (new in self.named and new != card) or copies_of(new) > 1:
                    continue
                p = seen.likelihood.get((zone, new), 1.0)
                if new == card:  # the stand-in was the card
                    self.named[card] = Naming(naming.at, p)
                elif not self._stand_in_renamed(card, new, p, seen, result):
                    continue
                self.stand_ins.discard(card)
                if p < UNSURE_NAMING:
                    self.stand_ins.add(new)
                break
        return result

    def choose(self, key: int, confirm: bool = True) -> Result:
        """A player's pick among the explanations of an open :class:`RecoveryQuestion`: its
        steps are fed, and the table read since is compared again. A card's name picked is
        that card's, not to be checked again (unless not ``confirm``: the players pick the
        camera's name to put it right after, the card's name not among the choices)."""
        question = self.question
        if question is None or not 1 <= key <= len(question.choices):
            n = len(question.choices) if question else 0
            said = f"{key}: expected a choice from 1 to {n}" if n else "no question on missed moves is open"
            raise CardrefError(said)
        chosen, seen = question.choices[key - 1], self._question_seen
        self.question = self._question_seen = None
        result = Result(recovered=chosen if chosen.missed else None, read_as=dict(self._question_read_as))
        named = chosen.named  # the name picked for the card the camera read as question.card
        if named is not None and named != question.card:
            result.read_as[named] = question.card
        steps = self._whole_moves(list(chosen.steps)) if question.card else chosen.steps
        for obs in steps:
            seq = len(self.referee.fed)
            result.fed.append((obs, self.referee.feed(obs)))
            result.seq.append(seq)
            if seen is not None:
                self._remember_naming(obs, seq, seen, result.read_as)
            self._move(obs, self.context)
            if self.referee.pending is not None:
                break
        for obs in chosen.carried:
            self._move(obs, self.context)
        if named is not None and confirm:
            self.confirm(named)
            result.confirmed.add(named)
        self._blind_named(result)
        self._sync_hidden()
        if self.desync is not None:
            self.desync, result.resynced = None, True
        return result

    def _put_right(self, change: Change) -> str:
        """What the players can do about a change no legal sequence explains: the line to type
        when the rules have a step of that card the camera may have missed, else put it back."""
        steps = legal_steps(self.referee, {change.card})
        if steps:
            return f"if {change.card} went there legally, type the step the camera missed: {steps[0].short()}"
        return f"put {change.card} back on {change.src}, or type what happened"

    def _correct(self, correction: Correction, result: Result) -> None:
        """Commit the trial of :meth:`_corrected_plan`: its physical table, and its rename fed."""
        rename = correction.rename
        self.context = replace(self.context, physical=correction.context.physical)
        result.fed.append((rename, self.referee.feed(rename)))
        result.seq.append(None)
        old, new = str(rename.card), str(rename.data["as"])
        first, theirs = self.named.pop(old), self.named.pop(new, None) if is_swap(rename.data) else None
        # Settled by two reads, but the first name stays a possible one (read surely again
        # where the card lies, it may yet win: :meth:`_surely_contradicted`).
        self.named[new] = Naming(first.at, correction.p, (old,), names_before(first, old, new), settled=True)
        if theirs is not None:  # the other of two cards taken for each other
            self.named[old] = Naming(theirs.at, theirs.p, settled=True)

    def _aliased(self, seen: TableState, ctx: Context) -> TableState:
        """The camera's picture with the names the players gave misread cards, where the name
        read is not one the game shows on the table of ``ctx`` (then it is the card itself,
        come out)."""
        in_view = {n for (_, n), k in visible(self.layout, ctx.physical).items() if k}
        renames = [
            (zone, name, self.aliases[name])
            for zone, names in seen.cards.items()
            for name in names
            if name in self.sure_aliases and name not in in_view
        ]
        out = renamed(seen, renames) if renames else None
        if out is None:  # nothing to rename, or the names given would show a card twice
            return seen
        out.likelihood, out.alternatives = dict(seen.likelihood), dict(seen.alternatives)
        out.candidates = dict(seen.candidates)
        for zone, _, new in renames:
            out.likelihood[(zone, new)] = 1.0  # a player's word
        return out

    def _remember_naming(self, obs: Observation, seq: int, seen: TableState, read_as: dict[str, str]) -> None:
        """Note how surely a card was named as it came into view; a later read of it in view
        that is less sure (a card read by its name again, but hesitantly) weakens that name. A
        name the rules chose (``read_as``: the card fed -> the name the camera read) is as
        unsure as the camera's probability of it, and the camera's name is kept."""
        if obs.card is None or obs.dst is None or obs.dst in self.hidden_zones:
            return
        # A card put in view from a place the camera cannot tell (Royal Shuffle's ``placed``)
        # or turned up where it lay face down came into view as much as one drawn from a pile.
        from_unseen = obs.src is None or obs.src == obs.dst or obs.src in self.hidden_zones
        card = str(obs.card)
        read = read_as.get(card, card)  # the rules may have chosen another name than the camera's
        at = (obs.dst, read)
        p, others = seen.likelihood.get(at, 1.0), seen.alternatives.get(at, ())
        candidates = seen.candidates.get(at, ())
        if read != card:
            p = dict(candidates).get(card, UNLIKELY)
            others = (read, *(n for n in others if n != card))
            candidates = ((read, seen.likelihood.get(at, 1.0)), *((n, q) for n, q in candidates if n != card))
        first = self.named.get(card)
        if from_unseen and (first is None or not first.settled):
            # Come out of hiding again (a pile shuffled and drawn from), it is named anew: the
            # camera's name now may be another card's, and a rename counts from here.
            self.named[card] = Naming(seq, p, others, candidates, read if read != card else None)
            self._still_reads[card] = []  # its reads from this one on (``_note_reads``)
        elif not from_unseen and first is not None and p < first.p and not first.settled:
            likeliest = dict(first.candidates)
            for name, q in candidates:
                likeliest[name] = max(q, likeliest.get(name, 0.0))
            merged = tuple(sorted(likeliest.items(), key=lambda c: -c[1]))
            others = tuple(dict.fromkeys(first.others + others))
            self.named[card] = Naming(first.at, p, others, merged, first.camera)

    def _corrected_plan(self, seen: TableState, margin: float | None) -> Correction | None:
        """A card named unsurely when it came into view, gone from where it lay, while a card
        the game has not shown yet appears: the camera may have misread the first. The likeliest
        such rename the referee accepts, with which the table is explained: the rename, the
        physical table, the changes and plan after it, and the new name's probability. The new
        name must be likelier than the first by ``margin``; with None, it is no likelier (the
        last resort, once the likelier ones have failed), or the card has moved and is misread
        by the same name again where the rules refuse it (a queen of spades read `QC` in staging
        and again on the spades' residents): then it takes one of the other names both reads
        found likely."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        appeared = [(z, n) for (z, n), k in (now - expected).items() if k > 0]
        gone = {n for (_, n), k in (expected - now).items() if k > 0}
        lay = {n: z for (z, n), k in (expected - now).items() if k > 0}
        in_view = {n for (_, n), k in expected.items() if k > 0}
        options = []
        for old in gone:
            naming = self.named.get(old)
            if naming is None or naming.p >= UNSURE_NAMING:
                continue
            for zone, new in appeared:
                p = seen.likelihood.get((zone, new), 1.0)
                if new == old:
                    if margin is None:  # misread again: the names both reads found likely
                        alts = [
                            a
                            for a in seen.alternatives.get((zone, old), ())
                            if a in naming.others and a not in in_view and a not in self.named
                        ]
                        here = lay.get(old) == zone
                        options += [
                            (here, -1 - k, old, a, naming.at, naming.p, renamed(seen, [(zone, old, a)]))
                            for k, a in enumerate(alts)
                        ]
                    continue
                # A misread is between names the detector found likely for that one card; a
                # card the camera never confused with it is another card (laid on top of it).
                confused = new in naming.others or old in seen.alternatives.get((zone, new), ())
                surely = p <= naming.p if margin is None else p > naming.p + margin
                if new not in in_view and new not in self.named and surely and confused:
                    # A card read where the misread one lay is likelier it than one elsewhere.
                    options.append((lay.get(old) == zone, p - naming.p, old, new, naming.at, p, seen))
        options.sort(key=lambda o: o[:4], reverse=True)
        for *_, old, new, at, p, read in options[:MAX_CORRECTIONS]:
            if read is None:
                continue  # the other name would show a card twice
            rename = Observation("rename", Card.parse(old), data={"as": new, "at": at})
            ctx = self._renamed_context(rename, self.named)
            if ctx is None:
                continue
            changes, plan = self._read(read, ctx)
            if plan is not None:
                return Correction(rename, ctx, changes, plan, p)
        return None

    def _read_as_each_other(self, seen: TableState) -> list[Crossed]:
        """Pairs of cards read where each other lay (``b`` where ``a`` lay and ``a`` where ``b``
        lay), each with how likely the names first given are and how likely the trade, by both
        reads of each card: (first, traded, a, b, where a lay, where b lay). A card the camera
        did not name as it came into view (a castle dealt at set-up) is surely its name."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        appeared = {(z, n) for (z, n), k in (now - expected).items() if k > 0}
        lay = {n: z for (z, n), k in (expected - now).items() if k > 0}
        pairs = []
        for a, b in itertools.combinations(sorted(lay), 2):
            za, zb = lay[a], lay[b]
            if (za, b) not in appeared or (zb, a) not in appeared:
                continue
            na, nb = self.named.get(a, Naming(-1, 1.0)), self.named.get(b, Naming(-1, 1.0))
            first = na.p * nb.p * read_p(seen, za, b, a) * read_p(seen, zb, a, b)
            traded = named_p(na, b) * named_p(nb, a) * read_p(seen, za, b, b) * read_p(seen, zb, a, a)
            pairs.append((first, traded, a, b, za, zb))
        return pairs

    def _traded(self, pairs: list[Crossed], seen: TableState) -> Correction | None:
        """Two cards read where each other lay, one of them named unsurely when it came into
        view (among ``pairs``, :meth:`_read_as_each_other`): most likely misread for each
        other (two red threes dealt side by side), not moved, when both reads of each make the
        trade ``TRADE_ODDS`` times likelier than the names first given. The likeliest such
        rename the referee accepts, or None; its plan is not sought (the rest of the table is
        read after it)."""
        options = []
        for first, traded, a, b, za, _ in pairs:
            na, nb = self.named.get(a), self.named.get(b)
            if na is None or nb is None or min(na.p, nb.p) >= UNSURE_NAMING or (na.settled and nb.settled):
                continue
            if traded > TRADE_ODDS * first:
                options.append((-traded, a, b, min(na.at, nb.at), seen.likelihood.get((za, b), 1.0)))
        for _, a, b, at, p in sorted(options):
            rename = Observation("rename", Card.parse(a), data={"as": b, "at": at, "swap": True})
            ctx = self._renamed_context(rename, self.named)
            if ctx is not None:
                return Correction(rename, ctx, [], None, p)
        return None

    def _read_back(self, pairs: list[Crossed], seen: TableState) -> TableState | None:
        """Two cards read where each other lay, both now unsurely and each by a name the other
        read found likely, whose trade is no likelier than their first names (a castle dealt at
        set-up, or a coin toss): both misread now, each still where it lay. The table read so,
        or None."""
        for first, traded, a, b, za, zb in pairs:
            unsure = max(seen.likelihood.get((za, b), 1.0), seen.likelihood.get((zb, a), 1.0)) < UNSURE_NAMING
            confused = read_p(seen, za, b, a) >= AS_LIKELY * read_p(seen, za, b, b) and read_p(
                seen, zb, a, b
            ) >= AS_LIKELY * read_p(seen, zb, a, a)
            if unsure and confused and traded <= TRADE_ODDS * first:
                return renamed(seen, [(za, b, a), (zb, a, b)], keep_doubts=True)
        return None

    def _renamed_plan(self, seen: TableState, wide: bool = False) -> Renaming | None:
        """The changes and plan of the likeliest renaming of changed cards (each to one of its
        other likely names) that the referee accepts throughout, and each new name's reading;
        or None. ``wide``: one card named unsurely now takes any name of a card still unseen,
        those the detector found likelier first (the last resort, for a design whose court cards
        the detector cannot name at all)."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        if wide:
            tries = self._wide_renamings(seen, expected, now)
        else:
            changed = [
                (zone, name, alts)
                for (zone, name), alts in seen.alternatives.items()
                if now[(zone, name)] > expected[(zone, name)]
            ]
            options = [[(z, n, alt, rank) for rank, alt in enumerate(alts, 1)] for z, n, alts in changed]
            tries = []
            for k in range(1, min(MAX_RENAMED, len(options)) + 1):
                for cards in itertools.combinations(options, k):
                    for combo in itertools.product(*cards):
                        tries.append((sum(r for *_, r in combo), combo))
            tries = sorted(tries, key=lambda t: t[0])[:MAX_RENAMINGS]
        for _, combo in tries:
            # The cards not renamed keep their doubts: one read unsurely by the camera's name of
            # the card the players renamed where it lies is still that card (a guyenne KC read
            # JC on its discard pile again while an AD elsewhere flipped to AH).
            state = renamed(seen, [(zone, name, alt) for zone, name, alt, _ in combo], keep_doubts=True)
            if state is None:
                continue
            changes = self.changes(state, self.context)
            explained = {(c.card, dst) for c in changes for _, dst in c.readings}
            if not all((alt, zone) in explained or expected[(zone, alt)] for zone, _, alt, _ in combo):
                continue  # a name that is no card of this table would just be ignored
            plan = self._plan(changes, self.context) if changes else []
            if plan is not None:
                return Renaming(changes, plan, {alt: name for _, name, alt, _ in combo})
        return None

    def _ways_gone(
        self, changes: list[Change], plan: list[Observation], seen: TableState
    ) -> list[Explanation]:
        """Where a card went that the camera saw leave but not arrive, when the rules allow
        several places that end the game differently (a shown card discarded face down, or laid
        on a flop pile that the next flop covered before the table settled), or in which order
        the cards that changed moved, when the orders end the game differently: each way, the
        plan's first, for the players to pick; or [] when the plan is the only way. Not when a
        pile it may lie under shows a card read unsurely: that is most likely the card itself,
        misread, and the plan (under that pile's top) is right."""

        def doubtful(change: Change) -> bool:
            return any(
                seen.likelihood.get((dst, name), 1.0) < UNSURE_NAMING
                for _, dst in change.readings
                for name in seen.cards.get(dst, [])
                if self.layout.zones[dst].kind == "pile" and dst not in self.hidden_zones
            )

        gone = [c for c in changes if c.vanished and len(c.readings) > 1 and not doubtful(c)]
        tries = [plan]
        for g in gone:
            for reading in g.readings:
                only = [replace(c, readings=(reading,)) if c is g else c for c in changes]
                tries.append(self._plan(only, self.context))
        # (Not a plan cut short by an ASK, nor one led by a clean-up the referee asked for.)
        whole = len(plan) == len(changes) and not any(self._rank(c, self.context) == 0 for c in changes)
        if whole and 1 < len(changes) <= MAX_PERMUTED:
            # Two moves seen in one read (an arm hid the table between them) made in either
            # order by the rules: a bonus claimed (JH executed) or the next player's draw
            # first, which ends the bonus (and a surprise 2 takes the JH).
            orders = [self._accepted(list(order), self.context) for order in itertools.permutations(changes)]
            tries += [steps for steps in orders if steps is not None and len(steps) == len(changes)]
        ways: dict[str, Explanation] = {}
        for steps in tries:
            if not steps:
                continue
            trial = self.context.trial()
            for obs in steps:
                trial.feed(obs)
            key = trial.game.outcome_key(trial.state)
            ways.setdefault(key, Explanation(tuple(steps), (), key))
        return list(ways.values())[:MAX_CHOICES] if len(ways) > 1 else []

    def _name_asked(
        self, plan: list[Observation], seen: TableState, read_as: dict[str, str]
    ) -> RecoveryQuestion | None:
        """Which card it is, for the first card of ``plan`` that comes into view named unsurely
        where another of its likely names, legal too, makes the referee announce another damage
        or result (a jack's nullify, a queen's nothing): the fed name first, then the others the
        rules accept, for the players to pick by the card's name. None when every likely name
        says the same (the name check after the move is enough then)."""
        shown = seen.all_face_up()
        for obs in plan:
            if obs.card is None or obs.dst is None or obs.dst in self.hidden_zones:
                continue
            if not (obs.src is None or obs.src == obs.dst or obs.src in self.hidden_zones):
                continue  # named when it came out: the camera follows it by that name
            card = str(obs.card)
            read = read_as.get(card, card)
            if seen.likelihood.get((obs.dst, read), 1.0) >= UNSURE_NAMING:
                continue
            faint = [n for n, _ in seen.candidates.get((obs.dst, read), ())]
            names = dict.fromkeys([card, read, *seen.alternatives.get((obs.dst, read), ()), *faint])
            ways: list[Explanation] = []
            said: set[tuple[tuple[str, ...], ...]] = set()
            for name in list(names)[: MAX_CHOICES + 2]:
                if name != card and (shown[name] > (name == read) or name in ("BACK", "JK")):
                    continue  # seen elsewhere now (not as this card), or no face to name
                new = Card.parse(name)
                steps = [replace(o, card=new) if o.card == obs.card else o for o in plan]
                way = self._decisive(steps, name)
                if way is not None and len(ways) < MAX_CHOICES:
                    ways.append(Explanation(tuple(steps), (), "", label=way[0], named=name))
                    said.add(way[1])
            if len(said) > 1:
                return RecoveryQuestion(ways, card=read)
        return None

    def _decisive(
        self, steps: list[Observation], name: str
    ) -> tuple[str, tuple[tuple[str, ...], ...]] | None:
        """``steps`` fed on a trial referee, None if it refuses one: a label (the name and the
        first damage or result it brings) and those announcements with ``name`` left out (two
        names alike in effect say the same), and after each answer where the rules ask (a
        card drawn or the observation card turned up: the effect follows the answer)."""
        trial = self.context.trial()
        said: list[list[Announcement]] = [[]]
        for obs in steps:
            if trial.pending is not None:
                break
            got = trial.feed(obs)
            if any(a.kind == "REJECT" for a in got):
                return None
            said[0] += [a for a in got if a.kind in DECISIVE]
        if trial.pending is not None:
            for k in range(1, len(trial.pending.moves) + 1):
                said.append([a for a in trial_copy(trial).feed(Observation.answer(k)) if a.kind in DECISIVE])
        first = next((a.text for notes in said for a in notes), None)
        label = f"{name}: {first}" if first else name
        return label, tuple(tuple(a.text.replace(name, "?") for a in notes) for notes in said)

    def _stayed_plan(self, seen: TableState, moves: int | None, last_resort: bool = False) -> Stayed | None:
        """:meth:`_stayed_one`, then again for each other card so misread, while the table then
        reads in fewer moves: two dukes misread in one read, a red `KH` read `JH` and a black `QS`
        read `JC` (guyenne courts), are both the dukes, not one duke and a switch (Dukes Up!
        seed 9)."""
        stayed = self._stayed_one(seen, moves, last_resort)
        while stayed is not None and stayed.plan:
            more = self._stayed_one(stayed.seen, len(stayed.plan), last_resort)
            if more is None or more.plan is None:
                break
            stayed = Stayed(more.seen, more.changes, more.plan, {**stayed.read_as, **more.read_as})
        return stayed

    def _stayed_one(self, seen: TableState, moves: int | None, last_resort: bool = False) -> Stayed | None:
        """A card read unsurely in a spread where one the camera no longer sees lay, that card
        among its likely names: most likely that card, still there and misread (a duke QS read
        QC at 0.47 is no duke switch). The likeliest such renaming that explains the table in
        fewer than ``moves`` moves; where the reading as seen explains nothing (``moves`` None),
        the likeliest at all, explained or not; or None. ``last_resort``, once the rules refuse
        every other reading: on a pile's top too (a card put on a pile hides the one it covers,
        so there a misread is no likelier than a move until then), and a card read surely by
        the name the camera read the card that lay there by (a king read as a jack when it was
        laid, and the rules chose the king: read so again, it is that king)."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        tries = []
        for (zone, name), k in now.items():
            sure = seen.likelihood.get((zone, name), 1.0) >= UNSURE_NAMING
            if k <= expected[(zone, name)] or (sure and not last_resort):
                continue
            if self.layout.zones[zone].kind == "pile" and not last_resort:
                continue  # a card put on a pile hides the one it covers: no sign of a misread
            if sure:
                lay = [c for (z, c), n in expected.items() if z == zone and n]
                names = dict.fromkeys(c for c in lay if self.context.camera_name(c) == name)
            else:
                faint = [n for n, _ in seen.candidates.get((zone, name), ())]
                names = dict.fromkeys([*seen.alternatives.get((zone, name), ()), *faint])
            gone = [n for n in names if expected[(zone, n)] > now[(zone, n)]]
            tries += [(rank, zone, name, n) for rank, n in enumerate(gone)]
        unexplained = None
        for _, zone, name, old in sorted(tries):
            state = renamed(seen, [(zone, name, old)], keep_doubts=True)
            if state is None:
                continue
            changes, plan = self._read(state, self.context)
            if plan is not None and (moves is None or len(plan) < moves):
                return Stayed(state, changes, plan, {old: name})
            if moves is None and unexplained is None:
                unexplained = Stayed(state, changes, None, {old: name})
        return unexplained

    def _vanished_plan(self, seen: TableState, moves: int | None = None) -> Stayed | None:
        """The table explained with a card that arrived somewhere renamed as a card that has
        left its place and is seen nowhere now, the likelier names for the read first; or None.
        Two changes of one move seen as two (one card gone, another come) are likelier than a
        move the rules refuse. With ``moves`` (the rules explain the table as read in that
        many), only a card read unsurely, the gone card among its likely names, and only when
        the table then reads in fewer moves: one card moved and misread where it landed is
        likelier than that card hidden at once under a new one (a `JD` discarded from staging
        onto a flop pile, read there `KH` at 0.08 with `JD` among its names, was fed as
        discarded and covered by a `KH` flopped onto it, and the game went out of step)."""
        expected, now = visible(self.layout, self.physical), seen_counts(seen)
        shown = seen.all_face_up()
        gone = list(dict.fromkeys(n for (z, n), k in expected.items() if k > now[(z, n)] and not shown[n]))
        if not gone:
            return None
        tries = []
        for (zone, name), k in now.items():
            if k <= expected[(zone, name)]:
                continue
            # (Where that card lay, the name read is another card there or the same misread:
            # ``_stayed_plan``'s question, not this one's.)
            moved = [n for n in gone if not expected[(zone, n)]]
            if moves is not None:
                if seen.likelihood.get((zone, name), 1.0) >= UNSURE_NAMING:
                    continue
                faint = {n for n, _ in seen.candidates.get((zone, name), ())}
                moved = [n for n in moved if n in faint or n in seen.alternatives.get((zone, name), ())]
            tries += [(-read_p(seen, zone, name, n), zone, name, n) for n in moved]
        for _, zone, name, old in sorted(tries):
            state = renamed(seen, [(zone, name, old)], keep_doubts=True)
            if state is None:
                continue
            changes, plan = self._read(state, self.context)
            # That card's move must explain the read: one still read where it lay (by the name
            # the camera gives it) is no card gone, and the read renamed so would be ignored.
            fewer = moves is None or (plan is not None and len(plan) < moves)
            if plan is not None and fewer and any(c.card == old for c in changes):
                return Stayed(state, changes, plan, {old: name})
        return None

    def _unseen(self, in_view: set[str]) -> list[str]:
        """The cards of the table the camera has not named yet: neither in view nor named."""
        return sorted({str(c) for cs in self.physical.values() for c in cs} - in_view - set(self.named))

    def _wide_renamings(self, seen: TableState, expected: Counter, now: Counter) -> list[tuple[int, tuple]]:
        """Single-card renamings for :meth:`_renamed_plan` with ``wide``, likeliest first."""
        unseen = self._unseen({n for (_, n), k in expected.items() if k})
        tries = []
        for zone, name in now:
            sure = seen.likelihood.get((zone, name), 1.0) >= UNSURE_NAMING
            if now[(zone, name)] <= expected[(zone, name)] or sure:
                continue
            tried = {name, *seen.alternatives.get((zone, name), ())}
            p = dict(seen.candidates.get((zone, name), ()))
            names = sorted((n for n in unseen if n not in tried), key=lambda n: -p.get(n, 0.0))
            tries += [(-p.get(n, 0.0), ((zone, name, n, 0),)) for n in names]
        return sorted(tries, key=lambda t: t[0])[:MAX_REREADS]

    def _reread_plan(self, raw: TableState, changed: set[str]) -> Reread | None:
        """Nothing explains the table: a card named unsurely earlier may have been misread (a
        king of clubs taken for the jack, whose own jack now turns up; a queen of hearts taken
        for a jack of spades, so that the next player's move seems out of turn). The likeliest
        other name of such a card (any card still unseen) that the referee accepts throughout
        the game and with which the table is explained. The cards in ``changed`` (those the
        rules refused to move) are tried first."""
        in_view = {n for (_, n), k in visible(self.layout, self.physical).items() if k}
        # A card read unsurely now by the name of the card re-read may be that card, misread
        # again; read surely, it is another card (the real jack, come out).
        read_now = {
            name: raw.candidates.get((zone, name), ())
            for zone, name in seen_counts(raw)
            if raw.likelihood.get((zone, name), 1.0) < UNSURE_NAMING
        }
        unseen = self._unseen(in_view)
        options = []
        for old, naming in self.named.items():
            if naming.p >= UNSURE_NAMING:
                continue
            first, again = dict(naming.candidates), dict(read_now.get(old, ()))
            # Any card still unseen may be it (the detector can be wholly wrong on a design's
            # court cards); the rules choose, the detector's probabilities order the tries.
            for new in {**first, **again, **dict.fromkeys(unseen, 0.0)}:
                if new in in_view or new in self.named or copies_of(new) > 1:
                    continue
                q = max(first.get(new, 0.0), UNLIKELY)
                if again:  # both reads count
                    q = math.sqrt(q * max(again.get(new, 0.0), UNLIKELY))
                options.append((old in changed, q, old, new, naming.at))
        for _, q, old, new, at in sorted(options, reverse=True)[:MAX_REREADS]:
            rename = Observation("rename", Card.parse(old), data={"as": new, "at": at})
            ctx = self._renamed_context(rename, self._renamed_naming(old, new, q))
            if ctx is None:
                continue
            seen = self._aliased(raw, ctx)
            changes, plan = self._read(seen, ctx)
            if plan is not None:
                return Reread(rename, ctx, seen, changes, plan)
        return None

    def _read_again(self, raw: TableState, contradictions: set[tuple[str, str, str]]) -> Reread | None:
        """The first of ``contradictions`` (zone, name, new name) whose rename the referee
        accepts, as a re-read (its plan not sought: the rest of the table is read after it)."""
        in_view = {n for (_, n), k in visible(self.layout, self.physical).items() if k}
        for zone, old, new in sorted(contradictions):
            if new in in_view or new in self.named:
                continue
            rename = Observation("rename", Card.parse(old), data={"as": new, "at": self.named[old].at})
            q = raw.likelihood.get((zone, new), 1.0)
            ctx = self._renamed_context(rename, self._renamed_naming(old, new, q))
            if ctx is not None:
                return Reread(rename, ctx, raw, [], None)
        return None

    def _surely_contradicted(self, raw: TableState) -> set[tuple[str, str, str]]:
        """(zone, name, new name) for each card the camera named (surely or not), gone from
        where it lay while a card the game has not shown is read surely there, by a name the
        first read of that card found possible (a jack of hearts named JD, then read JH surely
        where it lies); or read unsurely there, by a name confused with the first both ways (each
        read found the other's name possible) while the first name turns up elsewhere: the two
        names were taken for each other when the card came (a blurred 3D named 3H at 0.67, then
        the 3H drawn, both red threes read again as they lie)."""
        expected, now = visible(self.layout, self.physical), seen_counts(raw)
        gone = [(z, n) for (z, n), k in (expected - now).items() if k > 0 and n in self.named]
        came = {n for (_, n), k in (now - expected).items() if k > 0}

        def contradicts(zone: str, old: str, new: str) -> bool:
            if new not in dict(self.named[old].candidates):
                return False
            if raw.likelihood.get((zone, new), 1.0) >= UNSURE_NAMING:
                return True
            return old in came and old in dict(raw.candidates.get((zone, new), ()))

        return {
            (z, old, new)
            for z, old in gone
            for (zone, new), k in (now - expected).items()
            if k > 0 and zone == z and contradicts(zone, old, new)
        }

    def _renamed_context(self, rename: Observation, named: dict[str, Naming]) -> Context | None:
        """A trial of ``rename``: its referee having re-read the game with it, the physical
        table with the two names swapped, and ``named``; or None if the referee refuses it."""
        trial = self.context.trial()
        if refused(trial, rename):
            return None
        return Context(trial, swapped(self.physical, str(rename.card), str(rename.data["as"])), named)

    def _renamed_naming(self, old: str, new: str, q: float) -> dict[str, Naming]:
        """The cards named, once the card named ``old`` is re-read as ``new`` (with probability
        ``q``): it keeps its first name among its other possible ones (it may be re-read again),
        and the camera goes on reading it by the name it read (:meth:`changes` follows it)."""
        named = dict(self.named)
        first = named.pop(old)
        named[new] = Naming(first.at, q, (old,), names_before(first, old, new), first.camera or old)
        return named

    def _reread(self, reread: Reread, result: Result) -> None:
        """Commit the trial of :meth:`_reread_plan`: its physical table and cards named, and its
        rename fed."""
        trial = reread.context
        self.context = replace(self.context, physical=trial.physical, named=trial.named)
        result.fed.append((reread.rename, self.referee.feed(reread.rename)))
        result.seq.append(None)

    def _sync_hidden(self, ctx: Context | None = None, sees: TableState | None = None) -> None:
        """Follow the referee for cards the camera cannot see move: a card under a pile's top
        or in a face-down pile that the referee has sent to a face-down or off-table zone
        (the old fortification slid out from under the new one, the discard pile turned over
        as the draw pile), or a card from a face-down zone that a typed observation put in
        view. Cards in view are never moved here: the camera tells about them; but those it no
        longer ``sees`` there, where given (moves typed while it was behind have just been
        fed), follow the referee too. ``ctx``: a trial's context instead of the committed one."""
        ctx = ctx or self.context
        physical = ctx.physical
        ref = Counter((z, str(c)) for z, cs in ctx.referee_zones().items() for c in cs)
        phys = Counter((z, str(c)) for z, cs in physical.items() for c in cs)
        view = visible(self.layout, physical)
        if sees is not None:
            view = view & seen_counts(sees)
        deficit = ref - phys
        for (zone, name), surplus in (phys - ref).items():
            # From a face-down zone a card may also go into view: the referee was told of a
            # move the camera could not see (a card typed as placed at set-up).
            anywhere = zone in self.hidden_zones
            for _ in range(min(surplus, phys[(zone, name)] - view[(zone, name)])):
                dest = next(
                    (
                        z
                        for (z, n), k in deficit.items()
                        if n == name and k > 0 and (anywhere or z in self.hidden_zones)
                    ),
                    None,
                )
                if dest is None:
                    break
                cards = physical[zone]
                under = [*range(len(cards) - 1), *([len(cards) - 1] if sees is not None else [])]
                hidden = range(len(cards)) if zone in self.hidden_zones else under
                i = next(i for i in hidden if str(cards[i]) == name)
                physical.setdefault(dest, []).append(cards.pop(i))
                deficit[(dest, name)] -= 1
                if dest not in self.hidden_zones and ctx is self.context:
                    self.awaited.add((dest, name))

    def _mark_unseen(self, gone: list[Change], seen: TableState) -> None:
        """Remember the cards gone from view that stay where they lay (see ``unseen_in_place``);
        forget those seen again or no longer there."""
        shown = seen_counts(seen)
        self.unseen_in_place = {
            (z, n)
            for z, n in self.unseen_in_place
            if not shown[(z, n)] and any(str(c) == n for c in self.physical.get(z, []))
        }
        known = self.context.referee_zones()
        for change in gone:
            here = self.physical.get(change.src, [])
            if any(str(c) == change.card for c in here) and any(
                str(c) == change.card for c in known.get(change.src, [])
            ):
                self.unseen_in_place.add((change.src, change.card))

    def _follow_referee(self, gone: list[Change]) -> None:
        """A card gone from view that no legal move explains, which the referee has already
        filed in a hidden zone, follows the referee there: the referee was told first (Dukes
        Up!'s face-up discard pile turned over as the new draw pile on a typed draw). A card the
        referee still keeps in view stays where it was (a detector miss), and a card the referee
        filed away while the camera still sees it waits for the camera (a clean-up asked for)."""
        known = self.context.referee_zones()
        for change in gone:
            card = Card.parse(change.card)
            dest = next((z for z in self.hidden_zones if card in known.get(z, [])), None)
            cards = self.physical.get(change.src, [])
            if dest is None or card not in cards:
                continue
            remove_last(cards, card)
            self.physical.setdefault(dest, []).append(card)

    def _read(self, seen: TableState, ctx: Context) -> tuple[list[Change], list[Observation] | None]:
        """The changes between ``seen`` and the physical table of ``ctx``, and the plan its
        referee accepts for them (:meth:`_plan`; [] when nothing changed)."""
        changes = self.changes(seen, ctx)
        return changes, (self._plan(changes, ctx) if changes else [])

    def _plan(self, changes: list[Change], ctx: Context) -> list[Observation] | None:
        """The first order and reading of the changes that the referee of ``ctx`` accepts
        throughout."""
        natural = sorted(changes, key=lambda change: (self._rank(change, ctx), self._changed_at(change)))
        orders = itertools.permutations(natural) if len(natural) <= MAX_PERMUTED else [natural]
        for order in orders:
            plan = self._accepted(list(order), ctx)
            if plan is not None:
                return plan
        return None

    def _rank(self, change: Change, ctx: Context) -> int:
        if any(m.card == change.card and m.src == change.src for m in ctx.asked()):
            return 0  # clean-ups the referee asked for come first
        return 1 if change.src in self.hidden_zones else 2

    def _accepted(self, order: list[Change], ctx: Context) -> list[Observation] | None:
        return self._accepted_from(ctx.trial(), order)

    def _accepted_from(self, trial: Referee, order: list[Change]) -> list[Observation] | None:
        """The readings of ``order``, one by one, that the referee accepts; None if it refuses
        one. At an open ASK the plan stops (fed up to there, the rest after the answer), if
        some answer lets the referee accept the rest: a question opened halfway explains
        nothing of what follows it (Dukes Up! seed 8: a discard asked from where, before red's
        third duke that no answer makes legal, ended red's turn). A question the players have
        open, or typed moves waiting (they may come between the answer and the rest): the rest
        is left for after the answer."""
        plan: list[Observation] = []
        for k, change in enumerate(order):
            if trial.pending is not None and (self.held or (not plan and self.referee.pending is not None)):
                return plan
            if trial.pending is not None:
                for choice in range(1, len(trial.pending.moves) + 1):
                    answered = accepted(trial, Observation.answer(choice))
                    if answered is not None and self._accepted_from(answered, order[k:]) is not None:
                        return plan  # an open ASK: feed up to here, the rest after the answer
                return None
            step = self._first_reading(trial, change)
            if step is None:
                return None
            trial = step.referee
            plan.append(step.obs)
        return plan

    def _greedy(self, changes: list[Change]) -> Partial:
        """The changes the referee accepts one by one (natural order, again after each one
        accepted), and those it never accepts."""
        ctx = self.context
        trial, plan, left = ctx.trial(), [], sorted(changes, key=lambda change: self._rank(change, ctx))
        progress = True
        while progress and left and trial.pending is None:
            progress = False
            for change in left:
                step = self._first_reading(trial, change)
                if step is not None:
                    trial = step.referee
                    plan.append(step.obs)
                    left.remove(change)
                    progress = True
                    break
        return Partial(plan, left)

    @staticmethod
    def _first_reading(trial: Referee, change: Change) -> Accepted | None:
        """The first reading of ``change`` the referee accepts, and the referee after it."""
        for obs in change.observations():
            attempt = copy.deepcopy(trial)
            if not refused(attempt, obs):
                return Accepted(attempt, obs)
        return None

    def _move(self, obs: Observation, ctx: Context) -> None:
        """Update the physical table of ``ctx``: the card leaves its zone and goes on top of the
        other (for a game's ``unseen_source`` observation, or a card turned up where it lay,
        from wherever it lay hidden)."""
        if obs.card is None or obs.dst is None:
            return
        src = obs.src if obs.type == "move" else self._hidden_home(ctx, str(obs.card))
        if src is None:
            return
        dst = obs.dst
        if src == dst and visible(self.layout, ctx.physical)[(src, str(obs.card))]:
            # Turned face down where it lay (a game's ``turned_down``): out of view, filed where
            # the referee now keeps it (with the unseen cards), as a face-down card is.
            dst = next((z for z, cs in ctx.referee_zones().items() if obs.card in cs and z != src), dst)
        homes = [src] + [z for z in self.hidden_zones if z != src]
        for zone in homes:  # a card of a turned-over pile may still be filed under the old one
            cards = ctx.physical.get(zone, [])
            if obs.card in cards:
                remove_last(cards, obs.card)
                break
        ctx.physical.setdefault(dst, []).append(obs.card)

    def _by_way_of(self, obs: Observation) -> list[Observation]:
        """``obs``, or the two steps the players made of it: a card seen where the rules send it
        by way of another zone, whose step there the camera missed (an attack that does no
        damage, put on the castle then on the discard pile; a joker flopped, then put on its
        spot), is fed as both, when the game ends the same. The referee would otherwise go on
        asking for a clean-up the table already shows."""
        if obs.type != "move" or obs.card is None or obs.src is None or obs.dst is None:
            return [obs]
        direct = accepted(self.referee, obs)
        if direct is None or direct.pending is not None:
            return [obs]
        asked = direct.game.asked_movements(direct.state)
        via = next((m.src for m in asked if m.card == str(obs.card) and m.dst == obs.dst
                    and m.src not in (obs.src, obs.dst)), None)
        if via is None:
            return [obs]
        steps = [Observation.move(str(obs.card), obs.src, via), Observation.move(str(obs.card), via, obs.dst)]
        first = accepted(self.referee, steps[0])
        end = accepted(first, steps[1]) if first is not None and first.pending is None else None
        done = accepted(direct, steps[1]) or direct  # the clean-up the table shows, asked no more
        if end is None or end.game.outcome_key(end.state) != done.game.outcome_key(done.state):
            return [obs]
        return steps

    def _held_first(self, seen: TableState, result: Result) -> None:
        """The typed moves that waited for this read, fed in their time among the camera's
        changes (``_held_step``), as long as that reads. A card misread where it lay is taken
        for that card first, as without typed moves (``_stayed_plan``): a guyenne duke QS read
        JC at 0.22 while black's typed draw waited is no duke switch before the draw."""
        aliased = self._aliased(seen, self.context)
        changes, plan = self._read(aliased, self.context)
        stayed = self._stayed_plan(aliased, len(plan) if plan is not None else None) if changes else None
        if stayed is not None and stayed.plan is not None:
            seen = stayed.seen
        while self.held and self.referee.pending is None and self._held_step(seen, result):
            pass

    def _held_step(self, seen: TableState, result: Result) -> bool:
        """The camera's changes whose zones last moved before the first waiting typed move
        (``_times``), then the typed moves made before its next change, where the referee
        accepts them so and the rest of the table then reads as legal moves (a draw that turns
        the discard pile over as the draw pile, then a discard): fed, True. Else nothing (they
        go in between the camera's moves where the referee accepts them, ``_feed_held``). The
        order matters where the rules accept both: a draw typed by the next player ends a
        turn that may go on with a second discard."""
        changes = self.changes(self._aliased(seen, self.context), self.context)
        typed = self.held[0].t
        times = {id(c): self._changed_at(c) for c in changes}
        timed = typed is not None and self._times is not None
        earlier = [c for c in changes if timed and times[id(c)] < typed]
        after = min((times[id(c)] for c in changes if timed and times[id(c)] >= typed), default=math.inf)
        group = [h for h in self.held if h.t is None or h.t < after]
        ctx = Context(self.context.trial(), {z: list(cs) for z, cs in self.physical.items()}, self.named)
        before = self._plan(earlier, ctx) if earlier else []
        if before is None:
            return False
        before = self._whole_moves(before)
        for obs in before:
            ctx.referee.feed(obs)
            self._move(obs, ctx)
        n = 0
        while (ctx.referee.pending is None and n < len(group)
               and not refused(ctx.referee, group[n].obs)):
            n += 1
        if n == 0 and not before:
            return False
        self._sync_hidden(ctx, sees=self._aliased(seen, ctx))
        # The rest must read as legal moves; a card gone from view may be one the referee put
        # out of sight meanwhile (turned over with the discard pile), followed as ever.
        rest = [c for c in self.changes(self._aliased(seen, ctx), ctx) if not c.vanished]
        if ctx.referee.pending is None and rest and self._plan(rest, ctx) is None:
            return False
        aliased = self._aliased(seen, self.context)
        for obs in before:
            seq = len(self.referee.fed)
            result.fed.append((obs, self.referee.feed(obs)))
            result.seq.append(seq)
            self._remember_naming(obs, seq, aliased, result.read_as)
            self._move(obs, self.context)
        for held in self.held[:n]:
            result.seq.append(len(self.referee.fed))
            result.fed.append((held.obs, self.referee.feed(held.obs)))
        del self.held[:n]
        self._sync_hidden(sees=self._aliased(seen, self.context))
        return n > 0

    def _note_reads(self, seen: TableState) -> None:
        """Note each read of a card the camera named as it came into view that the referee took
        for that card lying alone on a pile's top, by whatever name the camera read it there
        (``_pooled_rename`` weighs them for the cards named unsurely)."""
        view = visible(self.layout, self.physical)
        for zone, names in seen.cards.items():
            z = self.layout.zones.get(zone)
            top = [n for (at, n), k in view.items() if at == zone and k]
            if z is None or z.kind != "pile" or len(names) != 1 or len(top) != 1:
                continue
            card, name = top[0], names[0]
            naming = self.named.get(card)
            if naming is None or naming.settled or naming.camera is not None or card not in self._still_reads:
                continue
            read = dict(seen.candidates.get((zone, name), ()))
            read[name] = seen.likelihood.get((zone, name), 1.0)
            if card in read:  # a read of that card, misnamed or not (not another card on it)
                self._still_reads[card].append(read)

    def _pooled_rename(self, seen: TableState) -> Reread | None:
        """A card named unsurely, then read where it lay again and again by another name the
        detector confuses with its own: the reads together name it better than the one it
        arrived with, often half covered or still moving (an anglo `QS` laid as `QC` at 0.51
        with `QS` at 0.34, then read `QS` at 0.49-0.60 with `QC` at 0.21-0.36 in each read
        where it lay). Once it has more than ``POOLED_READS`` reads, at least that many name it
        by one other name (more than by its own), and that name's mean probability over all of
        them, the first included, beats its own by
        ``RENAME_MARGIN``, it is renamed, if the name is of a card still unseen and the referee
        accepts the game so (a re-read: the players check it)."""
        best: tuple[float, str, str, float] | None = None
        for card, reads in self._still_reads.items():
            naming = self.named.get(card)
            if naming is None or naming.p >= UNSURE_NAMING or len(reads) <= POOLED_READS:
                continue
            tops = Counter(max(r, key=r.__getitem__) for r in reads)
            others = [(n, k) for n, k in tops.items() if n != card]
            new, k = max(others, key=lambda t: t[1], default=(card, 0))
            mean = {n: sum(r.get(n, 0.0) for r in reads) / len(reads) for n in (card, new)}
            if k < POOLED_READS or k <= tops[card] or mean[new] < mean[card] + RENAME_MARGIN:
                continue
            if best is None or mean[new] - mean[card] > best[0]:
                best = (mean[new] - mean[card], card, new, mean[new])
        if best is None:
            return None
        _, old, new, q = best
        in_view = {n for (_, n), k in visible(self.layout, self.physical).items() if k}
        if new in in_view or new in self.named or copies_of(new) > 1:
            return None
        rename = Observation("rename", Card.parse(old), data={"as": new, "at": self.named[old].at})
        named = self._renamed_naming(old, new, q)
        named[new] = replace(named[new], camera=None, settled=True)  # many reads decided it
        ctx = self._renamed_context(rename, named)
        if ctx is None:
            return None
        self._still_reads.pop(old, None)
        return Reread(rename, ctx, seen, [], None)

    def _unmoved(self, seen: TableState, since: float | None) -> TableState:
        """A pile's top read unsurely by another name where nothing moved since the last read:
        the card that lay there, misread, where nothing moved since the camera fed it either
        (even read surely there, by the name the camera misread it by before the players named
        it: a Royal Shuffle queen read `QD` when played, keyed `QH` at the camera's check, read
        `QD` at 0.61 a read later was fed as a second queen flipped onto her, seed 2 at 0.25 s
        of quiet),
        or where the camera found the name read now likely for it when it named it (a guyenne
        `KS`, named with `KC` likely, read `JC` and then `KC` at 0.2 after a hand passed near,
        was fed as black's next discard, ending black's turn). Not a card the pile was
        stirred over since with a name not its own: a queen laid on a queen and read as it
        must stay a change (Royal Shuffle seed 2). Nor, for a name merely likely, while a
        typed move waits that the rules refuse: the players' word says the camera missed a
        move (a guyenne `KS` discarded onto the `KC` it had been likely for, and black's
        typed `end_turn` refused for want of that discard: Dukes Up! bench seed 8)."""
        if self._times is None or since is None:
            return seen
        doubted: bool | None = None  # a typed move waits that the rules refuse (tried once, if needed)
        view = visible(self.layout, self.physical)
        renames = []
        for zone, names in seen.cards.items():
            z = self.layout.zones.get(zone)
            moved = self._times.get(zone, math.inf)
            if z is None or z.kind != "pile" or len(names) != 1 or moved > since:
                continue
            top = [n for (at, n), k in view.items() if at == zone and k]
            name = names[0]
            if len(top) != 1 or top[0] == name:
                continue
            naming = self.named.get(top[0])
            if seen.likelihood.get((zone, name), 1.0) >= UNSURE_NAMING:
                # Read surely, but by the name the camera misread that card by (the players or
                # the rules named it otherwise), and nothing moved there since it was fed: that
                # card. (Not a name merely likely: a surer read by it is how a misread is put right.)
                misread = naming is not None and name == naming.camera
                if misread and moved <= self._fed_at.get(zone, -math.inf):
                    renames.append((zone, name, top[0]))
                continue
            likely = naming is not None and name in {*naming.others, *(n for n, _ in naming.candidates)}
            if likely and doubted is None:
                doubted = bool(self.held) and refused(self.context.trial(), self.held[0].obs)
            likely = likely and not doubted
            if likely or moved <= self._fed_at.get(zone, -math.inf):
                renames.append((zone, name, top[0]))
        out = renamed(seen, renames, keep_doubts=True) if renames else None
        return seen if out is None else out

    def _changed_at(self, change: Change) -> float:
        """About when ``change`` happened: when the camera last saw the face-up zone it went to
        move, else the one it left (where it came from may have been stirred since, a pile
        turned over; a side the camera guesses tells nothing); -inf where it does not tell."""
        if self._times is None:
            return -math.inf
        for k in (1, 0):  # where it went, else where it left (not a guessed side)
            side = {self.layout.lies_in(pair[k]) for pair in change.readings if pair[k]}
            zone = side.pop() if len(side) == 1 else None
            if zone in self._times and self.layout.zones[zone].face == "up":
                return self._times[zone]
        return -math.inf

    def _feed_held(self, result: Result, rest: list[Observation]) -> None:
        """Feed the typed moves that wait for the camera, in the order typed, as long as the
        referee accepts them here and the camera's moves still to feed (``rest``) after them:
        they were made before those (the earliest such place is the one they were made at)."""
        while self.held and self.referee.pending is None:
            obs = self.held[0].obs
            trial = self.context.trial()
            if refused(trial, obs):
                return
            if any(refused(trial, o) for o in rest):
                return
            self.held.pop(0)
            result.seq.append(len(self.referee.fed))
            result.fed.append((obs, self.referee.feed(obs)))

    def _expire_held(self, result: Result) -> None:
        """After a read that fed moves: a typed move that has waited through ``HELD_READS`` such
        reads is fed anyway, and refused (the players hear why); not while a question is open."""
        for held in list(self.held):
            if self.referee.pending is not None:
                return
            held.reads += 1
            if held.reads >= HELD_READS:
                self.held.remove(held)
                result.seq.append(len(self.referee.fed))
                result.fed.append((held.obs, self.referee.feed(held.obs)))

    def answer(self, obs: Observation, behind: bool = False, t: float | None = None) -> list[Announcement]:
        """An answer typed or keyed by a player (or a non-table observation such as end_turn).
        A typed move waits for the camera (``held``; nothing is fed, []) when the referee
        refuses it now, or, no question open, when the camera is ``behind`` (the table changed
        since it last read it) or others wait: the camera may not have fed the moves made
        before it. ``t``: when it was typed (video seconds)."""
        if obs.type not in ("answer", "rename"):
            reasons = [a.text for a in self.context.trial().feed(obs) if a.kind == "REJECT"]
            # (With a question open, only what it refuses: a typed move may answer it.)
            if reasons or (self.referee.pending is None and (self.held or behind)):
                why = reasons[0] if reasons else BEHIND
                self.held.append(Held(obs, why, t))
                return []
        notes = self.referee.feed(obs)
        if obs.type == "rename" and not any(a.kind == "REJECT" for a in notes):
            old, new = str(obs.card), str(obs.data["as"])
            swap = is_swap(obs.data)  # two cards taken for each other: both real, neither an alias
            naming = self.named.get(old)
            self._swap_names(old, new, swap)
            if not swap and self.aliases.get(new) == old:  # taken back
                del self.aliases[new]
                self.sure_aliases.discard(new)
            elif not swap:
                self.aliases[old] = new
                if naming is None or naming.p >= UNSURE_NAMING:
                    self.sure_aliases.add(old)
        self._sync_hidden()
        return notes

    def fed_already(self, obs: Observation) -> bool:
        """A typed move of a named card that the camera has fed itself, that card's last move
        (a card seen leaving for the face-down discard pile, typed by its player too): the
        same move, not to be fed again and refused."""
        if obs.type != "move" or str(obs.card) == "BACK":
            return False
        fed = zip(reversed(self.referee.fed), reversed(self.referee.accepted), strict=True)
        last = next((o for o, ok in fed if ok and o.type == "move" and o.card == obs.card), None)
        if last is None or (last.src, last.dst) != (obs.src, obs.dst):
            return False
        return refused(self.context.trial(), obs)

    def confirm(self, card: str) -> None:
        """A player confirmed the camera's name of a card (key 1 at its ``[CHECK]``): it is not
        re-read later, however unsurely the camera names it."""
        naming = self.named.get(card)
        if naming is not None:
            self.named[card] = replace(naming, p=1.0, settled=True)

    def _swap_names(self, old: str, new: str, swap: bool = False) -> None:
        """After a typed rename: the card on the table known as ``old`` is ``new``, and the
        ``new`` the game thought hidden (or, with ``swap``, showed elsewhere) is ``old``."""
        self.context = replace(self.context, physical=swapped(self.physical, old, new))
        # Where the rules had named a card (the camera reads it by another name), the camera
        # still reads it by that name: kept, so that read is this card where it lies.
        mine = self.named.pop(old, None)
        theirs = self.named.pop(new, None) if swap else None
        if mine is not None:
            # The camera goes on reading it by the name it misread (unless swapped: then that
            # name is the other card's).
            camera = mine.camera or (None if swap else old)
            self.named[new] = Naming(mine.at, 1.0, camera=camera if camera != new else None)
        if theirs is not None:
            self.named[old] = Naming(theirs.at, 1.0, camera=theirs.camera)

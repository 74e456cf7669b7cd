"""Referee core shared by the five games.

A :class:`Game` is rules + variants; its state is a plain dataclass (copyable, serialisable
to JSON). ``legal_moves(state)`` lists typed moves; ``apply(state, move)`` returns a *new*
state and the announcements, or raises :class:`IllegalMove` and leaves the state alone.
``interpret(state, observation)`` turns what the camera saw into the candidate moves it can
mean; :class:`Referee` picks among them with the legal moves, asks when they disagree, and
keeps the append-only observation log. The games never see a camera.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar, dataclass_transform

from referee.announcements import Announcement, ask, reject, state_change
from referee.cards import Card, CardError, full_deck
from referee.config import GameConfig, typed_variants
from referee.errors import IllegalMove, ObservationError
from referee.observations import SWAP_VALUES, Observation, is_swap


@dataclass_transform(frozen_default=True)
@dataclass(frozen=True)
class Move:
    """Base of every game's typed moves. Each subclass is made a frozen dataclass as it is
    declared (compared by value; its fields follow its bases' in the order written), so a
    game's ``moves.py`` lists fields only: no decorator (a second one would fail). Type
    checkers read it as such (PEP 681's ``dataclass_transform``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True)(cls)

    def describe(self) -> str:
        args = ", ".join(
            f"{f.name}={_plain(getattr(self, f.name))}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        )
        return f"{type(self).__name__}({args})"

    def to_json(self) -> dict[str, Any]:
        return {"event": type(self).__name__, **{k: v for k, v in to_jsonable(self).items() if v is not None}}


class CardMove(Move):
    """A move of one card whose name the table shows."""

    card: Card


class PlayerMove(Move):
    """A move made by (or for) one player."""

    player: str


class PlayerCardMove(PlayerMove):
    """A player's move of one card whose name the table shows."""

    card: Card


def _plain(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + " ".join(_plain(x) for x in v) + "]"
    return str(v)


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, cards, enums, sets and tuples to plain JSON values (sets sorted)."""
    if isinstance(obj, Card):
        return str(obj)
    if isinstance(obj, Enum):
        return obj.value
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(x) for x in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((to_jsonable(x) for x in obj), key=str)
    return obj


def state_json(state: Any) -> str:
    """Canonical JSON text of a state: equal states give equal text."""
    return json.dumps(to_jsonable(state), sort_keys=True, separators=(",", ":"))


F = TypeVar("F", bound=Callable[..., Any])


def handles(*move_types: type[Move], step: str = "apply") -> Callable[[F], F]:
    """Mark a method as what ``step`` does for these move types; :func:`move_table` collects
    the marks. Every game dispatches a move this one way (``step`` names a table where a game
    keeps two, e.g. Houska Castle's ``reason`` and ``apply``)."""

    def mark(fn: F) -> F:
        fn.__dict__.setdefault("_handles", []).append((step, move_types))
        return fn

    return mark


def move_table(owner: object, step: str = "apply") -> dict[type[Move], Callable[..., Any]]:
    """Move type -> bound method of ``owner`` marked ``@handles(..., step=step)``, mixins and
    base classes included: built once, when the owner is made."""
    table: dict[type[Move], Callable[..., Any]] = {}
    for name in dir(type(owner)):
        for marked_step, move_types in getattr(getattr(type(owner), name, None), "_handles", ()):
            if marked_step == step:
                table.update(dict.fromkeys(move_types, getattr(owner, name)))
    return table


def handler(table: dict[type[Move], Callable[..., Any]], move: Move, game: str) -> Callable[..., Any]:
    """The method ``table`` holds for ``move``, or IllegalMove if the game has no such move."""
    try:
        return table[type(move)]
    except KeyError:
        raise IllegalMove(f"{move.describe()} is not a {game} move") from None


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winner`` (a player, or None for a draw) and why."""

    winner: str | None
    reason: str
    by_rules: bool = True


@dataclass
class Step:
    """What one applied move produced."""

    state: Any
    announcements: list[Announcement] = field(default_factory=list)


class Movement(NamedTuple):
    """A card's move from one zone to another, by the card's name (what a camera can see)."""

    card: str
    src: str
    dst: str


class GameState(Protocol):
    """What the core's defaults ask of a game's state (its ``state.py``)."""

    phase: str  # "over" once the game has ended

    def copy(self) -> Any: ...


class Game(ABC):
    """Rules and constants of one game, configured by its variants.

    Subclasses implement the private hooks; the public methods add what every game shares:
    copy-on-apply (a rejected move never changes the state) and no move after the end.
    """

    name: ClassVar[str]
    players: ClassVar[tuple[str, ...]]
    zones: ClassVar[frozenset[str]]
    observation_types: ClassVar[tuple[str, ...]] = ("move", "answer", "end_turn")
    # The version of this game's rules as the referee applies them, written in every game log's
    # header. Raise it when a change to the rules can make an old log replay to other
    # announcements; a log of another version is still resumed, with a warning.
    rules_version: ClassVar[int] = 1
    # Move types ``legal_moves`` does not list in full (any set of revealed cards, any regrouping
    # of a table): ``apply`` leaves them to the rules alone. Any other move it refuses unless
    # listed. Each game says why for each of its own.
    unlisted: ClassVar[frozenset[type[Move]]] = frozenset()
    # The game's frozen dataclass of variants (its ``variants.py``); ``self.v`` is one.
    variants: ClassVar[type[Any]]
    # The game's rules (its ``rules.py``), made from the variants: ``self.rules``.
    rules_class: ClassVar[Callable[[Any], Any]]
    # The game's state (its ``state.py``), as the default ``new_state`` makes it.
    state_class: ClassVar[Callable[[], GameState]]

    def __init__(self, config: GameConfig):
        self.config = config
        self.v = typed_variants(self.variants, config)
        self.rules = self.rules_class(self.v)

    # ---- hooks a game implements -------------------------------------------------------
    def new_state(self) -> Any:
        """The state before the first observation (set-up done, nothing dealt yet)."""
        return self.state_class()

    @abstractmethod
    def _legal_moves(self, state: Any) -> list[Move]:
        """Every legal move now (chance moves included: e.g. any unseen card drawn)."""

    @abstractmethod
    def _apply(self, state: Any, move: Move) -> list[Announcement]:
        """Mutate ``state`` (a private copy) by ``move``; raise IllegalMove with the reason."""

    @abstractmethod
    def interpret(self, state: Any, obs: Observation) -> list[Move]:
        """Candidate moves the observation can mean, most natural first. Raise IllegalMove
        with a player-facing reason when it can mean nothing legal."""

    def is_terminal(self, state: GameState) -> bool:
        return state.phase == "over"

    @abstractmethod
    def check_invariants(self, state: Any) -> None:
        """Raise InvariantError if the state breaks a game invariant."""

    @abstractmethod
    def outcome(self, state: Any) -> Outcome | None:
        """None while the game runs; else who won and whether the rules or a cap ended it."""

    def stats(self, state: Any) -> dict[str, Any]:
        """Numbers a playout summary reports (rounds played, scores)."""
        return {}

    def outcome_key(self, state: Any) -> str:
        """Text equal for two states a player would call the same outcome: the referee asks
        only when the interpretations of an observation lead to different keys."""
        return state_json(state)

    def cards_by_zone(self, state: Any) -> dict[str, list[Card]] | None:
        """Every card by the zone the referee believes it is in, bottom first; cards it has not
        seen (a hand, the draw pile) may be put in one hidden zone. What a camera compares with
        the table (``vision.events``); None for a game whose camera support is not built."""
        zones = getattr(state, "zones", None)
        return zones if isinstance(zones, dict) else None

    def awaited_zone(self, state: Any) -> str | None:
        """The zone a card must be put into before anything else, where a move is half made
        (Dukes Up!: a duke taken into the hand, its replacement not laid yet); else None. A
        camera that sees only the first half may have missed a card for a moment (``vision.events``
        waits for the second half)."""
        return None

    def unseen_source(self, card: Card, dst: str) -> Observation | None:
        """The observation for ``card`` come into view at ``dst`` from a place a camera cannot
        tell apart (a hand or the draw pile), for a game that has one; the referee then decides,
        or asks. None: the camera names the source itself, the rules choosing."""
        return None

    def asked_movements(self, state: Any) -> list[Movement]:
        """The card movements the referee asked the players to make and has already filed (a
        clean-up): a camera may see them next, before any other reading. None (empty) by default."""
        return []

    def turned_down(self, card: Card, zone: str) -> Observation | None:
        """The observation for ``card`` gone from view at ``zone`` by being turned face down
        where it lay, for a game whose cards may be (Houska Castle's nullify; its
        ``cards_by_zone`` then files the card with the unseen ones, as a camera cannot see it);
        a camera tries it after the readings of a card that left, the rules choosing. None: a
        card gone from view has left its zone."""
        return None

    def face_down_count(self, state: Any, zone: str) -> int | None:
        """How many cards lie face down in ``zone`` when the rules lay no more face down there
        (Dukes Up!'s dukes once turned up: none), in a zone a layout otherwise shows face up;
        None where more may come (a set-up still laying them) or the game does not say."""
        return None

    def start_announcements(self, state: Any) -> list[Announcement]:
        """What the referee says before the first observation (set-up, who starts)."""
        return []

    def choice_label(self, state: Any, move: Move) -> str:
        """The word a player answers an ASK with to pick ``move``."""
        return move.describe()

    def validate(self, obs: Observation, loc: str = "") -> None:
        """Reject malformed observations (unknown type or zone) with an ObservationError."""
        prefix = f"{loc}: " if loc else ""
        if obs.type not in self.observation_types:
            raise ObservationError(
                f"{prefix}field 'type': unknown observation type {obs.type!r} for {self.name} "
                f"(expected one of {', '.join(self.observation_types)})"
            )
        for key, zone in (("from", obs.src), ("to", obs.dst)):
            if zone is not None and zone not in self.zones:
                raise ObservationError(f"{prefix}field '{key}': unknown zone {zone!r} for {self.name}")

    def copy_state(self, state: GameState) -> Any:
        """A private copy for ``_apply`` to mutate (each game's state copies itself, faster
        than a deep copy)."""
        return state.copy()

    # ---- shared public API -------------------------------------------------------------
    def legal_moves(self, state: Any) -> list[Move]:
        if self.is_terminal(state):
            return []
        return self._legal_moves(state)

    def apply(self, state: Any, move: Move) -> Step:
        """The state after ``move`` (a new one) and what it produced; IllegalMove, ``state``
        untouched, unless ``legal_moves`` lists the move. The rules' own refusal comes first,
        for its reason; a move they take that is not listed is refused all the same, so a
        game cannot accept what it does not list (as pgx's step refuses an illegal action),
        but for the types it declares ``unlisted``. The listing of the last state asked about
        is kept: a state is not changed once made (``apply`` works on a copy)."""
        step = self.try_apply(state, move)
        if type(move) not in self.unlisted and not self._listed(state, move):
            raise IllegalMove(f"{move.describe()} is not a legal move now")
        return step

    def _listed(self, state: Any, move: Move) -> bool:
        """Whether ``legal_moves(state)`` lists ``move``, asked once the rules took it; a game
        whose listing is costly may answer it more cheaply, never otherwise."""
        return move in self._once_per_state(state, "legal", lambda: self._legal_moves(state))

    def _once_per_state(self, state: Any, key: Any, make: Callable[[], Any]) -> Any:
        """``make()`` once for the last state asked about and ``key``: the referee tries every
        reading of an observation, and a simulator asks first, on the same state object."""
        memo = self.__dict__.get("_memo")
        if memo is None or memo[0] is not state:
            memo = (state, {})
            self.__dict__["_memo"] = memo
        if key not in memo[1]:
            memo[1][key] = make()
        return memo[1][key]

    def try_apply(self, state: Any, move: Move) -> Step:
        """What the rules make of ``move`` on a copy of ``state``, whether or not it is listed:
        for a game whose ``_legal_moves`` lists the moves its rules take (Dukes Up!)."""
        if self.is_terminal(state):
            raise IllegalMove("The game is over")
        new = self.copy_state(state)
        notes = self._apply(new, move)
        return Step(new, notes)


@dataclass
class Reading:
    """One way the referee can read an observation: the move and the step it leads to; ``key``
    (its ``outcome_key``) is set when there was more than one legal reading to compare."""

    move: Move
    step: Step
    key: str | None = None


def readings(game: Game, state: Any, candidates: list[Move]) -> tuple[list[Reading], str | None]:
    """The candidate moves the rules accept, one per distinct outcome, first reading of each
    kept, in the candidates' order; and the first refusal's reason. More than one reading: the
    referee asks, offering these moves. What the referee decides with, and what a simulator
    asks it instead of guessing (``Simulator.asked``)."""
    legal: list[Reading] = []
    refused: str | None = None
    for move in candidates:
        try:
            legal.append(Reading(move, game.apply(state, move)))
        except IllegalMove as e:
            refused = refused or e.reason
    if len(legal) <= 1:  # one reading: nothing to compare (saves a state_json per move)
        return legal, refused
    distinct: dict[str, Reading] = {}
    for r in legal:
        r.key = game.outcome_key(r.step.state)
        distinct.setdefault(r.key, r)
    return list(distinct.values()), refused


class Simulator(ABC):
    """A random legal player plus the hidden truth (deck order, hands, dice) of one game.

    ``next_observations`` returns what a camera would see for the next chosen move; the
    referee, fed those, must never reject. Used by ``cardref simulate``, property tests and
    the video renderer.
    """

    def __init__(self, game: Game, seed: int):
        self.game = game
        self.rng = random.Random(seed)

    @abstractmethod
    def next_observations(self, state: Any) -> list[Observation]:
        """Observations of one random legal move (or chance event) in ``state``."""

    def asked(self, state: Any, obs: Observation) -> list[Reading]:
        """The choices the referee will offer when fed ``obs`` in ``state`` (one per distinct
        outcome, in its order), or [] when it will not ask: what the simulated player answers."""
        try:
            candidates = self.game.interpret(state, obs)
        except IllegalMove:
            return []
        options, _ = readings(self.game, state, candidates)
        return options if len(options) > 1 else []


class DealingSimulator(Simulator):
    """A simulator of a game dealt from one shuffled deck into hidden hands: it keeps the
    truth the camera cannot see, the pile's order and every hand."""

    def __init__(self, game: Game, seed: int, jokers: int = 2):
        super().__init__(game, seed)
        deck = full_deck(jokers)
        self.rng.shuffle(deck)
        self.pile: list[Card] = deck  # top first
        self.hands: dict[str, list[Card]] = {p: [] for p in game.players}


RESTATED = ("STATE", "DAMAGE", "RESULT")  # what a re-read says again where the new name changed it


Said = list[tuple[Announcement, ...]]  # per observation fed, what the referee said of it


def _said_anew(before: Said, after: Said) -> list[Announcement]:
    """The re-read's state, damage and result lines that the first reading did not say (a
    queen read as another queen stole for the wrong player): the players hear the corrected
    lines once, after the rename."""
    left = Counter((a.kind, a.text) for notes in before for a in notes)
    out = []
    for a in (a for notes in after for a in notes if a.kind in RESTATED):
        if left[(a.kind, a.text)] > 0:
            left[(a.kind, a.text)] -= 1
        else:
            out.append(a)
    return out


@dataclass
class Pending:
    """An open ASK: the candidate moves and the labels a player answers with."""

    question: str
    moves: list[Move]
    labels: list[str]


class Referee:
    """A game in progress: feeds observations to the rules and keeps the log.

    ``feed`` never raises for an illegal observation: it returns a REJECT and the state is
    unchanged. Malformed observations raise ObservationError (and are not logged).
    """

    def __init__(self, game: Game, log: Any | None = None):
        self.game = game
        self.state = game.new_state()
        self.pending: Pending | None = None
        self.log = log
        self.history: list[Move] = []
        self.observations = 0
        # Every observation fed (a rename rewrites it), and whether each was accepted: what a
        # rename re-reads the game from.
        self.fed: list[Observation] = []
        self.accepted: list[bool] = []
        # What was said of each: a re-read says again only what the new name changed.
        self.said: Said = []

    def __deepcopy__(self, memo: dict) -> Referee:
        """Trial copies (event inference makes many): the fed list holds immutable
        observations, so a shallow copy of it is enough."""
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            shallow = key in ("fed", "accepted", "said")
            setattr(new, key, list(value) if shallow else copy.deepcopy(value, memo))
        return new

    def start(self) -> list[Announcement]:
        return self.game.start_announcements(self.state)

    def validate(self, obs: Observation, loc: str = "") -> None:
        """Raise ObservationError for a malformed observation, as :meth:`feed` would, without
        feeding it: a game's own types, or a ``rename`` (which any game's referee takes)."""
        if obs.type == "rename":
            self._check_rename(obs, loc)
        else:
            self.game.validate(obs, loc)

    def feed(self, obs: Observation, loc: str = "") -> list[Announcement]:
        if obs.type == "rename":
            new, at, swap = self._check_rename(obs, loc)
        else:
            self.game.validate(obs, loc)
        if self.log is not None:
            self.log.append(obs)
        self.observations += 1
        if obs.type == "rename":
            return self._rename(obs.card, new, at, swap)
        notes = self._feed(obs)
        self.fed.append(obs)
        self.accepted.append(not any(a.kind == "REJECT" for a in notes))
        self.said.append(tuple(notes))
        return notes

    def _check_rename(self, obs: Observation, loc: str) -> tuple[Card, int, bool]:
        prefix = f"{loc}: " if loc else ""
        if obs.card is None:
            raise ObservationError(f"{prefix}field 'card': missing (a rename needs card, as)")
        try:
            new = Card.parse(str(obs.data.get("as")))
        except CardError as e:
            raise ObservationError(f"{prefix}field 'as': {e}") from None
        at = obs.data.get("at", 0)
        if not isinstance(at, int) or at < 0:
            raise ObservationError(f"{prefix}field 'at': expected an observation index >= 0, got {at!r}")
        if obs.data.get("swap", False) not in SWAP_VALUES:
            swap = obs.data["swap"]
            raise ObservationError(f"{prefix}field 'swap': expected true or false (yes or no), got {swap!r}")
        return new, at, is_swap(obs.data)

    def _rename(self, old: Card, new: Card, at: int, swap: bool = False) -> list[Announcement]:
        """The card fed as ``old`` from observation ``at`` on was ``new`` (the camera misread
        it and read it right later): re-read the game from the start with the new name. Refused,
        changing nothing, if a move accepted before is not accepted with the new name. With
        ``swap``, the camera had taken the two cards for each other: the card fed as ``new``
        from ``at`` on was ``old`` as well."""
        names = {old: new, new: old} if swap else {old: new}
        fixed = [
            dataclasses.replace(o, card=names[o.card]) if i >= at and o.card in names else o
            for i, o in enumerate(self.fed)
        ]
        if fixed == self.fed:
            return [reject(f"Nothing was fed as {old} since observation {at}")]
        again = Referee(self.game)
        for i, (obs, was) in enumerate(zip(fixed, self.accepted, strict=True)):
            notes = again.feed(obs)
            refused = next((a for a in notes if a.kind == "REJECT"), None)
            if was and refused is not None:
                return [
                    reject(f"{old} cannot have been {new}: {obs.short()} (observation {i}): {refused.text}")
                ]
        changed = _said_anew(self.said[at:], again.said[at:])
        self.state, self.pending, self.history = again.state, again.pending, again.history
        self.fed, self.accepted, self.said = again.fed, again.accepted, again.said
        said = f"{old} and {new} were each other" if swap else f"{old} was {new}"
        return [
            state_change(
                f"{said}: the game is re-read with {'those names' if swap else 'that name'}",
                event="Renamed",
                card=str(old),
                renamed=str(new),
                at=at,
                **({"swap": True} if swap else {}),
            ),
            *changed,
        ]

    def _feed(self, obs: Observation) -> list[Announcement]:
        if self.game.is_terminal(self.state):
            return [reject("The game is over", observation=obs.to_json())]
        if self.pending is not None:
            return self._answer(obs)
        try:
            candidates = self.game.interpret(self.state, obs)
        except IllegalMove as e:
            return [reject(e.reason, observation=obs.to_json())]
        return self._choose(candidates, obs)

    def _choose(self, candidates: list[Move], obs: Observation) -> list[Announcement]:
        options, refused = readings(self.game, self.state, candidates)
        if not options:
            reason = refused or f"Nothing legal matches {obs.short()}"
            return [reject(reason, observation=obs.to_json())]
        if len(options) == 1:
            return self._commit(options[0].move, options[0].step)
        moves = [r.move for r in options]
        labels = [self.game.choice_label(self.state, m) for m in moves]
        question = f"{obs.short()}: which did you mean?"
        self.pending = Pending(question, moves, labels)
        return [ask(question, labels, moves=[m.to_json() for m in moves])]

    def _answer(self, obs: Observation) -> list[Announcement]:
        assert self.pending is not None
        pending = self.pending
        chosen: Move | None = None
        if obs.type == "answer":
            choice = obs.data.get("choice")
            if isinstance(choice, int) and 1 <= choice <= len(pending.moves):
                chosen = pending.moves[choice - 1]
            elif str(choice) in pending.labels:
                chosen = pending.moves[pending.labels.index(str(choice))]
        else:
            # A physical gesture may answer: the observation then means one of the choices.
            try:
                meant = self.game.interpret(self.state, obs)
            except IllegalMove:
                meant = []
            matches = [m for m in meant if m in pending.moves]
            if len(matches) == 1:
                chosen = matches[0]
        if chosen is None:
            return [
                reject(
                    f"Answer first: {pending.question} ({' / '.join(pending.labels)})",
                    observation=obs.to_json(),
                )
            ]
        self.pending = None
        return self._commit(chosen, self.game.apply(self.state, chosen))

    def _commit(self, move: Move, step: Step) -> list[Announcement]:
        self.state = step.state
        self.history.append(move)
        return step.announcements

    def snapshot(self) -> str:
        """Canonical JSON of everything that decides the future (state and open ASK)."""
        pending = None
        if self.pending:
            pending = {"question": self.pending.question, "labels": self.pending.labels}
        return json.dumps({"state": json.loads(state_json(self.state)), "pending": pending}, sort_keys=True)


def run_observations(
    game: Game, observations: Iterable[Observation]
) -> Iterator[tuple[Observation, list[Announcement]]]:
    """Feed observations to a fresh referee, yielding what each produced."""
    ref = Referee(game)
    for obs in observations:
        yield obs, ref.feed(obs)

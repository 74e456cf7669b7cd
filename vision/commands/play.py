"""``cardref play GAME``: a terminal referee. Type what happens on the table, e.g.
``7S draw_pile -> staging``, ``answer clubs`` or ``end_turn``; ``legal`` lists what may be
done now, numbered (type a number to play it); ``help`` lists the rest.

At a terminal the prompt keeps a history (up arrow) and completes cards, zones and commands
(Tab). Cards may be typed in either case (``4h``). A line the referee refuses is answered and
left out of the game log, so the log holds exactly the game that was played."""

from __future__ import annotations

import argparse
import copy
import difflib
import sys

from referee.cards import Card, CardError, full_deck
from referee.core import Game, Referee
from referee.errors import ObservationError
from referee.observations import Observation, parse_short
from referee.typed_moves import TypedMove, typed_moves
from vision.commands.common import add_game_args, emit, game_from_args, open_referee

COMMANDS = ("legal", "status", "zones", "help", "quit")

HELP = """Type one observation a line:
  CARD FROM -> TO      a card moved, e.g.  7S draw_pile -> staging  (7s works too)
  answer CHOICE        answer the referee's question (a word or its number)
  end_turn             the active player is done
  TYPE key=value ...   game-specific observations (see docs/events.md)
  N                    play move N of the last 'legal' list
Commands: legal (what may be done now, numbered), status (whose turn, round),
zones, help, quit. Up arrow: history; Tab: complete cards and zones."""


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_game_args(p)
    p.add_argument(
        "--log",
        metavar="GAME.jsonl",
        help="append-only game log of the accepted observations; an existing log is resumed",
    )
    p.add_argument("--json", action="store_true", help="print announcements as JSON Lines")
    return p


# ---- reading what a person types ----------------------------------------------------------


def card_names() -> list[str]:
    return sorted({str(c) for c in full_deck(jokers=1)} | {"BACK"})


def read_lines(game: Game, interactive: bool, history: list[str]):
    """Lines as typed. At a terminal: prompt_toolkit, with history and Tab completion of cards,
    zones and commands; otherwise (a pipe, a file) plain lines, no prompt."""
    if not interactive:
        for line in sys.stdin:
            yield line
        return
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import WordCompleter
    from prompt_toolkit.history import InMemoryHistory

    past = InMemoryHistory()
    for line in history:
        past.append_string(line)
    words = [*card_names(), *sorted(game.zones), *COMMANDS, "answer", "->", *game.observation_types]
    session = PromptSession(
        history=past,
        completer=WordCompleter(sorted(set(words)), ignore_case=True),
        complete_while_typing=False,
    )
    while True:
        try:
            yield session.prompt("> ")
        except EOFError:
            return


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.6)
    return f": did you mean {' or '.join(close)}?" if close else ""


def read_observation(game: Game, line: str) -> Observation:
    """The observation a typed line means; cards in either case, zones in lower case. An
    unknown card, zone or observation type is an ObservationError that suggests the nearest."""
    parts = line.split()
    if "->" in line and len(parts) == 4 and parts[2] == "->":
        card, src, dst = parts[0].upper(), parts[1].lower(), parts[3].lower()
        try:
            Card.parse(card)
        except CardError as e:
            raise ObservationError(f"{e}{_suggest(card, card_names())}") from None
        obs = Observation.move(card, src, dst)
        try:
            game.validate(obs)
        except ObservationError as e:
            unknown = next((z for z in (src, dst) if f"unknown zone {z!r}" in str(e)), None)
            if unknown is None:
                raise
            raise ObservationError(f"{e}{_suggest(unknown, game.zones)}") from None
        return obs
    head = parts[0].lower() if parts else ""
    if head and head not in game.observation_types and "=" not in head:
        hint = _suggest(head, [*game.observation_types, *COMMANDS])
        expected = ": expected CARD FROM -> TO, answer X, a command or TYPE key=value"
        raise ObservationError(f"cannot read {line.strip()!r}{hint or expected}")
    obs = parse_short(" ".join([head, *parts[1:]]))
    game.validate(obs)
    return obs


# ---- telling the players -------------------------------------------------------------------


def summary(game: Game, ref: Referee) -> str:
    """Whose turn it is, the round (or the game's equivalent) and any open question, in a line."""
    st = ref.state
    if game.is_terminal(st):
        outcome = game.outcome(st)
        if outcome is None:
            return "The game is over."
        return f"The game is over: {outcome.winner or 'a draw'} ({outcome.reason})."
    parts = []
    try:  # a game names whose turn it is as ``active`` (a player, or the players who act)
        active = getattr(st, "active", None)
        active = active() if callable(active) else active
    except (IndexError, KeyError, ValueError):  # nobody's yet (the deal, the flop)
        active = None
    if isinstance(active, list | tuple):
        active = " and ".join(map(str, active))
    if active:
        parts.append(f"{active} to play")
    for name in ("age", "round", "turn", "phase"):
        value = getattr(st, name, None)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            parts.append(f"{name} {value}")
    text = "Now: " + ", ".join(parts) + "." if parts else "Now: the game is under way."
    if ref.pending is not None:
        text += f" Open question: {ref.pending.question} (answer {' / '.join(ref.pending.labels)})"
    return text


def print_legal(moves: list[TypedMove]) -> None:
    if not moves:
        print("no legal moves")
        return
    print(f"{len(moves)} legal moves (type a number to play it):")
    width = len(str(len(moves)))
    for i, t in enumerate(moves, 1):
        print(f"  {str(i).rjust(width)}. {t.text()}")


# ---- the session ---------------------------------------------------------------------------


class Session:
    """One game being played at the keyboard: a referee whose log takes only what it accepts."""

    def __init__(self, game: Game, ref: Referee, text: bool, interactive: bool):
        self.game, self.ref, self.text, self.interactive = game, ref, text, interactive
        self.listed: tuple[str, list[TypedMove]] | None = None  # the last 'legal', for numbers

    def error(self, message: str) -> None:
        print(f"error: {message}", file=sys.stdout if self.interactive else sys.stderr)

    def feed(self, obs: Observation) -> bool:
        """Feed one observation to a trial copy of the referee; keep it (and log it) only if
        it is accepted. Returns whether it was."""
        log, self.ref.log = self.ref.log, None
        try:
            trial = copy.deepcopy(self.ref)
        finally:
            self.ref.log = log
        notes = trial.feed(obs)
        accepted = not any(a.kind == "REJECT" for a in notes)
        if accepted:
            if log is not None:
                log.append(obs)
            trial.log = log
            self.ref = trial
        emit(notes, self.text)
        if accepted and not notes and self.interactive and self.text:
            print(f"noted: {obs.short()}")  # a silent referee would leave the player wondering
        return accepted

    def legal(self) -> list[TypedMove]:
        """What may be typed now: the answers while the referee asks, else the legal moves."""
        pending = self.ref.pending
        if pending is not None:
            print(f"The referee asks: {pending.question}")
            moves = [
                TypedMove(m, Observation.answer(label))
                for m, label in zip(pending.moves, pending.labels, strict=True)
            ]
        else:
            moves = typed_moves(self.game, self.ref.state)
        self.listed = (self.ref.snapshot(), moves)
        return moves

    def play_number(self, n: int) -> None:
        if self.listed is None or self.listed[0] != self.ref.snapshot():
            self.error("type 'legal' first: a number plays a move of the list it shows now")
            return
        moves = self.listed[1]
        if not 1 <= n <= len(moves):
            self.error(f"no move {n}: the list has 1 to {len(moves)}")
            return
        chosen = moves[n - 1]
        if chosen.observation is None:
            self.error(f"move {n} has no typed form: type what you see happen")
            return
        print(f"> {chosen.line}")
        if self.feed(chosen.observation) and chosen.answer is not None and self.ref.pending is not None:
            print(f"> answer {chosen.answer}")
            self.feed(Observation.answer(chosen.answer))

    def handle(self, line: str) -> bool:
        """Act on one typed line; False once the session should end."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        word = line.lower()
        if word in ("quit", "exit"):
            return False
        if word == "help":
            print(HELP)
        elif word == "zones":
            print(" ".join(sorted(self.game.zones)))
        elif word == "status":
            print(summary(self.game, self.ref))
        elif word == "legal":
            print_legal(self.legal())
        elif word.isascii() and word.isdigit():  # "²" is a digit to str.isdigit, not to int()
            self.play_number(int(word))
        else:
            try:
                self.feed(read_observation(self.game, line))
            except ObservationError as e:
                self.error(str(e))
        return not self.game.is_terminal(self.ref.state)


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    ref, replayed = open_referee(game, args.log)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    text = not args.json
    if replayed:
        print(f"Resumed {args.log}: {replayed} observations replayed.")
        print(summary(game, ref))
    else:
        emit(ref.start(), text)
    if interactive:
        print("Type 'help' for the input format, 'legal' for the moves you may make.")
    history = [o.short() for o in ref.fed] if replayed else []
    session = Session(game, ref, text, interactive)
    for line in read_lines(game, interactive, history):
        if not session.handle(line):
            break
    return 0

"""The frame loop that ``cardref live``, ``replay`` and ``collect`` share.

Each command walks a frame source with :func:`frames` (a lost camera is told once per loss,
and its return, and never reaches the command) and plugs in what it does with a frame: live
and replay run it through the camera referee with :func:`referee_frame` (and, on a game
rendered by ``cardref render-game``, let its players act as they did at the table); collect
keeps the frames worth labelling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import CardrefError
from vision.sources import Frame, Lost

if TYPE_CHECKING:
    from vision.layout import Layout
    from vision.pipeline import CameraReferee, Event
    from vision.replay_eval import TablePlayers


def frames(
    source: Iterable[Frame | Lost],
    lost: Callable[[Lost], None] | None = None,
    back: Callable[[], None] | None = None,
) -> Iterator[Frame]:
    """The frames of ``source``. A camera lost is told to ``lost`` once (with its first
    :class:`Lost`) until a frame comes again, which is told to ``back`` first."""
    losing = False
    for item in source:
        if isinstance(item, Lost):
            if not losing and lost is not None:
                lost(item)
            losing = True
            continue
        if losing and back is not None:
            back()
        losing = False
        yield item


def referee_frame(camera: CameraReferee, frame: Frame, players: TablePlayers | None = None) -> list[Event]:
    """What one frame tells through the camera referee, then what the players (``--players``)
    do after it."""
    events = camera.process(frame.index, frame.time, frame.image)
    frame.image = camera.as_seen(frame.image)  # what is drawn over it is where the referee saw it
    if players is not None:
        events += players_act(camera, players, events, frame.index, frame.time)
    return events


def rendered_players(folder: Path, layout: Layout) -> TablePlayers:
    """The players of a game rendered by ``cardref render-game`` (``--players``)."""
    from vision.replay_eval import TablePlayers

    missing = [f for f in ("observations.jsonl", "labels.jsonl") if not (folder / f).is_file()]
    if missing:
        raise CardrefError(
            f"--players {folder}: expected a game rendered by cardref render-game (no {missing[0]})"
        )
    try:
        return TablePlayers(folder, layout)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise CardrefError(
            f"--players {folder}: not a game rendered by cardref render-game ({e!r})"
        ) from None


def players_act(camera: CameraReferee, players: TablePlayers, events: list, index: int, t: float) -> list:
    """What the players do after a frame's ``events``: answer the referee's questions, then
    the name checks (a rename for each card the camera named wrong), and type what the camera
    cannot see; the same for what that brings. A check waits while a question is open."""
    from referee.cards import Card
    from referee.observations import Observation
    from vision.name_check import NameCheck

    def note(new: list) -> list:
        players.checks += [(c, e) for e in new if (c := NameCheck.of(e.kind, e.data)) is not None]
        return new

    note(events)
    out: list = []
    for _ in range(1000):
        referee = camera.referee
        question = camera.inference.question
        if referee.pending is None and question is not None:  # which missed moves happened
            key = players.pick_explanation(question, index)
            if key is None and question.card is not None:
                # The card is none of the names offered: the camera's, checked and put right.
                out += note(camera.choose(1, index, t, confirm=False))
                continue
            if key is None:
                break
            out += note(camera.choose(key, index, t))
            continue
        if referee.pending is None and players.checks:
            check, e = players.checks.pop(0)
            card = players.answer(index, check.card, check.choices, e.data.get("to"))
            if card == check.card:
                camera.confirm(card)
            elif card is not None:
                rename = Observation("rename", Card.parse(check.card), data={"as": card, "at": check.at})
                out += note(camera.put_right(rename, index, t))
            continue
        obs = players.due(index, len(referee.history), referee.pending is not None)
        if obs is None and referee.pending is not None:
            choice = players.match_answer(referee, index)
            obs = Observation.answer(choice) if choice is not None else None
        if obs is None:
            break
        out += note(camera.answer(obs, index, t))
    return out

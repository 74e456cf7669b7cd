"""``cardref render-game``: a seeded random game rendered as an overhead video with its truth.

Outputs in the chosen folder: ``video.mp4`` (mp4v), ``observations.jsonl`` (replayable with
``cardref referee``), ``announcements.jsonl`` (what that command prints for them),
``labels.jsonl`` (one line per frame: phase, observation, camera homography and every
visible card's class, zone, box and whether it is labelled) and ``render.json`` (settings
and timings). Each settled table is composed once; hands and the moving card are drawn
over it frame by frame (see ``video_stage``).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from referee import files
from referee.errors import CardrefError
from referee.games import GAMES
from vision.background import BackgroundWorker
from vision.layout import Layout, load_layout
from vision.progress import progress as progress_bar
from vision.synth.assets import Art, load_recipe
from vision.synth.camera import Camera
from vision.synth.choreography import Beat, Seat, move_beats, tap_beats
from vision.synth.compose import CardSprite
from vision.synth.game_record import GameRecord, Step, record_game
from vision.synth.hands import Hand
from vision.synth.labels import CardLabel
from vision.synth.table_moves import Move, TablePlayers
from vision.synth.table_state import DeckLooks, Placer, Pose, Table, bare, pose_of, sprite, table_sprites
from vision.synth.video_stage import Frame, Shot, Stage, Still, develop

# The games rendered: every game with a layout (see ``table_moves`` for how their cards move).
RENDERED_GAMES = GAMES

OPENING_S = 1.0  # the table before the first observation
CLOSING_S = 1.0


@dataclass(frozen=True)
class VideoSpec:
    game: str = "royal_family"
    seed: int = 0
    size: tuple[int, int] = (1280, 720)
    fps: float = 30.0
    settle: float = 0.6  # seconds of still table after each observation
    max_moves: int | None = None  # render only the first N observations
    recipe: str = "datasets/recipes/train.yaml"
    layout: str | None = None  # default: the game's layout
    mat: bool = True  # the printed play mat (zone outlines, calibration markers) on the felt


class VideoSink:
    """Develops frames (drift warp, flicker), encodes them and writes their labels on a
    second thread, so that work overlaps with drawing the next frame on two cores."""

    def __init__(self, out: Path, size: tuple[int, int], fps: float):
        self.path = out / "video.mp4"
        self.tmp = files.temporary_beside(self.path)  # moved into place when whole
        self.writer = cv2.VideoWriter(str(self.tmp), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        if not self.writer.isOpened():
            raise CardrefError(f"{self.path}: OpenCV cannot write an mp4v video here")
        self.labels = (out / "labels.jsonl").open("w", encoding="utf-8")
        self.frames = 0
        self._worker = BackgroundWorker(self._write)

    def _write(self, item: tuple[Shot, dict]) -> None:
        shot, record = item
        self.writer.write(cv2.cvtColor(develop(shot), cv2.COLOR_RGB2BGR))
        self.labels.write(json.dumps(record, separators=(",", ":")) + "\n")

    def put(self, shot: Shot, record: dict) -> None:
        self._worker.put((shot, record))
        self.frames += 1

    def close(self) -> None:
        try:
            self._worker.close()
        finally:
            self.writer.release()
            self.labels.close()


class GameFilm:
    """Turns a GameRecord into frames: table state, stills, hands and the sink."""

    def __init__(self, spec: VideoSpec, record: GameRecord, art: Art, layout: Layout, sink: VideoSink):
        self.spec, self.record, self.layout, self.sink = spec, record, layout, sink
        rng = np.random.default_rng([spec.seed, 0x5EED])
        self.looks = DeckLooks(rng, art)
        card_w = max(look.size[0] for look in self.looks.looks.values())
        self.placer = Placer(layout, spec.seed, (card_w, self.looks["AS"].size[1]))
        self.stage = Stage(layout, spec.size[0], spec.size[1], rng, art.photos(), spec.mat)
        self.seats = _seats(layout, record.players, rng)
        self.hands = {p: Hand.random(rng, (0.0, 0.0), 90.0) for p in record.players}
        self.tap_rng = rng
        hidden = tuple(z for z in record.initial if _hidden(layout, z))
        self.table = Table(record.initial, hidden)
        self.players = TablePlayers(record.game, layout, self.table)
        self.still = self._compose()
        self.done = 0  # observations completed

    # ---- frames -------------------------------------------------------------------------------
    def _emit(self, frame: Frame, phase: str, obs: int, beat: str | None = None, held: bool = False) -> None:
        t = self.sink.frames / self.spec.fps
        shot = self.stage.shoot(frame, t)
        held_index = len(frame.labels) - 1 if held else -1
        record = {
            "frame": self.sink.frames,
            "t": round(t, 4),
            "phase": phase,
            "obs": obs,
            **({"beat": beat} if beat else {}),
            "H": _homography(shot.cam),
            "cards": [_card_record(lb, lb.index == held_index) for lb in shot.labels if lb.visible > 0],
        }
        self.sink.put(shot, record)

    def settle(self, seconds: float) -> None:
        frame = self.stage.overlay(self.still, None, None)
        for _ in range(max(1, round(seconds * self.spec.fps))):
            self._emit(frame, "settled", self.done)

    def _hand(self, actor: str, beat: Beat) -> Hand:
        return replace(self.hands[actor], tip=beat.tip, direction=beat.direction)

    def play(self, step: Step) -> None:
        moved = False
        try:
            for move in self.players.moves(step.obs, step.actor):
                self._move(step, move)
                moved = True
        except CardrefError as e:
            raise CardrefError(f"{self.record.game} seed {self.spec.seed} observation {step.line} "
                               f"({step.obs.short()}): {e}") from None
        if not moved:
            self._tap(step)
        self.done = step.line
        self.settle(self.spec.settle)

    def _move(self, step: Step, move: Move) -> None:
        seat = self.seats[step.actor]
        src, dst = move.src, move.dst
        before = self.still
        if self.table.zones != self._composed:
            # The discard pile became the draw pile (a cut to the new table), the drawn card
            # was moved to the top of the face-down pile, or unseen cards swapped names: the
            # picture is the same, the truth not.
            before = self.still = self._compose()
        src_pose = pose_of(self.table, self.placer, src, move.index) or _aside(seat, src)
        card = self.table.take(src, move.index)  # for a face-down move (BACK), the top card
        without = self._compose()
        self.table.put(dst, card, move.up, self.layout, src)
        dst_pose = pose_of(self.table, self.placer, dst, len(self.table.zones[dst]) - 1)
        after = self._compose()
        dst_pose = dst_pose or _aside(seat, dst)
        card = bare(card)
        for beat in move_beats(src_pose, dst_pose, seat, self.spec.fps):
            hand = self._hand(step.actor, beat)
            if beat.card is None:
                still = before if beat.phase == "reach" else after
                frame = self.stage.overlay(still, None, hand)
            else:
                frame = self.stage.overlay(without, _held_sprite(card, beat, self.looks), hand)
            self._emit(frame, "moving", step.line, beat.phase, held=beat.card is not None)
        self.still = after

    def _compose(self) -> Still:
        """The settled table as it lies now (remembered, to tell when it changed unseen)."""
        self._composed = {z: list(cs) for z, cs in self.table.zones.items()}
        return self.stage.compose(table_sprites(self.table, self.placer, self.looks))

    def _tap(self, step: Step) -> None:
        seat = self.seats[step.actor]
        tw, th = self.layout.table_size
        near_black = seat.pivot[1] < th / 2
        target = (tw / 2 + float(self.tap_rng.normal(0, 8)), 22.0 if near_black else th - 22.0)
        if 0 <= seat.pivot[1] <= th:  # a seat at the x = 0 or far x edge
            x = 22.0 if seat.pivot[0] < tw / 2 else tw - 22.0
            target = (x, th / 2 + float(self.tap_rng.normal(0, 8)))
        for beat in tap_beats(target, seat, self.spec.fps):
            self._emit(
                self.stage.overlay(self.still, None, self._hand(step.actor, beat)), "moving", step.line, "tap"
            )


def _held_sprite(card: str, beat: Beat, looks: DeckLooks) -> CardSprite:
    assert beat.card is not None
    s = sprite(card, beat.card, looks, None, beat.lift)
    if beat.squash < 1.0:
        s = replace(s, size=(s.size[0] * beat.squash, s.size[1]))
    return s


def _seats(layout: Layout, players: tuple[str, ...], rng: np.random.Generator) -> dict[str, Seat]:
    """Two players sit at the table's y = 0 edge and across; three or four go round the table
    (y = 0, x = 0, far y, far x: Royal Crush's layout seats p1 to p4 so). The arm pivots about
    40 cm beyond the edge, a little off the middle."""
    tw, th = layout.table_size
    seats = {}
    for k, p in enumerate(players):
        side = k % 2 * 2 if len(players) <= 2 else k % 4
        if side in (0, 2):
            x = tw / 2 + float(rng.normal(0, 10))
            y, edge = (-40.0, -24.0) if side == 0 else (th + 40.0, th + 24.0)
            seats[p] = Seat((x, y), (x + (8.0 if side == 0 else -8.0), edge))
        else:
            y = th / 2 + float(rng.normal(0, 10))
            x, edge = (-40.0, -24.0) if side == 1 else (tw + 40.0, tw + 24.0)
            seats[p] = Seat((x, y), (edge, y + (-8.0 if side == 1 else 8.0)))
    return seats


def _aside(seat: Seat, zone: str) -> Pose:
    """Where a card off the table goes: beside the player, past the edge; face up out of the
    game, its back to the camera in a player's hand."""
    return Pose((seat.rest[0] + 25.0, seat.rest[1]), 0.0, not zone.startswith("hand"))


def _hidden(layout: Layout, zone: str) -> bool:
    """A zone whose cards nobody sees: face down, off the table, or not on the layout."""
    z = layout.zones.get(zone)
    return z is None or z.offtable or z.face == "down"


def _homography(cam: Camera) -> list[list[float]]:
    H = cam.homography()
    return [[float(f"{v:.6g}") for v in row] for row in H]


def _card_record(lb: CardLabel, held: bool) -> dict:
    out = {
        "card": lb.identity,
        "cls": lb.cls,
        "zone": lb.zone,
        "labelled": lb.labelled,
        "box": list(lb.box) if lb.box else None,
        "visible": lb.visible,
    }
    if held:
        out["held"] = True
    return out


def write_truth(out: Path, record: GameRecord) -> None:
    files.write_text(out / "observations.jsonl", "".join(ln + "\n" for ln in record.observation_lines()))
    files.write_text(out / "announcements.jsonl", "".join(ln + "\n" for ln in record.announcement_lines))


def render_game(spec: VideoSpec, out: str | Path, progress: bool = True) -> dict:
    """Play and render one game; returns a summary (frames, seconds, frames per second)."""
    out = Path(out)
    layout = load_layout(spec.layout or spec.game)
    art = Art(load_recipe(spec.recipe))
    record = record_game(spec.game, spec.seed, spec.max_moves)
    files.ensure_dir(out, "rendered game")
    write_truth(out, record)
    t0 = time.perf_counter()
    sink = VideoSink(out, spec.size, spec.fps)
    try:
        film = GameFilm(spec, record, art, layout, sink)
        with progress_bar(len(record.steps), "render-game", "obs", enabled=progress) as bar:
            film.settle(OPENING_S)
            for step in record.steps:
                film.play(step)
                bar.update()
            film.settle(CLOSING_S)
    finally:
        sink.close()
    files.move_into_place(sink.tmp, sink.path)
    seconds = time.perf_counter() - t0
    summary = {
        "game": spec.game,
        "seed": spec.seed,
        "observations": len(record.steps),
        "outcome": record.outcome,
        "frames": sink.frames,
        "video_seconds": round(sink.frames / spec.fps, 2),
        "render_seconds": round(seconds, 2),
        "frames_per_second": round(sink.frames / seconds, 1) if seconds else None,
        "realtime_factor": round(sink.frames / spec.fps / seconds, 2) if seconds else None,
        "out": str(out),
    }
    meta = {**asdict(spec), "deck": film.looks.deck.name, "K": film.stage.cam.K.round(3).tolist(), **summary}
    files.write_json(out / "render.json", meta)
    return summary


def check_size(text: str) -> tuple[int, int]:
    """``1280x720`` -> (1280, 720); even sizes only (most encoders need them)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CardrefError(f"--size: expected WIDTHxHEIGHT such as 1280x720, got {text!r}") from None
    if not (160 <= w <= 3840 and 120 <= h <= 2160) or w % 2 or h % 2:
        raise CardrefError(f"--size: expected even sizes within 160x120..3840x2160, got {text!r}")
    return w, h

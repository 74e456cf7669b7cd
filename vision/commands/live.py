"""``cardref live GAME --camera 0``: referee a game at the table through a webcam.

A window shows the camera with the zones, the cards read and the referee's latest words
(``--headless``: terminal only). Answer a question (ASK) with the number keys in the window,
or by typing ``answer 2`` / ``end_turn`` in the terminal. A card the camera named unsurely is
shown with its other likely names ([CHECK]): a number key (or typing the number) puts it right;
any misread card is put right by typing ``rename card=JS as=JC``. The game is written to ``--log`` as
it goes; after a crash or a lost camera run the same command with ``--resume``. ``--speak``
says the announcements aloud (espeak-ng), ``--quiet-routine`` only the ones that matter.
``--camera game.mp4 --realtime`` rehearses with a recorded game delivered as a webcam would.
``--serve [HOST:]PORT`` serves the game-night screen, a page a TV or a phone opens to follow
the game and answer its questions (``0.0.0.0:8000`` for the whole network); when a video file
ends it stays up with the final state until Ctrl-C.
The window names the cards read in their zones, whose turn it is and the keys that do
something now, and says when frames are dropped or the machine cannot keep up (that warning
is printed too); ``--record-window FILE.mp4`` writes what the window shows, headless too.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import CardrefError, ObservationError
from referee.observations import Observation

if TYPE_CHECKING:
    from vision.name_check import NameCheck
    from vision.pipeline import CameraReferee
    from vision.sources import Frame

KEYS = "123456789"


def build_parser(prog: str) -> argparse.ArgumentParser:
    from referee.games import GAMES
    from vision.commands.common import add_quiet_arg
    from vision.detector import RUNTIMES

    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("game", choices=GAMES)
    p.add_argument("--camera", default="0", help="webcam index, stream URL, video file or image folder")
    p.add_argument(
        "--realtime", action="store_true",
        help="a video file plays at its own speed, dropping frames when behind, as a webcam would",
    )
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE", help="rule variant")
    p.add_argument("--log", type=Path, help="game log (default: cardref-GAME.jsonl)")
    p.add_argument("--resume", action="store_true", help="continue the game in --log")
    p.add_argument("--calibration", type=Path, help="saved calibration (default: from the mat's markers)")
    p.add_argument("--save-calibration", type=Path, help="write the calibration found here")
    p.add_argument("--model", help="detector model (default: the shipped models/cards.onnx)")
    p.add_argument("--backend", choices=RUNTIMES,
                   help="detector runtime (default: openvino when installed and the CPU has "
                        "bfloat16, where it is about 2x faster, else onnx)")
    p.add_argument("--detections", type=Path, help="recorded detections.jsonl instead of the model")
    p.add_argument("--players", type=Path, metavar="GAME_DIR",
                   help="a game rendered by cardref render-game, filmed by --camera: its players type, "
                        "answer and check as it went, as with cardref replay --players")
    add_quiet_arg(p)
    p.add_argument("--headless", action="store_true", help="no window")
    p.add_argument("--record-window", type=Path, metavar="FILE.mp4",
                   help="write what the window shows to this video (with --headless too)")
    p.add_argument("--speak", action="store_true", help="speak the announcements (espeak-ng)")
    p.add_argument("--quiet-routine", action="store_true", help="speak only turns, damage, rejects, results")
    p.add_argument("--serve", metavar="[HOST:]PORT",
                   help="serve the game-night screen on this port (host 127.0.0.1 unless given)")
    return p


def typed_lines() -> queue.Queue:
    """Lines typed on the terminal, read by a thread so frames keep flowing."""
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            lines.put(line.strip())

    threading.Thread(target=read, daemon=True, name="stdin").start()
    return lines


@dataclass
class Keys:
    """The number keys of the players (the window's, the screen's buttons, digits typed): the
    answer to the referee's open question, else the choice for the oldest card named unsurely
    (``[CHECK]``) or, first, for the question on moves the camera missed."""

    camera: CameraReferee
    tell: Callable[[list], None]
    checks: list[NameCheck] = field(default_factory=list)  # oldest first, until a key answers each
    keyed: list[int] = field(default_factory=list)  # numbers typed for [CHECK]s not shown yet

    def waiting(self) -> bool:
        """Whether a [CHECK] or a question on missed moves waits for a number."""
        return bool(self.checks or self.camera.inference.question)

    def press(self, key: int, item: Frame, later: bool = False) -> None:
        """A number key: the referee's question first; ``later``: a choice waits its turn."""
        if self.camera.referee.pending is not None:
            self.tell(self.camera.answer(Observation.answer(key), item.index, item.time))
        elif self.waiting() and later:
            self.keyed.append(key)
        elif self.waiting():
            self.answer_check(key, item)

    def answer_keyed(self, item: Frame) -> None:
        """The numbers typed for [CHECK]s, while one waits and the referee asks nothing."""
        while self.keyed and self.waiting() and self.camera.referee.pending is None:
            self.answer_check(self.keyed.pop(0), item)

    def answer_check(self, key: int, item: Frame) -> None:
        """A player's choice for the oldest card named unsurely: its name confirmed, or a rename;
        first, the question on moves the camera missed (``[question]``), if one is open."""
        camera, checks = self.camera, self.checks
        if camera.inference.question is not None:
            try:
                self.tell(camera.choose(key, item.index, item.time))
            except CardrefError as e:
                print(f"cardref live: {e}", flush=True)
            return
        try:
            rename = checks[0].answer(key)
        except CardrefError as e:
            print(f"cardref live: {e}", flush=True)
            return
        check = checks.pop(0)
        if rename is not None:
            self.tell(camera.put_right(rename, item.index, item.time))
        else:
            camera.confirm(check.card)
        if checks:  # the next one still waits for its key
            print(f"{item.time:7.1f}s  [CHECK] {checks[0].prompt()}", flush=True)


def run(args: argparse.Namespace) -> int:
    import cv2

    from referee.observations import parse_short
    from referee.summary import whose_turn
    from vision.calibration import Calibration
    from vision.commands.common import game_from_args, open_referee, quiet_from_args
    from vision.detector.detections_io import model_detector, recorded_detector
    from vision.frame_loop import frames, referee_frame, rendered_players
    from vision.layout import load_layout
    from vision.live_view import FrameHealth, LiveView, draw_live
    from vision.name_check import NameCheck
    from vision.pipeline import CameraReferee, Settings
    from vision.sources import Lost, open_source

    game = game_from_args(args)
    settings = Settings(**quiet_from_args(args))
    if args.serve:
        from vision.screen.server import parse_address

        parse_address(args.serve)  # a mistyped address is told before the camera is opened
    if args.save_calibration is not None and args.save_calibration.is_dir():
        raise CardrefError(f"--save-calibration {args.save_calibration}: is a folder, expected a file name")
    # The source before the model: a wrong source is the likelier mistake.
    source = open_source(args.camera, realtime=args.realtime)
    log = args.log or Path(f"cardref-{args.game}.jsonl")
    if log.exists() and log.stat().st_size and not args.resume:
        raise CardrefError(f"{log}: a game is already logged here (use --resume, or another --log)")
    referee, replayed = open_referee(game, str(log))
    layout = load_layout(args.game)
    players = rendered_players(args.players, layout) if args.players else None
    calibration = Calibration.load(args.calibration) if args.calibration else None
    if args.detections:
        detect = recorded_detector(args.detections)
    else:
        detect = model_detector(args.model, Settings.conf, args.backend)
    camera = CameraReferee(referee, layout, detect, calibration, settings)
    camera.inference.ask_readings = True  # the players at the table answer with a number key
    speaker = None
    if args.speak:
        from vision.speech import Speaker

        speaker = Speaker(quiet_routine=args.quiet_routine)
    screen = None
    if args.serve:
        from vision.screen.feed import ScreenFeed

        screen = ScreenFeed(args.serve, layout)
        print(f"game-night screen: {screen.url}", flush=True)
    typed = typed_lines()
    recent: list[tuple[str, str]] = []
    status = f"resumed: {replayed} observations from {log}" if replayed else "looking for the play mat"
    view = LiveView(layout, health=FrameHealth(source.fps or 30.0))
    recorder = None
    slow = False  # the machine was told too slow (told again once it keeps up)

    def tell(events) -> None:
        nonlocal status
        if screen is not None:
            screen.tell(events)
        for e in events:
            if e.kind == "read":
                continue
            line = e.announcement.to_text() if e.announcement else f"[{e.kind}] {e.text}"
            print(f"{e.time:7.1f}s  {line}", flush=True)
            unsure = NameCheck.of(e.kind, e.data)
            if unsure is not None:
                keys.checks.append(unsure)
                print(f"{e.time:7.1f}s  [CHECK] {unsure.prompt()}", flush=True)
                recent.append(("CHECK", unsure.prompt()))
            kind = e.announcement.kind if e.announcement else e.kind
            recent.append((kind, e.text))
            del recent[:-3]
            if e.announcement is not None:
                if e.announcement.kind == "ANNOUNCE":
                    status = e.text
                if speaker is not None:
                    speaker.say(e.announcement)
            if e.kind == "calibrated" and args.save_calibration and camera.calibration is not None:
                camera.calibration.save(args.save_calibration)

    keys = Keys(camera, tell)

    def from_screen(item: Frame) -> None:
        """The screen's buttons: a number key for the open question, dropped when none is."""
        for key in screen.pressed():
            keys.press(key, item, later=True)

    def pause(lost: Lost) -> None:
        nonlocal paused
        paused = True
        print(f"[PAUSED] camera lost: reconnecting (attempt {lost.attempt}); the game is kept in {log}",
              flush=True)

    def resume() -> None:
        nonlocal paused
        paused = False
        camera.settle.force_read()
        print("[RESUMED] camera back", flush=True)

    if not replayed:
        tell(camera.start())
    paused = False
    waiting: list[Observation] = []
    item, stopped = None, False
    try:
        for item in frames(source, lost=pause, back=resume):
            started = time.perf_counter()
            tell(referee_frame(camera, item, players))
            while not typed.empty():
                text = typed.get()
                if not text:
                    continue
                if text.isascii() and text.isdigit():  # a choice for the next [CHECK]
                    keys.keyed.append(int(text))
                    continue
                try:  # a typo is told at once and dropped; the game goes on
                    obs = parse_short(text)
                    referee.validate(obs)
                    waiting.append(obs)
                except CardrefError as e:
                    print(f"cardref live: error: {e}", flush=True)
            if screen is not None:
                from_screen(item)
            keys.answer_keyed(item)
            # An answer waits for its question; anything else typed (end_turn) goes in at once.
            while waiting and (waiting[0].type != "answer" or referee.pending is not None):
                try:  # checked when typed; a game type's own field check may still refuse it
                    tell(camera.answer(waiting.pop(0), item.index, item.time))
                except ObservationError as e:
                    print(f"cardref live: error: {e}", flush=True)
            if screen is not None:
                screen.show(camera, keys.checks, status, item.time, item.index, item.image)
            assert view.health is not None
            view.health.update(item.index, item.time, time.perf_counter() - started)
            if view.health.too_slow != slow:
                slow = view.health.too_slow
                print(f"{item.time:7.1f}s  [{'SLOW' if slow else 'OK'}] {view.health.text()}", flush=True)
            if args.headless and args.record_window is None:
                continue
            view.calibration, view.table, view.status, view.recent = (
                camera.calibration, camera.table, status, recent)
            view.turn = whose_turn(referee.state)
            view.asking = referee.pending is not None
            view.checking = keys.waiting()
            image = draw_live(item.image, view)
            if args.record_window is not None:
                if recorder is None:
                    recorder = cv2.VideoWriter(str(args.record_window), cv2.VideoWriter_fourcc(*"mp4v"),
                                               source.fps or 30.0, (image.shape[1], image.shape[0]))
                recorder.write(image)
            if not args.headless:
                try:
                    cv2.imshow("cardref", image)
                except cv2.error:
                    raise CardrefError(
                        "this OpenCV build has no window support: use --headless "
                        "(or pip install opencv-python)"
                    ) from None
                key = cv2.waitKey(1) & 0xFF
                if key == ord("q"):
                    stopped = True
                    break
                if chr(key) in KEYS:
                    keys.press(KEYS.index(chr(key)) + 1, item)
                elif key == ord("e"):
                    tell(camera.answer(Observation.of("end_turn"), item.index, item.time))
        if screen is not None and item is not None and not paused and not stopped:
            print(f"the video has ended; the screen stays at {screen.url} (Ctrl-C to stop)", flush=True)
            try:
                while True:  # its buttons still answer
                    from_screen(item)
                    keys.answer_keyed(item)
                    screen.show(camera, keys.checks, status, item.time, item.index, None)
                    time.sleep(0.1)
            except KeyboardInterrupt:
                pass
    finally:
        source.close()
        if screen is not None:
            screen.close()
        if recorder is not None:
            recorder.release()
        if speaker is not None:
            speaker.close()
        if not args.headless:
            cv2.destroyAllWindows()
    print(f"game log: {log} (resume with --resume)")
    return 0

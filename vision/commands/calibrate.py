"""``cardref calibrate GAME --camera SOURCE --out calibration.json``: camera-to-table calibration.

By default from the play mat's ArUco markers (``cardref mat``). Without a mat, give the four
table corners in pixels with ``--corners "x,y x,y x,y x,y"`` (black's left, black's right,
red's right, red's left), ``--click`` to click them in a window, or ``--cards`` to fit the
cards of the game's start layout as the detector finds them (Royal Family: both castles' aces
and the draw pile, laid in their zones). ``live`` and ``replay`` do that last one by
themselves when they see no markers before the game begins. The saved file is used
with ``cardref live --calibration`` / ``cardref replay --calibration``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.errors import CardrefError


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("game", help="game whose layout to calibrate for")
    p.add_argument("--camera", default="0", help="webcam index, stream URL, video file or image")
    p.add_argument("--out", type=Path, default=Path("calibration.json"))
    group = p.add_mutually_exclusive_group()
    group.add_argument("--corners", help='four table corners in pixels: "x,y x,y x,y x,y"')
    group.add_argument("--click", action="store_true", help="click the four table corners in a window")
    group.add_argument("--cards", action="store_true", help="fit the start layout's cards (detector)")
    p.add_argument("--model", help="detector for --cards (default: the shipped models/cards.onnx)")
    return p


def parse_corners(text: str) -> list[tuple[float, float]]:
    try:
        points = [tuple(float(v) for v in pair.split(",")) for pair in text.split()]
    except ValueError:
        points = []
    if len(points) != 4 or any(len(p) != 2 for p in points):
        raise CardrefError(f'--corners: expected four "x,y" pairs, got {text!r}')
    return [(p[0], p[1]) for p in points]


def click_corners(image) -> list[tuple[float, float]]:
    import cv2

    clicks: list[tuple[float, float]] = []
    names = ("black's left", "black's right", "red's right", "red's left")

    def on_mouse(event, x, y, flags, param) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(clicks) < 4:
            clicks.append((float(x), float(y)))

    try:
        cv2.namedWindow("cardref calibrate")
    except cv2.error:
        raise CardrefError("this OpenCV build has no window support: use --corners") from None
    cv2.setMouseCallback("cardref calibrate", on_mouse)
    while len(clicks) < 4:
        shown = image.copy()
        for x, y in clicks:
            cv2.circle(shown, (int(x), int(y)), 6, (0, 0, 255), 2)
        cv2.putText(
            shown,
            f"click the table corner at {names[len(clicks)]}",
            (10, 30),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.8,
            (0, 0, 255),
            2,
        )
        cv2.imshow("cardref calibrate", shown)
        if cv2.waitKey(30) & 0xFF == ord("q"):
            raise CardrefError("calibration cancelled")
    cv2.destroyAllWindows()
    return clicks


def from_cards(args: argparse.Namespace, image, layout, source: str):
    from referee.core import Referee
    from referee.games import load_game
    from vision.detector import load_detector
    from vision.pipeline import Settings, start_cards
    from vision.start_layout import MIN_CARDS, from_start_cards

    game = load_game(args.game)
    start = start_cards(layout, game.cards_by_zone(Referee(game).state) or {})
    if len(set(start.values())) < MIN_CARDS:
        raise CardrefError(
            f"{args.game}: its start layout has no {MIN_CARDS} known cards on the table to calibrate "
            "from: use the mat's markers, --corners or --click"
        )
    detections = load_detector(args.model, conf=Settings.conf).detect(image)
    return from_start_cards(image, detections, layout, start, source=source)


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import detect_markers, from_corners, from_markers
    from vision.layout import load_layout
    from vision.sources import Frame, open_source

    layout = load_layout(args.game)
    source = open_source(args.camera)
    frame = next((f for f in source if isinstance(f, Frame)), None)
    source.close()
    if frame is None:
        raise CardrefError(f"{args.camera}: no frame to calibrate from")
    h, w = frame.image.shape[:2]
    if args.corners or args.click:
        corners = parse_corners(args.corners) if args.corners else click_corners(frame.image)
        calibration = from_corners(corners, layout, (w, h))
    elif args.cards:
        calibration = from_cards(args, frame.image, layout, f"{args.camera} frame {frame.index}")
    else:
        where = f"{args.camera} frame {frame.index}"
        try:
            calibration = from_markers(frame.image, layout, source=where)
        except CardrefError:
            if not detect_markers(cv2.flip(frame.image, 1), layout):
                raise
            raise CardrefError(
                f"{where}: the play mat's markers show only in the picture turned back: the camera "
                "mirrors the table (a selfie view); turn its mirroring off (cardref live and replay "
                "turn it back themselves)"
            ) from None
    calibration.save(args.out)
    print(f"{args.out}: {calibration.method}, {w}x{h}, fit error {calibration.error_px:.2f} px")
    return 0

"""How a hand makes one observation, frame by frame, in table centimetres.

A move is five beats: the hand reaches from the player's edge to the card, grabs it (the
card lifts), carries it to its new place (turning over on the way when its side changes),
releases it and withdraws. Other observations (``end_turn``, ``answer``) are a short tap on
the player's side of the table. The arm pivots at the player's seat beyond the table edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision.synth.table_state import Pose

REACH_S = 0.40
GRAB_S = 0.13
RELEASE_S = 0.13
CARRY_S = (0.35, 0.9)  # shortest and longest carry
CARRY_CM_PER_S = 110.0
LIFT_CM = 0.8
TIP_PAST_CENTRE_CM = -1.0  # fingertips on the near half of the card held: its far half shows


@dataclass(frozen=True)
class Seat:
    """Where a player's arm comes from (cm, beyond the table edge) and where it rests."""

    pivot: tuple[float, float]
    rest: tuple[float, float]  # fingertips just off the table, out of the way


@dataclass(frozen=True)
class Beat:
    """One frame of an action: the hand's fingertips, and the card held (or None)."""

    phase: str  # reach | grab | carry | release | retreat | tap
    tip: tuple[float, float]
    direction: float  # degrees, from the seat to the fingertips
    card: Pose | None = None  # the moving card's pose (None: the card lies in the static scene)
    lift: float = 0.0
    squash: float = 1.0  # width factor of the card while it turns over (1: flat)


def ease(t: float) -> float:
    """Smooth start and stop (0..1 -> 0..1)."""
    t = min(1.0, max(0.0, t))
    return t * t * (3 - 2 * t)


def lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _angle_lerp(a: float, b: float, t: float) -> float:
    d = (b - a + 180.0) % 360.0 - 180.0
    return a + d * t


def _frames(seconds: float, fps: float) -> int:
    return max(1, round(seconds * fps))


def _direction(seat: Seat, tip: tuple[float, float]) -> float:
    return math.degrees(math.atan2(tip[1] - seat.pivot[1], tip[0] - seat.pivot[0]))


def _fingers_at(seat: Seat, centre: tuple[float, float]) -> tuple[float, float]:
    a = math.radians(_direction(seat, centre))
    return (centre[0] + math.cos(a) * TIP_PAST_CENTRE_CM, centre[1] + math.sin(a) * TIP_PAST_CENTRE_CM)


def move_beats(src: Pose, dst: Pose, seat: Seat, fps: float) -> list[Beat]:
    """Frames of one card moving from ``src`` to ``dst`` (either may be off the table)."""
    beats: list[Beat] = []
    grab_at = _fingers_at(seat, src.center)
    put_at = _fingers_at(seat, dst.center)

    def beat(
        phase: str, tip: tuple[float, float], card: Pose | None = None, lift: float = 0.0, squash: float = 1.0
    ) -> Beat:
        return Beat(phase, tip, _direction(seat, tip), card, lift, squash)

    n = _frames(REACH_S, fps)
    for k in range(n):
        beats.append(beat("reach", lerp(seat.rest, grab_at, ease((k + 1) / n))))
    n = _frames(GRAB_S, fps)
    for k in range(n):
        beats.append(beat("grab", grab_at, src, LIFT_CM * ease((k + 1) / n)))
    dist = math.dist(src.center, dst.center)
    n = _frames(min(CARRY_S[1], max(CARRY_S[0], dist / CARRY_CM_PER_S)), fps)
    for k in range(n):
        t = ease((k + 1) / n)
        centre = lerp(src.center, dst.center, t)
        face_up, squash = src.face_up, 1.0
        if src.face_up != dst.face_up:  # turned over on the way: edge-on at the middle
            squash = max(0.06, abs(math.cos(math.pi * t)))
            face_up = dst.face_up if t >= 0.5 else src.face_up
        pose = Pose(centre, _angle_lerp(src.angle, dst.angle, t), face_up)
        lift = LIFT_CM * (1 + 1.5 * math.sin(math.pi * t))
        beats.append(beat("carry", _fingers_at(seat, centre), pose, lift, squash))
    n = _frames(RELEASE_S, fps)
    for k in range(n):
        beats.append(beat("release", put_at, dst, LIFT_CM * (1 - ease((k + 1) / n))))
    n = _frames(REACH_S, fps)
    for k in range(n):
        beats.append(beat("retreat", lerp(put_at, seat.rest, ease((k + 1) / n))))
    return beats


def tap_beats(target: tuple[float, float], seat: Seat, fps: float) -> list[Beat]:
    """A hand that reaches out, taps the table and withdraws (end of turn, an answer)."""
    beats = []
    n = _frames(REACH_S * 0.8, fps)
    for k in range(n):
        tip = lerp(seat.rest, target, ease((k + 1) / n))
        beats.append(Beat("tap", tip, _direction(seat, tip)))
    for k in range(n):
        tip = lerp(target, seat.rest, ease((k + 1) / n))
        beats.append(Beat("tap", tip, _direction(seat, tip)))
    return beats

"""The camera referee: frames in, observations and announcements out.

Per frame: calibrate (once, from the play mat's markers, unless a calibration is given), watch
the motion, and when the table has settled into something new, read it a few times with the
detector, vote, and let event inference feed the referee. The detector runs only then, so a
2-core machine keeps up. Everything the pipeline decides is reported as :class:`Event` values
for the commands to print, overlay, speak and write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from referee.announcements import Announcement
from referee.cards import Card
from referee.core import Referee
from referee.errors import CardrefError
from referee.observations import Observation
from vision.calibration import Calibration, drift_px, from_markers, from_markers_either_way
from vision.detector.detections import Detections
from vision.detector.detections_io import to_record
from vision.events import BEHIND, UNSURE_NAMING, EventInference, Result
from vision.layout import Layout
from vision.motion import SettleDetector, thumbnail_mask
from vision.start_layout import from_start_cards
from vision.table_state import BACK, MAX_CANDIDATES, SeenCard, TableState, Vote, place, read_table

DRIFT_PX = 12.0  # markers this far from where the calibration puts them: the camera moved
DRIFT_EVERY_S = 5.0  # while the table is quiet; and always before a read
# Without markers in view (hands over them, a mat without them) a knock shows in the cards:
# most of those read at the last table and now sit this far from where they lay, together.
SHIFT_CM = 2.5
SHIFT_SHARE = 0.6  # of the cards seen at both reads (a move shifts one or two)
SHIFT_MIN_CARDS = 3
TABLE_MARGIN_CM = 3.0  # beyond the layout, where motion still counts (a card laid at its edge)


@dataclass
class Event:
    """One thing worth telling: ``kind`` is observation, announcement, read, desync, resync,
    recovered (steps the camera missed, fed), question (which missed steps happened),
    waiting (a typed move kept until the camera catches up), seen (a typed move the camera
    had fed already), calibrated, drift, lost or resumed."""

    kind: str
    time: float
    frame: int
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    announcement: Announcement | None = None
    observation: Observation | None = None


# Stillness before a read, seconds: players who know the game pause about a third of a
# second between moves (a game's layout may ask for longer: ``Layout.quiet_s``).
QUIET_S = 0.25


@dataclass
class Settings:
    reads: int = 3  # settled frames read and voted on per table state (at most: READ_FOR_S)
    quiet_s: float | None = None  # stillness before a read, seconds: None, the layout's or QUIET_S
    conf: float = 0.25  # a card is there (``Detections.found``): unsure names still vote
    calibrate_from_cards: bool = True  # no markers in view: fit the start layout's cards


# Likeliest names per box kept in detections.jsonl: as many as event inference may try for
# a card named unsurely (its name and its candidates), so that a re-run decides as live did.
TOP_NAMES = 1 + MAX_CANDIDATES
OFFERED_NAMES = 2  # other names offered to a player for a card named unsurely
UNSURE_NAME = UNSURE_NAMING  # a card named with less probability is flagged, with its other likely names
CARD_TRY_EVERY_S = 1.0  # without markers: how often to try calibrating from the start layout
# A read's frames span this long at least, and then two are enough: three frames at 30 fps,
# two at 15 fps or fewer (a 10 fps camera took 0.3 s for three, and a table still for 0.6 s
# between two moves was never read whole).
READ_FOR_S = 0.06
# A table still this long between two reads is kept to glance back at (``Glimpse``): a game
# played fast leaves a drawn card in staging about a third of a second, under the stillness a
# read waits for (QUIET_S and the motion's RECENT_S), and the rules then know a turn passed
# unseen but not its card. The last MAX_GLIMPSES such moments are kept, one frame each.
GLIMPSE_S = 0.1
MAX_GLIMPSES = 6


@dataclass(frozen=True)
class Glimpse:
    """A frame of a moment the table stood still too briefly to be read."""

    index: int
    t: float
    since: float  # when that stillness began: one glimpse per still moment
    image: np.ndarray


def watched_corners(layout: Layout) -> np.ndarray:
    """The corners (table cm) of where motion is judged: the table and its margin."""
    w, h, m = *layout.table_size, TABLE_MARGIN_CM
    return np.array([[-m, -m], [w + m, -m], [w + m, h + m], [-m, h + m]], np.float64)


def start_cards(layout: Layout, zones: dict[str, list]) -> dict[str, str]:
    """Zone -> the card the camera should see on top there now (``BACK`` face down), for the
    on-table piles of ``zones`` (the referee's state at the start of a game)."""
    out = {}
    for zone, cards in zones.items():
        z = layout.zones.get(zone)
        if z is None or z.offtable or not cards or (z.kind != "pile" and len(cards) > 1):
            continue
        out[zone] = "BACK" if z.face == "down" else str(cards[-1])
    return out


def camera_shift(before: list[SeenCard], now: list[SeenCard]) -> tuple[float, set[str]] | None:
    """When at least ``SHIFT_MIN_CARDS`` of the cards seen at both reads, and ``SHIFT_SHARE`` of
    them, moved over ``SHIFT_CM`` (a knocked camera moves them all; a player, one or two): the
    median distance (cm) and the cards that moved by about that much (those still lying where
    they lay, which a recalibration can trust); else None. Face-down cards and names seen twice
    say nothing of which card is which and are left out."""
    def unique(cards: list[SeenCard]) -> dict[str, SeenCard]:
        names = [c.name for c in cards]
        return {c.name: c for c in cards if c.name != BACK and names.count(c.name) == 1}

    old, new = unique(before), unique(now)
    both = sorted(set(old) & set(new))
    if len(both) < SHIFT_MIN_CARDS:
        return None
    moved = {n: np.subtract(new[n].at_cm, old[n].at_cm) for n in both}
    far = [n for n in both if np.hypot(*moved[n]) > SHIFT_CM]
    if len(far) < SHIFT_MIN_CARDS or len(far) < SHIFT_SHARE * len(both):
        return None
    median = np.median([moved[n] for n in far], axis=0)
    together = {n for n in far if np.hypot(*(moved[n] - median)) < SHIFT_CM}
    return float(np.hypot(*median)), together


class CameraReferee:
    """Glue between a frame stream and a referee. ``detect`` is any callable image ->
    Detections (the shipped detector, or recorded detections)."""

    def __init__(
        self,
        referee: Referee,
        layout: Layout,
        detect: Callable[[np.ndarray, int], Detections],
        calibration: Calibration | None = None,
        settings: Settings | None = None,
    ):
        self.referee, self.layout, self.detect = referee, layout, detect
        self.calibration = calibration
        self.settings = settings or Settings()
        self.settle = SettleDetector(quiet_s=self.settings.quiet_s or layout.quiet_s or QUIET_S)
        self.inference = EventInference(referee, layout)
        self.vote: Vote | None = None
        self.vote_from = 0.0  # when the vote's first frame was read
        self.table: TableState | None = None  # the last voted table state
        self.last_drift_check = -1e9
        self.last_card_try = -1e9
        self.detections_log: list[dict] = []  # per analysed frame, for --detections re-runs
        self.covered: set[str] | None = None  # zones under an arm during a partial read
        self.zone_masks: dict[str, np.ndarray] = {}  # zone -> its thumbnail pixels
        self.last_seen: list[SeenCard] = []  # the cards of the last table's last read
        self.markers_in_view = False  # at the last drift check
        # The camera shows the table as in a mirror (a webcam's selfie view): the mat's
        # markers were found only in the picture turned back, and every frame is turned back.
        self.mirrored = False
        # When the last table was read, and the one before it (video seconds).
        self.read_at: float | None = None
        self.read_before: float | None = None
        self.glimpses: list[Glimpse] = []  # since the last read, oldest first

    def start(self) -> list[Event]:
        return [Event("announcement", 0.0, 0, a.text, announcement=a) for a in self.referee.start()]

    def process(self, index: int, t: float, image: np.ndarray) -> list[Event]:
        events: list[Event] = []
        if self.calibration is None:
            events += self._calibrate(index, t, image)
            if self.calibration is None:
                return events  # keep looking for the mat or the start layout
        image = self.as_seen(image)
        if self.settle.region is None:
            self._watch_table(image)
        motion = self.settle.update(image, t)
        if not motion.moving and not motion.read_now and self.vote is None:
            self._keep_glimpse(index, t, image)
        partial = motion.partial and self.table is not None and motion.still is not None
        if motion.moving and not partial:
            self.vote = self.covered = None
            return events
        if self.vote is None and not (motion.read_now or partial):
            events += self._check_drift(index, t, image)
            return events
        if self.vote is None or partial != (self.covered is not None):
            # A knocked camera is noticed before the table is read through a stale calibration.
            events += self._check_drift(index, t, image, now=True)
            self.vote, self.covered = Vote(self.layout), (set() if partial else None)
            self.vote_from = t
        if partial and self.covered is not None:
            assert motion.still is not None
            self.covered |= self._covered(motion.still)
        det = self._detect(index, t, image)
        assert self.calibration is not None
        seen = place(det, self.calibration, self.layout)
        if not len(self.vote):  # a table about to be read: the camera first (markers hidden)
            moved = self._check_shift(index, t, image, det, seen)
            if moved:
                events += moved
                seen = place(det, self.calibration, self.layout)
        self.vote.add(seen)
        enough = len(self.vote) >= min(2, self.settings.reads) and t - self.vote_from >= READ_FOR_S
        if len(self.vote) < self.settings.reads and not enough:
            return events
        self.settle.mark_read(image)
        self.last_seen = seen
        table, data = self.vote.result(), {}
        if self.covered is not None and self.table is not None:
            table = table.kept_under(self.table, self.covered)  # an arm over the rest
            data["covered"] = sorted(self.covered)
        self.table, self.vote, self.covered = table, None, None
        self.read_before, self.read_at = self.read_at, t
        events.append(Event("read", t, index, "table read", data={**self.table.to_json(), **data}))
        return events + self._infer(index, t)

    def _calibrate(self, index: int, t: float, image: np.ndarray) -> list[Event]:
        """From the mat's markers; without them (about once a second), from the cards of the
        game's start layout, if the game has not begun."""
        try:
            self.calibration, turned = from_markers_either_way(image, self.layout, source=f"frame {index}")
            how = f"markers {self.calibration.markers}"
            if turned:  # then every frame is turned back (``as_seen``)
                self.mirrored = True
                how += " in the picture turned back (the camera mirrors it)"
        except CardrefError:
            pass
        if self.calibration is None:
            if not self.settings.calibrate_from_cards or t - self.last_card_try < CARD_TRY_EVERY_S:
                return []
            self.last_card_try = t
            zones = self.referee.game.cards_by_zone(self.referee.state) or {}
            start = {} if self.referee.history else start_cards(self.layout, zones)
            if not start:
                return []
            det = self._detect(index, t, image)
            try:
                self.calibration = from_start_cards(image, det, self.layout, start, source=f"frame {index}")
            except CardrefError:
                return []
            how = "the start layout's cards (" + ", ".join(start.values()) + ")"
        error = self.calibration.error_px
        text, data = f"calibrated from {how} (error {error:.2f} px)", {}
        if self.mirrored:
            data["mirrored"] = True
        hidden = self.calibration.out_of_view(self.layout)
        if hidden:  # the camera too close or aimed off the mat: those zones' cards go unread
            text += f"; zones out of view: {', '.join(hidden)}: move the camera so that the whole mat shows"
            data["out_of_view"] = hidden
        return [Event("calibrated", t, index, text, data)]

    def as_seen(self, image: np.ndarray) -> np.ndarray:
        """``image`` as the referee reads it: turned back if the camera mirrors the table."""
        return cv2.flip(image, 1) if self.mirrored else image

    def _detect(self, index: int, t: float, image: np.ndarray) -> Detections:
        """The cards surely there in this frame, logged for ``--detections`` re-runs."""
        det = self.detect(image, index)
        det = det[det.found >= self.settings.conf]
        self.detections_log.append(to_record(index, t, det, TOP_NAMES))
        return det

    def _infer(self, index: int, t: float) -> list[Event]:
        assert self.table is not None
        times = self._zone_times()
        self.table = self.inference.backs_as_faces(self.table, times, self.read_before)
        update = self.inference.update(self.table, times, self.read_at, self.read_before)
        events = self._report(update, index, t) + self._glance_back(update, index, t)
        self.glimpses.clear()
        return events

    def _keep_glimpse(self, index: int, t: float, image: np.ndarray) -> None:
        """Keep the frame of a still moment that may end before the table is read."""
        since = self.settle.quiet_since
        if since is None or t - since < GLIMPSE_S or (self.glimpses and self.glimpses[-1].since == since):
            return
        self.glimpses.append(Glimpse(index, t, since, image.copy()))
        del self.glimpses[:-MAX_GLIMPSES]

    def _glance_back(self, result: Result, index: int, t: float) -> list[Event]:
        """A turn the rules found drawn and put away unseen (a stand-in card, ``Explanation
        .blind``): the frames of the still moments since the last read are read, latest first,
        for the card where its draw put it in view; the stand-in takes the name read there."""
        recovered = result.recovered
        if recovered is None or not recovered.blind or not self.glimpses or self.calibration is None:
            return []
        hidden = set(self.inference.hidden_zones)
        ways = {
            str(o.card): o.dst
            for o in recovered.steps
            if str(o.card) in recovered.blind and o.src in hidden and o.dst and o.dst not in hidden
        }
        events: list[Event] = []
        for glimpse in reversed(self.glimpses):
            ways = {c: z for c, z in ways.items() if c in self.inference.stand_ins}
            if not ways:
                break
            try:
                det = self._detect(glimpse.index, glimpse.t, glimpse.image)
            except CardrefError:
                continue  # a re-run of recorded detections without that frame: not seen then
            # Logged before the read's own frame, which stays last: what the screen and the
            # annotated video draw on the frames from here.
            self.detections_log.insert(-1, self.detections_log.pop())
            seen = read_table(place(det, self.calibration, self.layout))
            for e in self._report(self.inference.glimpsed(seen, ways), index, t):
                if e.observation is not None and e.observation.type == "rename":
                    e.data["glimpse"] = glimpse.index  # the frame it was seen in
                events.append(e)
        return events

    def _zone_times(self) -> dict[str, float] | None:
        """When the camera last saw each table zone move (video seconds): where typed moves go
        among the camera's."""
        moved = self.settle.moved_at
        if moved is None or not self.zone_masks:
            return None
        masks = self.zone_masks.items()
        return {z: float(moved[m].max()) for z, m in masks if m.shape == moved.shape and m.any()}

    def _report(self, result: Result, index: int, t: float) -> list[Event]:
        """The events of one inference result: what was fed, with the names' probabilities."""
        assert self.table is not None
        events: list[Event] = []
        if result.resynced:
            events.append(Event("resync", t, index, "the table matches the game again"))
        if result.desync:
            events.append(Event("desync", t, index, result.desync))
        if result.question is not None:  # several legal ways here: the players pick one
            q = result.question
            data = {"choices": [e.describe() for e in q.choices], **({"card": q.card} if q.card else {})}
            events.append(Event("question", t, index, q.prompt(), data=data))
        events += self._recovered(result, index, t)
        for (obs, notes), seq in zip(result.fed, result.seq, strict=True):
            data = obs.to_json()
            if seq is not None:
                data["seq"] = seq  # the referee's index of it, which a later rename refers to
            card = str(obs.card) if obs.card is not None else None
            p = self.table.likelihood.get((obs.dst, card)) if obs.dst else None
            if p is not None:
                data["name_p"] = round(p, 3)  # how sure the camera was of the name
                if p < UNSURE_NAME:
                    others = self._likely_others(obs.dst, card, card)
                    if others:
                        data["others"] = others  # for a player to pick from
            if card in result.read_as:
                read = data["read_as"] = result.read_as[card]  # the rules chose another likely name
                # A guess among the names the rules accept: offered for the players to check too.
                others = self._likely_others(obs.dst, read, card)
                if others:
                    data["others"] = others
            if card in result.confirmed:
                data.pop("others", None)  # the players said which card it is: nothing to check
                data["named_by"] = "players"
            naming = self.inference.named.get(card) if "others" in data else None
            if naming is not None and seq is not None and naming.at < seq:
                data["since"] = naming.at  # where it came out under that name: what a rename fixes
            events.append(Event("observation", t, index, obs.short(), data=data, observation=obs))
            events += [
                Event("announcement", t, index, a.text, data=a.to_json(), announcement=a) for a in notes
            ]
        # The referee's reason for a desync (its state is kept; the table is read again when it
        # changes, once the players have put it right).
        events += [
            Event("announcement", t, index, a.text, data=a.to_json(), announcement=a) for a in result.why
        ]
        return events

    def _recovered(self, result: Result, index: int, t: float) -> list[Event]:
        """Steps the camera missed and the rules supplied: flagged for the players to check."""
        if result.recovered is None:
            return []
        blind = set(result.recovered.blind)
        said = [o.short() for o in result.recovered.missed if str(o.card) not in blind]
        said += [f"a card drawn and put away unseen (kept as {c} until {c} is seen)" for c in sorted(blind)]
        missed = ", ".join(said)
        text = f"the camera missed {missed}: fed as the rules allow; check it, and type a rename if wrong"
        data: dict = {"missed": [o.to_json() for o in result.recovered.missed]}
        if blind:
            data["blind"] = sorted(blind)
        return [Event("recovered", t, index, text, data=data)]

    def choose(self, key: int, index: int, t: float, confirm: bool = True) -> list[Event]:
        """A player's pick (``key``, from 1) among the explanations of an open question (moves
        missed, or which card a card read unsurely is); then what the table shows since."""
        events = self._report(self.inference.choose(key, confirm), index, t)
        if self.table is not None and self.referee.pending is None:
            events += self._infer(index, t)  # the table as read now, after those steps
        return events

    def _likely_others(self, zone: str | None, read: str, fed: str) -> list[str]:
        """The names to offer a player for a card read as ``read`` and fed as ``fed`` (the
        rules may have chosen another): the other likely names of that read, then its fainter
        candidates."""
        if zone is None:
            return []
        faint = [n for n, _ in self.table.candidates.get((zone, read), ())]
        names = dict.fromkeys([*self.table.alternatives.get((zone, read), ()), *faint])
        return [n for n in names if n not in (fed, read)][:OFFERED_NAMES]

    def answer(self, obs: Observation, index: int, t: float) -> list[Event]:
        """A typed or keyed answer to an ASK (or end_turn); then what waited for it.

        A typed move (a draw into a hand) waits for the camera's next look at the table, read
        at once however little it changed (``EventInference.held``): the camera may not have
        fed the moves made before it, such as a discard that ended the other player's turn,
        read late because it changed few pixels. Told only when the referee refuses it now."""
        if self.inference.fed_already(obs):
            return [Event("seen", t, index, f"{obs.short()}: the camera saw it already", data=obs.to_json())]
        held = len(self.inference.held)
        notes = self.inference.answer(obs, behind=self.calibration is not None, t=t)
        if len(self.inference.held) > held:
            self.settle.force_read()
            why = self.inference.held[-1].why
            if why == BEHIND:
                return []
            text = f"{obs.short()}: waits for the camera to see the moves before it ({why})"
            return [Event("waiting", t, index, text, data=obs.to_json())]
        events = [Event("observation", t, index, obs.short(), data=obs.to_json(), observation=obs)]
        events += [Event("announcement", t, index, a.text, data=a.to_json(), announcement=a) for a in notes]
        if self.table is not None and self.referee.pending is None:
            events += self._infer(index, t)
        return events

    def confirm(self, card: str) -> None:
        """A player's "yes, that card" at a name check: the camera no longer doubts it."""
        self.inference.confirm(card)

    def put_right(self, rename: Observation, index: int, t: float) -> list[Event]:
        """A player's name for a card the camera named (a ``rename``). When the referee refuses
        it because the game has already shown that name elsewhere, the camera took the two
        cards for each other (a king read as a jack, then the jack read as a king): the two
        names are swapped over the whole game instead."""
        events = self.answer(rename, index, t)
        said = events[1].announcement if len(events) > 1 else None  # the referee's word on it
        refused = said is not None and said.kind == "REJECT"
        name = Card.parse(str(rename.data["as"]))
        if refused and any(o.card == name for o in self.referee.fed):
            swap = Observation("rename", rename.card, data={"as": str(name), "at": 0, "swap": True})
            events += self.answer(swap, index, t)
        return events

    def _watch_table(self, image: np.ndarray) -> None:
        """Judge motion over the table (the layout's rectangle and a margin), not the frame."""
        if self.calibration is None:
            return
        w, h = self.layout.table_size
        corners = watched_corners(self.layout)
        size = (image.shape[1], image.shape[0])
        cw, ch = self.layout.card_size
        card = self.calibration.to_image(np.array([[w / 2, h / 2], [w / 2 + cw, h / 2],
                                                   [w / 2 + cw, h / 2 + ch], [w / 2, h / 2 + ch]]))
        card_px = float(cv2.contourArea(card.astype(np.float32)))
        self.settle.set_region(self.calibration.to_image(corners), size, card_px)
        # Each zone grown by half a card: a card at its edge is covered when an arm is near.
        self.zone_masks = {}
        for zone in self.layout.table_zones:
            x0, y0, x1, y1 = zone.rect
            rect = np.array([[x0 - cw / 2, y0 - ch / 2], [x1 + cw / 2, y0 - ch / 2],
                             [x1 + cw / 2, y1 + ch / 2], [x0 - cw / 2, y1 + ch / 2]], np.float64)
            self.zone_masks[zone.id] = thumbnail_mask(self.calibration.to_image(rect), size)

    def _covered(self, still: np.ndarray) -> set[str]:
        """The zones something moved over lately (not still in the thumbnail)."""
        return {z for z, m in self.zone_masks.items() if m.shape == still.shape and (m & ~still).any()}

    def _check_shift(
        self, index: int, t: float, image: np.ndarray, det: Detections, seen: list[SeenCard]
    ) -> list[Event]:
        """Many cards off their places at once, together (:func:`camera_shift`), with no
        markers in view to say otherwise: the camera was knocked. Recalibrated before the
        table is read, from the cards the table shows (each zone's top card, of those that
        moved together: the camera's picture of the game so far)."""
        if self.markers_in_view:
            return []  # just checked, where the camera was: the cards were moved by hand
        found = camera_shift(self.last_seen, seen)
        if found is None:
            return []
        shift, together = found
        tops = start_cards(self.layout, self.inference.physical)
        tops = {z: n for z, n in tops.items() if n in together}
        try:
            self.calibration = from_start_cards(image, det, self.layout, tops, source=f"frame {index}")
        except CardrefError:
            return []  # too few of them to fit: the markers, once seen again, will tell
        self._watch_table(image)
        self.last_seen = []
        return [
            Event(
                "drift",
                t,
                index,
                f"many cards off their places at once ({shift:.1f} cm): the camera moved, "
                "recalibrated from the cards on the table",
                data={"shift_cm": round(shift, 2)},
            )
        ]

    def _check_drift(self, index: int, t: float, image: np.ndarray, now: bool = False) -> list[Event]:
        if self.calibration is None or not self.layout.markers:
            return []
        if not now and t - self.last_drift_check < DRIFT_EVERY_S:
            return []
        self.last_drift_check = t
        d = drift_px(self.calibration, image, self.layout)
        self.markers_in_view = d is not None
        if d is None or d < DRIFT_PX:
            return []
        old = self.calibration
        try:
            self.calibration = from_markers(image, self.layout, source=f"frame {index}")
        except CardrefError:
            self.calibration = old
        self._watch_table(image)
        return [
            Event(
                "drift",
                t,
                index,
                f"the camera moved ({d:.0f} px): recalibrated from the markers",
                data={"drift_px": round(d, 1)},
            )
        ]

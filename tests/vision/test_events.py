"""Event inference on simulated tables: seeded Royal Family games are played on a physical
table model, the camera sees only what lies face up (pile tops, spreads), and the inferred
observations must be the true ones, in order, leaving the referee in the same state."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace

import pytest

from referee.cards import Card
from referee.core import Referee
from referee.games import load_game, simulator
from referee.observations import Observation, parse_short
from vision.events import EventInference, remove_last, visible
from vision.layout import load_layout
from vision.recovery import refused, trial_copy
from vision.table_state import TableState

LAYOUT = load_layout("royal_family")


def camera_view(physical, drop: str | None = None, backs: bool = False) -> TableState:
    """What the camera reads of ``physical``: the face-up cards (but ``drop``), and with
    ``backs`` a back for each face-down pile on the table that holds cards."""
    state = TableState()
    for (zone, name), k in sorted(visible(LAYOUT, physical).items()):
        for _ in range(k):
            if name != drop:
                state.cards.setdefault(zone, []).append(name)
    if backs:
        state.backs = {z.id: 1 for z in LAYOUT.table_zones if z.face == "down" and physical.get(z.id)}
    return state


def misread(view: TableState, moved: list[str], physical) -> int:
    """Name each card that just moved as a card lying face down in the discard pile (a name
    the rules cannot accept there), with its true name as the detector's second choice.
    Returns how many were misread."""
    decoys = [str(c) for c in physical["discard_pile"]]
    count = 0
    for zone, names in view.cards.items():
        for i, name in enumerate(names):
            shown = view.all_face_up()
            decoy = next((d for d in decoys if not shown[d]), None)
            if name in moved and decoy is not None:
                names[i] = decoy
                view.alternatives[(zone, decoy)] = ("9Z", name)  # a junk name first, then the truth
                count += 1
    return count


@dataclass
class Misnaming:
    """Drawn cards first seen by a wrong name the rules accept: one of ``decoys`` (cards that
    stay in the draw pile all game), read unsurely; read right from the next settle on.
    Only cards in ``shown`` are misnamed: they stay in view after their next move, so the
    camera gets to read them right."""

    shown: set[str]
    decoys: list[str]
    count: int = 0
    later: float | None = None  # how sure the later reads of a misnamed card are (None: sure)
    again: bool = False  # the later reads name it wrongly too, by the same name
    # The true name is not among the likely ones, only a faint candidate behind a number card
    # of its suit (a court card of a design the detector cannot name).
    faint: bool = False
    # The first drawn card that lands on a pile of two or more is read as the card hidden
    # under the old top, its true name a faint candidate, as long as it lies there.
    below: bool = False
    misnamed: dict[str, str] = field(default_factory=dict)  # card -> the name first read


def read_as_covered(view: TableState, drawn: list[str], m: Misnaming, physical) -> None:
    for zone, names in view.cards.items():
        cards = physical[zone]
        if len(cards) < 3:
            continue
        true, covered = str(cards[-1]), str(cards[-3])
        first = true in drawn and true in m.shown and not m.count
        if first or m.misnamed.get(true) == covered:  # as long as it lies there
            names[names.index(true)] = covered
            view.likelihood[(zone, covered)] = 0.1
            view.candidates[(zone, covered)] = ((true, 0.05),)
            m.count += first
            m.misnamed[true] = covered


def misname_drawn(view: TableState, drawn: list[str], m: Misnaming) -> None:
    def likely(zone: str, decoy: str, name: str) -> None:
        view.likelihood[(zone, decoy)] = 0.3
        if m.faint:
            view.candidates[(zone, decoy)] = ((f"2{Card.parse(name).suit}", 0.05), (name, 0.02))
        else:
            view.alternatives[(zone, decoy)] = (name,)  # the true name its second choice

    for zone, names in view.cards.items():
        for i, name in enumerate(names):
            if name in drawn and name in m.shown and m.decoys:
                m.shown.discard(name)
                names[i] = decoy = m.decoys.pop()
                likely(zone, decoy, name)
                m.count += 1
                m.misnamed[name] = decoy
            elif name in m.misnamed and m.again:
                names[i] = decoy = m.misnamed[name]
                likely(zone, decoy, name)
            elif name in m.misnamed and m.later is not None:
                view.likelihood[(zone, name)] = m.later  # read right, but no surer than at first


def misnaming(seed: int, max_obs: int) -> Misnaming:
    """From a first play of the game: the cards that stay in view after their next move once
    drawn, and the cards never drawn."""
    true_moves, *_ = play(seed, max_obs=max_obs)
    hidden = {z.id for z in LAYOUT.zones.values() if z.offtable or z.face == "down"}
    shown, drawn = set(), set()
    for i, obs in enumerate(true_moves):
        card = str(obs.card)
        if obs.src == "draw_pile" and card not in drawn and card != "JK":  # two alike: not misnamed
            drawn.add(card)
            after = next((o for o in true_moves[i + 1 :] if str(o.card) == card), None)
            if after is None or after.dst not in hidden:
                shown.add(card)
    deck = {str(c) for c in Referee(load_game("royal_family")).state.zones["draw_pile"]}
    return Misnaming(shown, sorted(deck - drawn - {"JK"}))


def play(
    seed: int,
    per_turn: bool = False,
    max_obs: int = 400,
    misreads: list[int] | None = None,
    misnamed: Misnaming | None = None,
    always_misread: tuple[str, str] | None = None,
    skip_staging: bool = False,
    settle_every: int = 1,
    recovered: list | None = None,
    hide_under_hits: bool = False,
    ask_readings: bool = False,
    asked: list | None = None,
    unseen_discards: bool = False,
    skip_via: list | None = None,
    blind_discards: list | None = None,
    unread_flops: bool = False,
):
    """(true move observations a camera can see, inferred ones, truth referee, camera referee).
    With ``misreads`` (a list to count into), cards that moved are first seen by wrong names;
    with ``misnamed``, drawn cards are first seen by wrong names the rules accept; with
    ``always_misread`` (card, name), that card is read surely by that name all game, and a
    player renames it once it has been fed by that name. With ``skip_staging``, the camera
    misses every drawn card's time in staging when the card then goes somewhere in view; with
    ``settle_every`` k, the table settles only after every k-th move (reads lost); the
    explanations the camera recovered go into ``recovered``, and where it asks, the players
    pick the true one. With ``hide_under_hits``, a fort's card is unseen while a hit lies
    across it (as the detector misses it there). With ``ask_readings``, the camera asks where a
    card went that legal moves put in several places (each question and the players' pick go
    into ``asked``). With
    ``unseen_discards``, the table does not settle after a shown card is discarded face down
    (it settles with the next move). With ``skip_via`` (a list to count into), the camera misses
    every card's time in a zone the rules then ask it moved on from (an attack that does no
    damage on its way to the discard pile, a joker flopped on its way to its spot), but for a
    drawn card's (staging straight to the discard pile is a discard). With ``blind_discards`` (a
    list to collect them into), a card drawn and discarded face down is never seen at all (the
    table settles with the next move; a drawn card that goes on in view is seen in staging), and
    each read is told which zones moved since the last one; with ``unread_flops`` too, a round
    ended by such a turn is read only once its next flop is whole (a game played fast: the
    last card put away while the next flop is dealt)."""
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    sim = simulator(truth.game, seed)
    inference = EventInference(camera, LAYOUT)
    inference.ask_readings = ask_readings
    physical = {z: list(cs) for z, cs in truth.state.zones.items()}
    true_moves, inferred = [], []
    unsettled = 0

    moved = []  # cards moved since the last settle
    since = []  # the true moves since the last settle
    held = False  # a drawn card waits in staging unseen
    blind_end = False  # a round ended by a turn the camera saw nothing of, its next flop unread
    passing: str | None = None  # a card the camera missed on its way, moved on next
    drawn: list[str] = []  # cards drawn into view since the last settle
    clock, read_at, touched = 0.0, 0.0, {}  # moves made, when the last read was, zone -> last move

    def settle():
        nonlocal unsettled, read_at, blind_end
        blind_end = False
        view = camera_view(physical, backs=blind_discards is not None)
        if hide_under_hits:
            for zone in [z for z in view.cards if z.startswith("fort_") and not z.startswith("fort_hits")]:
                if view.cards.get(zone.replace("fort_", "fort_hits_")):
                    del view.cards[zone]
        if misreads is not None:
            misreads.append(misread(view, [str(c) for c in moved], physical))
        if misnamed is not None and misnamed.below:
            read_as_covered(view, drawn, misnamed, physical)
        elif misnamed is not None:
            misname_drawn(view, drawn, misnamed)
        if always_misread is not None:
            card, name = always_misread
            for zone, names in view.cards.items():
                if card in names:
                    names[names.index(card)] = name
                    view.likelihood[(zone, name)] = 0.9  # too sure to be second-guessed
        moved.clear()
        drawn.clear()
        if blind_discards is None:
            result = inference.update(view)
        else:
            result = inference.update(view, dict(touched), clock, read_at)
            read_at = clock
        assert result.desync is None, result.desync
        if result.question is not None:  # the players pick what happened
            truth_said = [o.short() for o in since]
            choices = enumerate(result.question.choices, 1)
            keys = [i for i, e in choices if [o.short() for o in e.steps] == truth_said]
            assert keys, (result.question.prompt(), truth_said)
            if asked is not None:
                asked.append((result.question, keys[0]))
            result = inference.choose(keys[0])
        if result.recovered is not None and recovered is not None:
            recovered.append(result.recovered)
        since.clear()
        inferred.extend(o for o, notes in result.fed if not any(a.kind == "REJECT" for a in notes))
        unsettled = 0
        if always_misread is not None and any(str(o.card) == always_misread[1] for o, _ in result.fed):
            rename = parse_short(f"rename card={always_misread[1]} as={always_misread[0]}")
            assert inference.answer(rename)[0].kind == "STATE"  # what a player keys at the [CHECK]
            right, wrong = Card.parse(always_misread[0]), always_misread[1]  # the referee re-read it
            inferred[:] = [replace(o, card=right) if str(o.card) == wrong else o for o in inferred]

    while not truth.game.is_terminal(truth.state) and len(true_moves) < max_obs:
        for obs in sim.next_observations(truth.state):
            notes = truth.feed(obs)
            assert not any(a.kind == "REJECT" for a in notes)
            if obs.type == "move":
                in_view = LAYOUT.zones[obs.dst].face != "down" and not LAYOUT.zones[obs.dst].offtable
                missed = skip_staging and obs.src == "staging" and in_view
                missed |= str(obs.card) == passing
                missed |= blind_discards is not None and obs.src == "staging" and obs.dst == "discard_pile"
                passing = None
                if obs.card in moved and not missed:
                    settle()  # one card moved twice (by two players): the table settled between
                before = visible(LAYOUT, physical)
                cards = physical[obs.src]
                if obs.card not in cards and obs.src == "draw_pile":  # the discard pile turned over
                    cards += physical["discard_pile"]
                    physical["discard_pile"] = []
                remove_last(cards, obs.card)
                physical[obs.dst].append(obs.card)
                if before[(obs.src, str(obs.card))] or visible(LAYOUT, physical)[(obs.dst, str(obs.card))]:
                    true_moves.append(obs)  # a card slid out from under a pile into a face-down one is unseen
                    since.append(obs)
                unsettled += 1
                clock += 1.0
                touched.update({obs.src: clock, obs.dst: clock})
                moved.append(obs.card)
                if LAYOUT.zones[obs.src].face == "down":
                    drawn.append(str(obs.card))
                # The protocol: a card drawn face-down is shown until the table settles.
                revealed = LAYOUT.zones[obs.src].face == "down"
                held = skip_staging and obs.dst == "staging"
                held |= unseen_discards and obs.src == "staging" and obs.dst == "discard_pile"
                if blind_discards is not None and (obs.dst == "staging" or missed):
                    held = True  # read with the next move: seen in staging only if it goes on in view
                    if missed:
                        blind_discards.append(obs)
                on_from = truth.game.asked_movements(truth.state) if skip_via is not None else []
                if "staging" not in (obs.src, obs.dst) and any(
                        m.card == str(obs.card) and m.src == obs.dst for m in on_from):
                    held, passing = True, str(obs.card)
                    skip_via.append(obs)
                blind_end |= unread_flops and missed and truth.state.phase == "flop"
                held |= blind_end and truth.state.phase == "flop"
                if held:
                    continue  # the settle in staging is missed (it comes with the next move)
                if (revealed or not per_turn) and unsettled >= settle_every:
                    settle()
            else:  # an answer or end_turn: typed or keyed by a player, never seen
                if unsettled:
                    settle()
                inference.answer(obs)
                if camera.pending is None:
                    settle()  # what waited for the answer
        if unsettled and not held:
            settle()  # per turn: the clean-ups of the last move and the next move, then a settle
    if unsettled:
        settle()  # a card drawn last, still in staging
    return true_moves, inferred, truth, camera


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_one_move_per_settle_recovers_every_observation(seed):
    true_moves, inferred, truth, camera = play(seed)
    assert len(true_moves) > 40
    assert [o.to_json() for o in inferred] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [5, 6])
def test_clean_ups_and_a_move_in_one_settle_are_ordered_by_the_rules(seed):
    true_moves, inferred, truth, camera = play(seed, per_turn=True)
    assert camera.snapshot() == truth.snapshot()
    as_text = sorted(map(str, (o.to_json() for o in inferred)))
    assert as_text == sorted(map(str, (o.to_json() for o in true_moves)))


@pytest.mark.parametrize("seed", [7, 8])
def test_a_misread_card_takes_the_likely_name_the_rules_accept(seed):
    counted: list[int] = []
    true_moves, inferred, truth, camera = play(seed, misreads=counted)
    assert sum(counted) > 10
    assert [o.to_json() for o in inferred] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize(("seed", "later"), [(9, None), (10, None), (1, 0.2), (2, 0.2), (3, 0.2)])
def test_a_drawn_card_misnamed_legally_is_renamed_when_read_right(seed, later):
    """Drawn cards first named wrongly (0.3), their true name second, then read right: surely
    (``later`` None), or unsurer (0.2) than the wrong name and with no other likely name, when
    the rename is the only way the game explains the table, so it is made rather than stall.
    Unsure later reads, measured 2026-11-25 on seeds 1 to 12: 9 games followed whole (0 before
    that last resort: each stalled at a desync); in the other three (4, 10, 11) the rules also
    accept such an unsure read as a card freshly drawn, and the camera follows that."""
    m = misnaming(seed, max_obs=60)
    m.later = later
    true_moves, inferred, truth, camera = play(seed, max_obs=60, misnamed=m)
    renames = [o for o in inferred if o.type == "rename"]
    assert m.count > 5 and len(renames) == m.count
    # The referee re-read the game with each right name: what it was fed is the truth.
    fed = [o for o, ok in zip(camera.fed, camera.accepted, strict=True) if ok and o.type == "move"]
    assert [o.to_json() for o in fed] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("faint", [False, True])
@pytest.mark.parametrize(("seed", "card"), [(4, "KH"), (7, "JS"), (14, "JS"), (15, "KS")])
def test_a_card_misread_again_by_the_same_name_where_the_rules_refuse_it_is_renamed(seed, card, faint):
    """A court card drawn to staging is read unsurely as a card of another suit, then read by
    the same wrong name again on the residents of its suit, where only its true name may go:
    the first reading is renamed to the true name and the move is fed, rather than a desync.
    Its true name is either the second choice of both reads (seen on a rendered anglo_poker
    game, QS read as QC twice), or, ``faint``, only a faint candidate behind a number card of
    its suit (guyenne court cards, which have no index): then the rules choose among the
    card's faint names and the cards still unseen."""
    true_moves, *_ = play(seed, max_obs=60)
    drawn = {str(o.card) for o in true_moves if o.src == "draw_pile"}
    deck = {str(c) for c in Referee(load_game("royal_family")).state.zones["draw_pile"]}
    suit = Card.parse(card).suit
    decoy = sorted(c for c in deck - drawn
                   if not (d := Card.parse(c)).is_face and not d.is_joker and d.suit != suit)[0]
    m = Misnaming({card}, [decoy], again=True, faint=faint)
    true_moves, inferred, truth, camera = play(seed, max_obs=60, misnamed=m)
    renames = [o for o in inferred if o.type == "rename"]
    assert m.count == 1 and [(str(o.card), o.data["as"]) for o in renames] == [(decoy, card)]
    fed = [o for o, ok in zip(camera.fed, camera.accepted, strict=True) if ok and o.type == "move"]
    assert [o.to_json() for o in fed] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_drawn_onto_a_pile_and_read_as_a_card_under_it_takes_a_name_still_unseen(seed):
    """A card drawn onto a flop pile is read, unsurely, as a card hidden lower in that pile (a
    guyenne queen read as the four under the eight it covers) for as long as it lies there,
    its true name only a faint candidate. The old top cannot have gone anywhere, so the four
    cannot have come out: the rules take the read for a card still unseen, its true name
    first, and follow the card by the name the camera reads it by."""
    m = misnaming(seed, max_obs=60)
    m.below = True
    true_moves, inferred, truth, camera = play(seed, max_obs=60, misnamed=m)
    assert m.count == 1
    assert [o.to_json() for o in inferred] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


def test_a_surely_misread_card_is_put_right_by_a_typed_rename():
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    physical = {z: list(cs) for z, cs in truth.state.zones.items()}
    flop = next(o for o in simulator(truth.game, 11).next_observations(truth.state) if o.type == "move")
    truth.feed(flop)
    physical[flop.src].remove(flop.card)
    physical[flop.dst].append(flop.card)
    right = camera_view(physical)
    wrong = camera_view(physical)
    decoy = next(str(c) for c in physical["draw_pile"] if str(c) != "JK")
    wrong.cards[flop.dst] = [decoy]
    wrong.likelihood[(flop.dst, decoy)] = 0.9  # too sure to be second-guessed
    assert [o.card for o, _ in inference.update(wrong).fed] == [Card.parse(decoy)]
    # Read right later: no move explains it, the camera waits at a desync ...
    assert inference.update(right).desync is not None
    # ... until a player types the rename: the table then matches the game.
    notes = inference.answer(parse_short(f"rename card={decoy} as={flop.card}"))
    assert notes[0].kind == "STATE"
    again = inference.update(right)
    assert again.resynced and again.fed == []
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_card_always_misread_is_followed_by_the_name_a_player_gave_it(seed):
    """The classifier reads one card surely as a card that never comes out (a misread that no
    later read corrects). A player puts it right once ([CHECK] key or typed rename); from then
    on the camera reads it by that name wherever it moves: no desync, the true game."""
    true_moves, *_ = play(seed, max_obs=60)
    drawn = [o.card for o in true_moves if o.src == "draw_pile" and str(o.card) != "JK"]
    card = next(c for c in drawn if sum(o.card == c for o in true_moves) >= 3)  # moves twice more
    deck = {str(c) for c in Referee(load_game("royal_family")).state.zones["draw_pile"]}
    never = sorted(deck - {str(o.card) for o in true_moves} - {"JK"})[0]
    true_moves, inferred, truth, camera = play(seed, max_obs=60, always_misread=(str(card), never))
    assert [o.to_json() for o in inferred] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


def test_a_card_whose_name_flips_between_reads_is_the_same_card():
    """A new round flops a card onto a pile whose top the camera reads. Just before, that top
    card is read unsurely by another name it was confused with (a legal new flop): no move is
    fed, it is the same card. Read surely by that name, the camera feeds it as the flop."""
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    sim = simulator(truth.game, 1)
    inference = EventInference(camera, LAYOUT)
    physical = {z: list(cs) for z, cs in truth.state.zones.items()}
    for _ in range(200):
        batch = sim.next_observations(truth.state)
        nxt = batch[0]
        top = physical.get(nxt.dst or "", [])
        if nxt.type == "move" and nxt.src == "draw_pile" and nxt.dst.startswith("flop") and top:
            break
        for obs in batch:
            truth.feed(obs)
            if obs.type == "move":
                cards = physical[obs.src]
                if obs.card not in cards:  # the discard pile turned over as the draw pile
                    cards += physical.pop("discard_pile")
                    physical["discard_pile"] = []
                remove_last(cards, obs.card)
                physical[obs.dst].append(obs.card)
                assert inference.update(camera_view(physical)).desync is None
            else:
                inference.answer(obs)
    else:
        pytest.fail("no flop onto a pile in 200 observations")
    card, new = str(top[-1]), str(nxt.card)
    flipped = camera_view(physical)
    flipped.cards[nxt.dst] = [new]
    flipped.likelihood[(nxt.dst, new)] = 0.4
    flipped.alternatives[(nxt.dst, new)] = (card,)
    result = inference.update(flipped)
    assert result.fed == [] and result.desync is None
    assert camera.snapshot() == truth.snapshot()
    truth.feed(nxt)
    physical[nxt.dst].append(nxt.card)
    assert [o.to_json() for o, _ in inference.update(camera_view(physical)).fed] == [nxt.to_json()]


def simulated_observations(seed: int, count: int) -> list:
    """The first ``count`` observations of a simulated Royal Family game."""
    first = Referee(load_game("royal_family"))
    sim = simulator(first.game, seed)
    out = []
    while len(out) < count and not first.game.is_terminal(first.state):
        for obs in sim.next_observations(first.state):
            first.feed(obs)
            out.append(obs)
    return out


def played_views(observations: list, truth: Referee, inference: EventInference, backs: bool = False):
    """Play ``observations`` on ``truth``; yield (index, observation, what a perfect camera
    sees after it, with ``backs`` those of face-down piles) for each move (the answers are
    typed to ``inference`` on the way)."""
    physical = {z: list(cs) for z, cs in truth.state.zones.items()}
    for k, obs in enumerate(observations):
        truth.feed(obs)
        if obs.type != "move":
            inference.answer(obs)
            continue
        cards = physical[obs.src]
        if obs.card not in cards:  # the discard pile turned over as the draw pile
            cards += physical["discard_pile"]
            physical["discard_pile"] = []
        remove_last(cards, obs.card)
        physical[obs.dst].append(obs.card)
        yield k, obs, camera_view(physical, backs=backs)


def drawn_then_laid_in_view(true_obs: list):
    """(i, j) for each card drawn into staging (observation i) and laid from there where the
    camera sees it (observation j)."""
    seen_zones = {z.id for z in LAYOUT.zones.values() if not z.offtable and z.face == "up"}
    for i, obs in enumerate(true_obs):
        if obs.type == "move" and obs.src == "draw_pile" and obs.dst == "staging" and str(obs.card) != "JK":
            j = next(k for k in range(i + 1, len(true_obs)) if true_obs[k].card == obs.card)
            if true_obs[j].src == "staging" and true_obs[j].dst in seen_zones:
                yield i, j


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_the_players_renamed_is_followed_when_read_by_a_name_it_was_confused_with(seed):
    """A drawn card is read unsurely by a wrong name (a card that never comes out), with a
    second wrong name close behind; a player renames it at the [CHECK]. When it is next moved
    and read unsurely by the second name, it is that card moved (one move), not a new card
    drawn onto the pile with the renamed one slid under it."""
    true_obs = simulated_observations(seed, 120)
    pick = next(drawn_then_laid_in_view(true_obs), None)
    assert pick is not None, "no card drawn to staging and laid where the camera sees it"
    i, j = pick
    card = str(true_obs[i].card)
    deck = {str(c) for c in Referee(load_game("royal_family")).state.zones["draw_pile"]}
    read, confused = sorted(deck - {str(o.card) for o in true_obs[: j + 1]} - {"JK"})[:2]

    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    for k, obs, view in played_views(true_obs[: j + 1], truth, inference):
        zone = next((z for z, names in view.cards.items() if card in names), None)
        if i <= k and zone is not None:  # the camera never reads it right
            name = read if k < j else confused
            view.cards[zone][view.cards[zone].index(card)] = name
            view.likelihood[(zone, name)] = 0.3
            view.alternatives[(zone, name)] = (confused if name == read else read,)
        result = inference.update(view)
        assert result.desync is None, (obs.short(), result.desync)
        if k == i:
            assert [o.short() for o, _ in result.fed] == [f"{read} draw_pile -> staging"]
            notes = inference.answer(parse_short(f"rename card={read} as={card}"))  # the [CHECK]
            assert notes[0].kind == "STATE"
        if k == j:
            assert [o.to_json() for o, _ in result.fed] == [obs.to_json()]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_draw_read_as_a_discarded_card_is_not_taken_for_a_renamed_card_read_where_it_lies(seed):
    """A drawn card is read unsurely by a wrong name and a player renames it; it stays read by
    that name where it lies. A later draw is read at chance by the name of a card the camera saw
    go face down into the discard pile, its true name a faint candidate. The renamed card is
    still where it lies (read by the camera's name of it): the draw is not that card moved and
    then dropped as nobody's, but the likeliest card still unseen, its true name (a whole Dukes
    Up! game stayed in desync after a KD laid as a duke, read QD, was taken for a KC lying on a
    discard pile read JC)."""
    true_obs = simulated_observations(seed, 200)
    pick = None
    for i, j in drawn_then_laid_in_view(true_obs):
        later = [k for k in range(j + 1, len(true_obs)) if true_obs[k].card == true_obs[i].card]
        draws = [  # while it lies there, after a card went face down into the discard pile
            k for k in range(j + 1, later[0] if later else len(true_obs))
            if true_obs[k].type == "move" and true_obs[k].src == "draw_pile"
            and true_obs[k].dst == "staging" and str(true_obs[k].card) != "JK"
            and any(o.dst == "discard_pile" for o in true_obs[:k])
        ]
        if draws:
            pick = i, j, draws[0]
            break
    assert pick is not None, "no card laid in view that stays there while another is drawn"
    i, j, d = pick
    card, drawn = str(true_obs[i].card), str(true_obs[d].card)
    discarded = next(str(o.card) for o in reversed(true_obs[:d]) if o.dst == "discard_pile")
    deck = {str(c) for c in Referee(load_game("royal_family")).state.zones["draw_pile"]}
    read = sorted(deck - {str(o.card) for o in true_obs[: d + 1]} - {"JK"})[0]

    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    for k, _, view in played_views(true_obs[: d + 1], truth, inference):
        zone = next((z for z, names in view.cards.items() if card in names), None)
        if i <= k and zone is not None:  # the camera never reads it right
            view.cards[zone][view.cards[zone].index(card)] = read
            view.likelihood[(zone, read)] = 0.3
        if k == d:
            view.cards["staging"][view.cards["staging"].index(drawn)] = discarded
            view.likelihood[("staging", discarded)] = 0.09
            view.candidates[("staging", discarded)] = ((drawn, 0.04),)
        result = inference.update(view)
        if k == i:
            notes = inference.answer(parse_short(f"rename card={read} as={card}"))  # the [CHECK]
            assert notes[0].kind == "STATE"
    assert [o.short() for o, _ in result.fed] == [true_obs[d].short()]
    assert camera.snapshot() == truth.snapshot()


def test_a_players_name_already_shown_elsewhere_swaps_the_two_cards():
    """The camera fed two drawn cards by each other's names (a king read as the jack, then the
    jack, whose name was taken, named the king by the rules). The players name the second one
    right at its [CHECK]: the plain rename is refused (that name is out already), so the camera
    swaps the two over the whole game, which is then the true one."""
    from vision.pipeline import CameraReferee

    truth = Referee(load_game("royal_family"))
    sim = simulator(truth.game, 2)
    while len(truth.fed) < 40:
        for obs in sim.next_observations(truth.state):
            truth.feed(obs)
    drawn = [o.card for o in truth.fed if o.type == "move" and o.src == "draw_pile" and o.card != Card("JK")]
    for a, b in zip(drawn, drawn[1:], strict=False):
        names = {a: b, b: a}
        camera = Referee(truth.game)
        said = [camera.feed(replace(o, card=names.get(o.card, o.card))) for o in truth.fed]
        if not any(n.kind == "REJECT" for notes in said for n in notes):
            break
    else:
        pytest.fail("no two drawn cards the rules accept by each other's names")
    at = next(i for i, o in enumerate(camera.fed) if o.card == a)  # fed as a: really b
    referee = CameraReferee(camera, LAYOUT, lambda image, index: None)
    events = referee.put_right(parse_short(f"rename card={a} as={b} at={at}"), 0, 0.0)
    kinds = [(e.kind, e.announcement.kind if e.announcement else None) for e in events]
    assert kinds == [("observation", None), ("announcement", "REJECT"), ("observation", None),
                     ("announcement", "STATE")]
    assert events[2].observation.data == {"as": str(b), "at": 0, "swap": True}
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_name_a_card_was_misread_by_unsurely_is_the_real_card_when_read_surely(seed):
    """A drawn card is read unsurely as a card still in the draw pile, and a player renames it.
    When that other card is drawn later and read surely, it is itself, not the renamed card
    (the players' name stands for the unsure misreads only)."""
    true_obs = simulated_observations(seed, 120)
    seen_zones = {z.id for z in LAYOUT.zones.values() if not z.offtable and z.face == "up"}
    drawn = [(k, o) for k, o in enumerate(true_obs)
             if o.type == "move" and o.src == "draw_pile" and o.dst in seen_zones and str(o.card) != "JK"]
    i, first_draw = next((k, o) for k, o in drawn if o.dst == "staging")
    j, later = next((k, o) for k, o in drawn if k > i + 3 and o.card.rank != first_draw.card.rank)
    card, read = str(first_draw.card), str(later.card)

    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    for k, obs, view in played_views(true_obs[: j + 1], truth, inference):
        if k == i:  # read unsurely as the card drawn later
            view.cards["staging"] = [read]
            view.likelihood[("staging", read)] = 0.3
            view.alternatives[("staging", read)] = (card,)
        result = inference.update(view)
        assert result.desync is None, (obs.short(), result.desync)
        if k == i:
            assert [o.short() for o, _ in result.fed] == [f"{read} draw_pile -> staging"]
            assert inference.answer(parse_short(f"rename card={read} as={card}"))[0].kind == "STATE"
        if k == j:
            assert [o.to_json() for o, _ in result.fed] == [obs.to_json()]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_two_cards_misread_by_one_name_and_renamed_are_each_followed_where_it_lies(seed):
    """The first two flops are both read unsurely as the same card still in the draw pile (a
    design whose court cards the detector cannot tell apart), and the players rename each at its
    [CHECK]. The first goes on being read by that wrong name where it lies; when the second is
    covered by the next card on its pile, the wrong name is still the first card, not the
    second moved onto the first's pile (held-out seed 147 under blur: JC and JS both read QC,
    and JS was fed as moved onto JC's pile)."""
    true_obs = simulated_observations(seed, 40)
    flops = [o for o in true_obs if o.type == "move" and o.dst.startswith("flop_")][:2]
    first = str(flops[0].card)
    deck = {str(c) for c in Referee(load_game("royal_family")).state.zones["draw_pile"]}
    wrong = sorted(deck - {str(o.card) for o in true_obs} - {"JK"})[0]
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    covered = False
    for _k, obs, view in played_views(true_obs, truth, inference):
        for zone, names in view.cards.items():
            for i, name in enumerate(names):
                if name == first or name == str(obs.card) and obs in flops:
                    names[i] = wrong
                    view.likelihood[(zone, wrong)] = 0.3
        result = inference.update(view)
        assert result.desync is None, (obs.short(), result.desync)
        if obs in flops:
            assert [o.short() for o, _ in result.fed] == [f"{wrong} draw_pile -> {obs.dst}"]
            inference.answer(parse_short(f"rename card={wrong} as={obs.card}"))
        covered |= obs.dst == flops[1].dst and obs not in flops
    assert covered, "the second flop's pile was never covered"
    assert camera.snapshot() == truth.snapshot()


def first_flop(seed: int):
    """The first flop of ``seed``'s game laid, not yet read by the camera, and a card still in
    the draw pile of another rank: (truth, camera referee, event inference, physical table,
    the flop, that other card)."""
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    physical = {z: list(cs) for z, cs in truth.state.zones.items()}
    flop = next(o for o in simulator(truth.game, seed).next_observations(truth.state) if o.type == "move")
    truth.feed(flop)
    remove_last(physical[flop.src], flop.card)
    physical[flop.dst].append(flop.card)
    other = next(str(c) for c in physical["draw_pile"] if str(c) != "JK" and c.rank != flop.card.rank)
    return truth, camera, inference, physical, flop, other


def flop_named_unsurely(seed: int):
    """The first flop of ``seed``'s game, named by the camera unsurely (its true name, 0.3) with
    one other likely name, a card still in the draw pile of another rank: (truth, camera
    referee, event inference, physical table, the flop, that other name)."""
    truth, camera, inference, physical, flop, other = first_flop(seed)
    card = str(flop.card)
    unsure = camera_view(physical)
    unsure.likelihood[(flop.dst, card)] = 0.3
    unsure.alternatives[(flop.dst, card)] = (other,)
    assert [o.short() for o, _ in inference.update(unsure).fed] == [flop.short()]
    return truth, camera, inference, physical, flop, other


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_card_read_with_no_clear_name_where_it_lies_is_the_same_card(seed):
    """A flop, named unsurely, is next read by the name of a card still in the draw pile with
    hardly any preference (0.07, the flop's own name 0.06 behind it, no other name likely: a
    blurred court card): it is the same card where it lies, not a new card on its pile (held-out
    seed 145 under blur: a queen read 10S at 0.07 put the referee out of step)."""
    truth, camera, inference, physical, flop, other = flop_named_unsurely(seed)
    blurred = camera_view(physical)
    blurred.cards[flop.dst] = [other]
    blurred.likelihood[(flop.dst, other)] = 0.07
    blurred.candidates[(flop.dst, other)] = ((str(flop.card), 0.06), ("5S", 0.05))
    result = inference.update(blurred)
    assert result.fed == [] and result.desync is None
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_card_named_surely_and_read_surely_by_another_name_twice_is_renamed(seed):
    """The first flop is named surely by a wrong name (0.7, its true name a candidate at 0.2);
    then two reads running name it surely right where it lies. Once is a desync (either read
    may be the wrong one); twice, the first name gives way and the game is re-read with the
    right one (held-out seed 142 with every card's time in staging hidden: a jack of hearts
    taken for the jack of diamonds kept the camera alone out of step for 14 of 24
    observations)."""
    truth, camera, inference, physical, flop, wrong = first_flop(seed)
    card = str(flop.card)
    misnamed = camera_view(physical)
    misnamed.cards[flop.dst] = [wrong]
    misnamed.likelihood[(flop.dst, wrong)] = 0.7
    misnamed.candidates[(flop.dst, wrong)] = ((card, 0.2),)
    assert [o.short() for o, _ in inference.update(misnamed).fed] == [f"{wrong} draw_pile -> {flop.dst}"]
    right = camera_view(physical)
    right.likelihood[(flop.dst, card)] = 0.9
    right.candidates[(flop.dst, card)] = ((wrong, 0.05),)
    assert inference.update(right).desync is not None
    renames = [o for o, _ in inference.update(right).fed if o.type == "rename"]
    assert [(str(o.card), o.data["as"]) for o in renames] == [(wrong, card)]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_card_named_by_the_next_cards_name_is_renamed_when_that_card_comes(seed):
    """The first flop is named fairly surely (0.67) by the name of the card flopped next, its
    true name a candidate; then that card is flopped, and both are read where they lie, the
    first only unsurely by its true name (the two confused both ways). The table means the
    first name was wrong: no legal move puts the first card on the second flop pile. Once is a
    desync; twice, the first card is renamed and the second card's flop fed (held-out seed
    150 filmed out of focus: a 3D named 3H at 0.67, then the 3H flopped, kept the camera out of
    step for the 11 reads that followed)."""
    truth, camera, inference, physical, flop, nxt = first_flop(seed)
    card = str(flop.card)
    assert flop.dst == "flop_1"
    second = Observation.move(nxt, "draw_pile", "flop_2")
    misnamed = camera_view(physical)
    misnamed.cards[flop.dst] = [nxt]
    misnamed.likelihood[(flop.dst, nxt)] = 0.67
    misnamed.candidates[(flop.dst, nxt)] = ((card, 0.25),)
    assert [o.short() for o, _ in inference.update(misnamed).fed] == [f"{nxt} draw_pile -> {flop.dst}"]
    truth.feed(second)
    remove_last(physical[second.src], second.card)
    physical[second.dst].append(second.card)
    both = camera_view(physical)
    both.likelihood[(flop.dst, card)] = 0.45
    both.candidates[(flop.dst, card)] = ((nxt, 0.4),)
    assert inference.update(both).desync is not None
    fed = [o.short() for o, _ in inference.update(both).fed]
    assert fed == [f"rename card={nxt} as={card} at=0", second.short()]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("confirmed", [False, True])
def test_a_card_the_players_confirmed_is_not_renamed_by_a_later_read(confirmed):
    """A flop is named unsurely (its true name, 0.3) with one other likely name; the next read
    names it that other card surely. Unconfirmed, the camera takes the first name for a misread
    and renames it; once a player has confirmed the name at its [CHECK], it is never renamed."""
    truth, camera, inference, physical, flop, other = flop_named_unsurely(3)
    card = str(flop.card)
    if confirmed:
        inference.confirm(card)
    sure_other = camera_view(physical)
    sure_other.cards[flop.dst] = [other]
    sure_other.likelihood[(flop.dst, other)] = 0.9
    sure_other.alternatives[(flop.dst, other)] = (card,)
    renames = [o for o, _ in inference.update(sure_other).fed if o.type == "rename"]
    assert len(renames) == (0 if confirmed else 1)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_confirmed_card_read_again_by_a_name_it_was_confused_with_is_that_card(seed):
    """A flop named unsurely (0.3, another name likely too) is confirmed by a player; the next
    read names it that other card, unsurely, with no likely name in common: it is the confirmed
    card where it lies, not a new card laid on its pile (held-out seed 149: a king confirmed,
    then read as the jack, was taken for a card drawn onto it)."""
    truth, camera, inference, physical, flop, other = flop_named_unsurely(seed)
    card = str(flop.card)
    inference.confirm(card)
    misread = camera_view(physical)
    misread.cards[flop.dst] = [other]
    misread.likelihood[(flop.dst, other)] = 0.12
    result = inference.update(misread)
    assert result.fed == [] and result.desync is None
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("later", ["surer", "no surer"])
def test_two_cards_read_as_each_other_are_renamed_when_read_right(seed, later):
    """The first two flops are each read unsurely by the other's name (0.4, the true name 0.3:
    two cards alike dealt side by side, in blur); the next reads name both right where they
    lie. Read surely right (0.7, the first name 0.2), they were taken for each other, not moved
    from flop to flop (which the rules refuse): the camera swaps their names and follows the
    game on (held-out seed 150 under blur: 3D and 3H, read swapped and then right, kept the
    referee out of step for the rest of the game). Read no surer than at first (0.35, the
    first name 0.3), the two reads disagree and the names stand (held-out seed 149: a king and
    a jack)."""
    true_obs = simulated_observations(seed, 40)
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    flops = [o for o in true_obs if o.type == "move" and o.dst.startswith("flop_")][:2]
    a, b = (str(o.card) for o in flops)
    right, wrong = (0.7, 0.2) if later == "surer" else (0.35, 0.3)
    renames = []
    for _k, obs, view in played_views(true_obs[:12], truth, inference):
        if obs in flops:  # each read as the other, unsurely, as long as the two are dealt
            for o, name in ((flops[0], b), (flops[1], a))[: flops.index(obs) + 1]:
                names = view.cards[o.dst]
                names[names.index(str(o.card))] = name
                view.likelihood[(o.dst, name)] = 0.4
                view.alternatives[(o.dst, name)] = (str(o.card),)
                view.candidates[(o.dst, name)] = ((str(o.card), 0.3),)
        else:
            for o, name in ((flops[0], b), (flops[1], a)):
                if str(o.card) in view.cards.get(o.dst, []):
                    view.likelihood[(o.dst, str(o.card))] = right
                    view.candidates[(o.dst, str(o.card))] = ((name, wrong),)
        result = inference.update(view)
        if later == "no surer":
            continue
        assert result.desync is None, (obs.short(), result.desync)
        renames += [o for o, _ in result.fed if o.type == "rename"]
    if later == "surer":
        traded = [(str(o.card), o.data["as"], o.data.get("swap")) for o in renames]
        assert traded in ([(a, b, True)], [(b, a, True)])
        assert camera.snapshot() == truth.snapshot()
    else:
        assert not any(o.type == "rename" and o.data.get("swap") for o in camera.fed)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_castle_and_a_flop_read_as_each_other_unsurely_stay_where_they_lie(seed):
    """The spades castle (dealt at set-up, so surely the ace of spades) and the first flop are
    read as each other, both unsurely and each with the other's name close behind (two aces
    in blur): both are misread now, not moved (held-out seed 146 under blur: AC read on the
    castle and AS on its flop pile was fed as AC claimed, and the referee stayed out of step
    for four reads)."""
    truth, camera, inference, physical, flop, other = flop_named_unsurely(seed)
    card = str(flop.card)
    laid = next(c for c in physical["draw_pile"] if str(c) not in ("JK", other))
    nxt = Observation.move(laid, "draw_pile", "flop_2" if flop.dst == "flop_1" else "flop_1")
    assert not any(a.kind == "REJECT" for a in truth.feed(nxt))  # the next flop, at the same moment
    remove_last(physical[nxt.src], nxt.card)
    physical[nxt.dst].append(nxt.card)
    crossed = camera_view(physical)
    crossed.cards["castle_spades"], crossed.cards[flop.dst] = [card], ["AS"]
    crossed.cards["castle_hearts"] = ["AD"]  # and the hearts castle misread too
    crossings = (("castle_spades", card, "AS"), (flop.dst, "AS", card), ("castle_hearts", "AD", "AH"))
    for zone, name, other in crossings:
        crossed.likelihood[(zone, name)] = 0.4
        crossed.alternatives[(zone, name)] = (other,)
        crossed.candidates[(zone, name)] = ((other, 0.35),)
    result = inference.update(crossed)
    assert [o.short() for o, _ in result.fed] == [nxt.short()] and result.desync is None
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_that_skips_staging_is_recovered_by_the_rules(seed):
    """Every drawn card that then goes somewhere in view is never seen in staging (an arm, a
    slow machine): the card seems to jump from the draw pile to its destination, which the
    rules refuse. The missed draw to staging is found among the legal moves and fed, flagged."""
    recovered: list = []
    true_moves, inferred, truth, camera = play(seed, max_obs=80, skip_staging=True, recovered=recovered)
    missed = [e.missed for e in recovered]
    assert len(missed) > 5
    assert all(len(m) == 1 and m[0].dst == "staging" and m[0].src == "draw_pile" for m in missed)
    assert [o.to_json() for o in inferred] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 3, 4])
def test_a_card_seen_only_at_the_end_of_its_way_is_fed_with_the_step_missed(seed):
    """The camera never sees a card where the rules send it on from (an attack that does no
    damage, on the castle before the discard pile; a joker flopped, before its spot): it sees
    the card reach the end, which the rules accept as the same move. Fed as the two steps the
    players made, the game is followed observation for observation, and the referee is not left
    asking for a clean-up the table already shows."""
    skipped: list = []
    true_moves, inferred, truth, camera = play(seed, max_obs=120, skip_via=skipped)
    assert skipped

    def castle(zone: str) -> str:  # an attack that does no damage: on either castle, the same game
        return "castle_damage" if zone.startswith("castle_damage_") else zone

    assert [(o.card, castle(o.src), castle(o.dst)) for o in inferred] == [
        (o.card, castle(o.src), castle(o.dst)) for o in true_moves]
    assert camera.game.outcome_key(camera.state) == truth.game.outcome_key(truth.state)


@pytest.mark.parametrize(("seed", "every"), [(4, 2), (5, 3)])
def test_moves_merged_by_lost_reads_are_recovered_or_asked(seed, every):
    """The table is read only after every second or third move (two players' moves in one
    read, a card drawn and used unseen): the camera finds the legal sequences that lead there,
    feeds the only one or asks the players (who pick the true one), and never desyncs."""
    recovered: list = []
    true_moves, inferred, truth, camera = play(
        seed, max_obs=60, skip_staging=True, settle_every=every, recovered=recovered
    )
    assert recovered
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 3, 5, 7])
def test_where_a_card_went_unseen_is_asked_when_the_rules_allow_two_places(seed):
    """A shown card is discarded face down and the next flop covers a flop pile before the
    table settles: the card left staging, and it may lie in the discard pile or under the new
    flop (a face-up discard onto that pile). Both are legal and end differently, so the camera
    asks where the players answer, and follows the true game move for move (the first reading,
    under the flop, is wrong in these games: taken unasked it puts the game out of step)."""
    asked: list = []
    true_moves, inferred, truth, camera = play(
        seed, max_obs=80, ask_readings=True, asked=asked, unseen_discards=True
    )
    where = [(q, key) for q, key in asked if not any(e.missed for e in q.choices)]
    assert where and any(key > 1 for _, key in where)
    assert all(q.choices[key - 1].steps[0].dst == "discard_pile" for q, key in where)
    assert [o.to_json() for o in inferred] == [o.to_json() for o in true_moves]
    assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 3, 4, 5])
def test_a_fort_card_hidden_under_its_hit_does_not_block_the_recovery_of_missed_moves(seed):
    """A fort's card is unseen while a hit lies across it, and the camera misses every card's
    time in staging: the hidden card stays where it lay (no move explains it), and is left out
    of the changes after, so the missed steps of later tables are still found (before, every
    explanation had to account for it too, and the game stayed in desync: held-out seed 143
    with arms crossing lost 12 of 24 observations)."""
    recovered: list = []
    true_moves, inferred, truth, camera = play(
        seed, max_obs=80, skip_staging=True, recovered=recovered, hide_under_hits=True
    )
    assert recovered  # (and no desync: ``play`` asserts it at every table)
    # What the camera could see leave: all but the hidden cards' clean-ups to the discard pile.
    seen = [o for o in true_moves if not (o.src.startswith("fort_") and o.dst == "discard_pile")]
    assert [o for o in inferred if not (o.src.startswith("fort_") and o.dst == "discard_pile")] == seen
    assert camera.snapshot() == truth.snapshot()


def test_a_table_no_legal_sequence_explains_says_what_to_type_and_resyncs_later():
    """A card flopped onto the wrong pile: no legal sequence leads there. The desync says the
    line the players can type (the legal step of that card), and the next table a legal
    sequence explains (the card put where the rules want it) puts the game back in step."""
    camera = Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    physical = {z: list(cs) for z, cs in camera.state.zones.items()}
    wrong = camera_view(physical)
    wrong.cards["flop_2"] = ["7S"]
    result = inference.update(wrong)
    assert result.desync is not None and result.recovered is None
    assert result.desync.endswith("type the step the camera missed: 7S draw_pile -> flop_1")
    assert not result.fed
    right = camera_view(physical)
    right.cards["flop_1"] = ["7S"]
    result = inference.update(right)
    assert result.resynced and [o.short() for o, _ in result.fed] == ["7S draw_pile -> flop_1"]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_pile_top_read_unsurely_by_another_name_where_nothing_moved_is_the_same_card(seed):
    """A flop read, then by the name of a card still in the draw pile, unsurely (0.3), where
    the camera saw nothing move since it fed the flop: the same card misread, nothing fed (a
    guyenne `KS` on a discard pile read `KC` at 0.2 was fed as a discard). Had its pile moved
    since, the read would be a card laid there."""
    results = {}
    for moved_at in (1.0, 3.0):  # the flop's pile last moved before it was read (2.0), after it
        truth, camera, inference, physical, flop, other = first_flop(seed)
        laid = inference.update(camera_view(physical), {flop.dst: 1.0}, now=2.0)
        assert [o.short() for o, _ in laid.fed] == [flop.short()]
        misread = camera_view(physical)
        misread.cards[flop.dst] = [other]
        misread.likelihood[(flop.dst, other)] = 0.3
        results[moved_at] = inference.update(misread, {flop.dst: moved_at}, now=4.0, since=2.0)
        if moved_at < 2.0:
            assert camera.snapshot() == truth.snapshot()
    assert results[1.0].fed == [] and results[1.0].desync is None
    assert results[3.0].fed or results[3.0].desync


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_pile_top_read_surely_by_its_misread_name_where_nothing_moved_is_the_same_card(seed):
    """A flop read unsurely by a card still in the draw pile and renamed by a player, then read
    surely (0.65) by that misread name again where nothing moved since the camera fed it: the
    table is read with the card that lies there, before the rules are asked. In Royal Shuffle a
    card laid on a court pile is legal at any turn, so there the rules did not save it: a queen
    read `QD`, keyed `QH` at the camera's check, read `QD` at 0.61 a read later, was fed as a
    second queen flipped onto her. Had the pile moved since, the read is left as read."""
    for moved_at, lies in ((1.0, "card"), (5.0, "other")):  # the pile moved before the feed (2.0), after
        truth, camera, inference, physical, flop, other = first_flop(seed)
        card = str(flop.card)
        first = camera_view(physical)
        first.cards[flop.dst] = [other]
        first.likelihood[(flop.dst, other)] = 0.3
        inference.update(first, {flop.dst: 1.0}, now=2.0)
        notes = inference.answer(parse_short(f"rename card={other} as={card}"))
        assert notes[0].kind == "STATE"
        again = camera_view(physical)
        again.cards[flop.dst] = [other]
        again.likelihood[(flop.dst, other)] = 0.65
        result = inference.update(again, {flop.dst: moved_at}, now=6.0, since=3.0)
        assert result.fed == [] and result.desync is None, result  # Royal Family: no flop lands there
        assert inference.referee.snapshot() == truth.snapshot()
        # What the table is read as, before the rules are asked (its zones' times kept):
        assert inference._unmoved(again, 3.0).cards[flop.dst] == [{"card": card, "other": other}[lies]]


def discard_on_a_flop(seeds=range(1, 40)):
    """The first seed whose game has a drawn card discarded face-up onto a flop pile that
    holds a card: (seed, observations up to that discard, the card covered)."""
    for seed in seeds:
        observations = simulated_observations(seed, 80)
        truth = Referee(load_game("royal_family"))
        for k, obs, _ in played_views(observations, truth, EventInference(Referee(truth.game), LAYOUT)):
            if obs.src == "staging" and obs.dst.startswith("flop_") and len(truth.state.zones[obs.dst]) > 1:
                return seed, observations[: k + 1], str(truth.state.zones[obs.dst][-2])
    raise AssertionError("no drawn card discarded onto a flop pile in the seeds tried")


def test_a_card_read_unsurely_on_a_pile_by_the_name_of_the_card_that_left_is_that_card():
    """A drawn card discarded face-up onto a flop pile, read there by its own name but hardly
    surely (0.07, the covered card's name about as likely): the card that left staging came
    here, not the covered card read again while the drawn one went to the discard pile (held-out
    seed 147 under noise lost two moves and a turn to that)."""
    seed, observations, covered = discard_on_a_flop()

    def unsure(view: TableState, obs, truth: Referee) -> None:
        view.likelihood[(obs.dst, str(obs.card))] = 0.07
        view.candidates[(obs.dst, str(obs.card))] = ((covered, 0.06), ("JK", 0.01))

    fed, _, truth, inference = play_last_read_as(observations, unsure)
    assert fed[-1] == observations[-1].short(), f"seed {seed}: {fed[-3:]}"
    assert inference.referee.snapshot() == truth.snapshot()


@pytest.mark.parametrize("first", [1, 11, 13, 20])
@pytest.mark.parametrize("confirmed", [False, True])
def test_a_card_drawn_unseen_onto_an_unsurely_named_pile_is_a_step_missed_not_a_misread(first, confirmed):
    """A drawn card discarded face-up onto a flop pile whose card was named unsurely, its time
    in staging unseen, is read unsurely there (the covered card among its faint names). Taking
    the covered card for another card misread twice would explain the change away and leave
    the drawn card in the pile for the rest of the game (held-out seed 147 with staging never
    seen: 6 of 24 observations); the draw with its staging step missed explains the table as
    read. So too when the players confirmed the covered card's name at its [CHECK]: then it is
    not re-read, but taken for the covered card misread where it lies (seed 147 again, with the
    players: 7 of 24)."""
    seed, observations, covered = discard_on_a_flop(range(first, 40))
    drawn, pile = str(observations[-1].card), observations[-1].dst
    truth = Referee(load_game("royal_family"))
    inference = EventInference(Referee(truth.game), LAYOUT)
    fed = []
    for _, obs, view in played_views(observations, truth, inference):
        if str(obs.card) == covered and obs.dst == pile:
            view.likelihood[(pile, covered)] = 0.3
            view.candidates[(pile, covered)] = ((drawn, 0.1),)
        if obs is observations[-2]:
            continue  # the drawn card's time in staging, unseen
        if obs is observations[-1]:
            view.likelihood[(pile, drawn)] = 0.3
            view.candidates[(pile, drawn)] = ((covered, 0.1),)
        fed += [o.short() for o, _ in inference.update(view).fed]
        if confirmed and str(obs.card) == covered and obs.dst == pile:
            inference.confirm(covered)  # key 1 at its [CHECK]
    assert fed[-2:] == [o.short() for o in observations[-2:]], f"seed {seed}: {fed[-3:]}"
    assert inference.referee.snapshot() == truth.snapshot()


@pytest.mark.parametrize("stirred", [True, False])
def test_a_card_discarded_onto_a_pile_and_read_as_the_card_it_covers_lies_on_that_pile(stirred):
    """A drawn card discarded face-up on a flop pile is read there by the covered card's name,
    at chance, its own name about as likely (a guyenne jack on a jack): it left staging for that
    pile, not face down for the discard pile (held-out seed 147 under noise lost its last three
    moves). Only where the pile moved since the last read: a pile no hand came near keeps its
    card, and the card that left went where the camera cannot see."""
    seed, observations, covered = discard_on_a_flop()
    drawn, pile = str(observations[-1].card), observations[-1].dst
    truth = Referee(load_game("royal_family"))
    inference = EventInference(Referee(truth.game), LAYOUT)
    fed = []
    for k, obs, view in played_views(observations, truth, inference):
        moved = k + 0.5 if stirred or obs is not observations[-1] else k - 0.5
        if obs is observations[-1]:
            view.cards[pile] = [covered]
            view.likelihood[(pile, covered)] = 0.06
            view.candidates[(pile, covered)] = ((drawn, 0.058), ("5S", 0.02))
        fed += [o.short() for o, _ in inference.update(view, times={pile: moved}, now=k + 1.0, since=k).fed]
    if stirred:
        assert fed[-1] == observations[-1].short(), f"seed {seed}: {fed[-3:]}"
        assert inference.referee.snapshot() == truth.snapshot()
    else:
        assert fed[-1] == f"{drawn} staging -> discard_pile", f"seed {seed}: {fed[-3:]}"


def play_last_read_as(observations: list, misread_last):
    """Play ``observations`` to a camera whose last view ``misread_last(view, obs, truth)``
    changes: (the moves fed, the last update's result, the truth referee, the inference)."""
    truth = Referee(load_game("royal_family"))
    inference = EventInference(Referee(truth.game), LAYOUT)
    fed, result = [], None
    for _, obs, view in played_views(observations, truth, inference):
        if obs is observations[-1]:
            misread_last(view, obs, truth)
        result = inference.update(view)
        fed += [o.short() for o, _ in result.fed]
    return fed, result, truth, inference


def flop_played_on_view(seeds=range(1, 40)):
    """The first seed whose game moves a flop card to a face-up zone where it lies in view (a
    fortification, an attack, a castle): (seed, observations up to that move)."""
    for seed in seeds:
        observations = simulated_observations(seed, 80)
        for k, obs in enumerate(observations):
            if obs.type == "move" and obs.src.startswith("flop_") and obs.dst != "discard_pile":
                return seed, observations[: k + 1]
    raise AssertionError("no flop card played into view in the seeds tried")


def test_a_card_read_surely_by_a_name_the_rules_refuse_where_a_card_just_left_is_that_card():
    """A flop card played into view and read there surely (0.95) by the same rank of another
    suit, a card still in the draw pile, which the rules cannot put there: the flop card that
    left its pile and is seen nowhere else came here, misread (a blurred 8S attacking a
    fortification read 8C; the camera fed the 8S to the discard pile and lost the attack)."""
    seed, observations = flop_played_on_view()

    def other_suit(view: TableState, obs, truth: Referee) -> None:
        card = str(obs.card)
        unseen = {str(c) for c in truth.state.zones["draw_pile"]}
        suit = next(s for s in "SCHD" if s != card[-1] and card[:-1] + s in unseen)
        names = view.cards[obs.dst]
        names[names.index(card)] = card[:-1] + suit
        view.likelihood[(obs.dst, card[:-1] + suit)] = 0.95
        reads.append(card[:-1] + suit)

    reads: list[str] = []
    fed, result, truth, inference = play_last_read_as(observations, other_suit)
    assert fed[-1] == observations[-1].short(), f"seed {seed}: {fed[-3:]}"
    assert result.desync is None and result.read_as == {str(observations[-1].card): reads[0]}
    assert inference.referee.snapshot() == truth.snapshot()


def test_a_move_typed_after_the_camera_fed_it_is_known_as_fed():
    """A player types a move the camera has just fed (a card seen leaving for the face-down
    discard pile): the same move, not fed again to be refused. Not so a card's other move, nor
    a face-down card's (one back is like another)."""
    truth = Referee(load_game("royal_family"))
    inference = EventInference(Referee(truth.game), LAYOUT)
    observations = simulated_observations(1, 80)
    moves = []
    for _, _, view in played_views(observations, truth, inference):
        fed = [o for o, _ in inference.update(view).fed]
        moves += [o for o in fed if o.type == "move" and str(o.card) != "BACK"]
    assert inference.referee.snapshot() == truth.snapshot()
    last = moves[-1]
    assert inference.fed_already(last)
    other = next(z for z in truth.state.zones if z not in (last.src, last.dst))
    assert not inference.fed_already(Observation.move(last.card, last.src, other))
    assert not inference.fed_already(Observation.move("BACK", "draw_pile", "staging"))


def in_view(zone: str) -> bool:
    return LAYOUT.zones[zone].face != "down" and not LAYOUT.zones[zone].offtable


def two_moves_either_order(seeds=range(140, 160)):
    """The first seed whose game has two moves in a row, each of a card in view, that the
    rules accept in the other order too with another outcome (a bonus claimed, then the next
    player's draw; the draw first ends the bonus): (seed, observations up to the second)."""
    for seed in seeds:
        observations = simulated_observations(seed, 80)
        truth = Referee(load_game("royal_family"))
        for k, (first, second) in enumerate(zip(observations, observations[1:], strict=False)):
            before = trial_copy(truth)
            truth.feed(first)
            if first.type != "move" or second.type != "move" or first.card == second.card:
                continue
            if not all(str(o.card) != "BACK" and in_view(o.src) and in_view(o.dst) for o in (first, second)):
                continue
            after = trial_copy(truth)
            after.feed(second)
            other = trial_copy(before)
            if any(refused(other, o) for o in (second, first)):
                continue
            if truth.game.outcome_key(other.state) != truth.game.outcome_key(after.state):
                return seed, observations[: k + 2]
    raise AssertionError("no two moves accepted in either order in the seeds tried")


def test_two_moves_seen_in_one_read_that_end_differently_by_their_order_are_asked():
    """An arm hides the table between two moves that the rules accept in either order with
    different outcomes: the camera asks which came first and follows the players' answer
    (held-out seed 148 under arms lost three announcements when it fed the next player's draw
    first, so that a surprise 2 took the jack black had executed)."""
    seed, observations = two_moves_either_order()
    truth = Referee(load_game("royal_family"))
    inference = EventInference(Referee(truth.game), LAYOUT)
    inference.ask_readings = True
    for _, obs, view in played_views(observations, truth, inference):
        if obs is observations[-2]:
            continue  # hidden under an arm
        result = inference.update(view)
    said = [o.short() for o in observations[-2:]]
    assert result.question is not None, f"seed {seed}: fed {[o.short() for o, _ in result.fed]}"
    keys = [i for i, e in enumerate(result.question.choices, 1) if [o.short() for o in e.steps] == said]
    assert keys and len(result.question.choices) > 1
    inference.choose(keys[0])
    assert inference.referee.snapshot() == truth.snapshot()


def test_a_flop_read_unsurely_by_the_name_of_a_resident_gone_unseen_is_the_flop_card():
    """A resident the detector misses for a read while a flop pile's top is read unsurely by
    the resident's name (a guyenne `KD` read `JH` at chance): the flop card read differently,
    not the resident come to the flop pile, which the rules refuse (held-out seed 149 with
    staging hidden lost three moves to that)."""
    for seed in range(1, 40):
        observations = simulated_observations(seed, 80)
        truth = Referee(load_game("royal_family"))
        inference = EventInference(Referee(truth.game), LAYOUT)
        for _, obs, view in played_views(observations, truth, inference):
            zones = truth.state.zones
            residents = [z for z in view.cards if z.startswith("residents_") and view.cards[z]]
            flops = [z for z in ("flop_1", "flop_2", "flop_3") if view.cards.get(z)]
            touched = {obs.src, obs.dst} & {*residents, *flops}
            if obs.type != "move" or not residents or not flops or touched:
                inference.update(view)
                continue
            resident, flop = view.cards[residents[0]][-1], flops[0]
            top = str(zones[flop][-1])
            view.cards[residents[0]].remove(resident)  # missed
            view.cards[flop] = [resident]
            view.likelihood[(flop, resident)] = 0.1
            view.candidates[(flop, resident)] = ((top, 0.08),)
            result = inference.update(view)
            assert result.desync is None, f"seed {seed}: {result.desync}"
            assert [o.short() for o, _ in result.fed] == [obs.short()], f"seed {seed}"
            assert inference.referee.snapshot() == truth.snapshot()
            return
    raise AssertionError("no resident beside a flop pile in the seeds tried")


def discards_that_end_a_round(count: int, seeds=range(1, 60)):
    """Games whose drawn card is discarded face-up onto a flop pile as a round's last move, the
    next round's first flop going onto that pile: (seed, observations up to that discard),
    ``count`` of them."""
    found = []
    for seed in seeds:
        observations = simulated_observations(seed, 80)
        for k, obs in enumerate(observations[:-1]):
            after = observations[k + 1]
            if obs.type == "move" and obs.src == "staging" and obs.dst.startswith("flop_") \
                    and after.type == "move" and after.src == "draw_pile" and after.dst == obs.dst:
                found.append((seed, observations[: k + 1]))
                break
        if len(found) == count:
            return found
    raise AssertionError(f"fewer than {count} round-ending discards in the seeds tried")


@pytest.mark.parametrize("game", range(3))
def test_a_card_discarded_and_misread_where_it_lands_is_one_move_not_a_flop_onto_it(game):
    """A round's last drawn card discarded onto a flop pile and read there unsurely (0.08) by a
    card still in the draw pile, its own name about as likely: the card moved and was misread
    where it landed, not discarded, hidden at once and covered by the next round's first flop
    (held-out seed 147 at 640x360: a guyenne `JD` read `KH` on the flop pile took the camera and
    the players out of step for four moves)."""
    seed, observations = discards_that_end_a_round(3)[game]
    card = str(observations[-1].card)
    flop = str(simulated_observations(seed, 80)[len(observations)].card)  # still in the draw pile

    def as_unseen_card(view: TableState, obs, truth: Referee) -> None:
        names = view.cards[obs.dst]
        names[names.index(card)] = flop
        view.likelihood[(obs.dst, flop)] = 0.08
        view.candidates[(obs.dst, flop)] = ((card, 0.07), ("JK", 0.01))

    fed, result, truth, inference = play_last_read_as(observations, as_unseen_card)
    assert result.desync is None, f"seed {seed}: {result.desync}"
    assert [o.short() for o, _ in result.fed] == [observations[-1].short()], f"seed {seed}: {fed[-3:]}"
    assert result.read_as == {card: flop}
    assert inference.referee.snapshot() == truth.snapshot()


def hidden_pooled(referee: Referee) -> str:
    """The referee's snapshot with the draw and discard piles pooled: the game as the players
    can know it when a card drawn and discarded face down was never shown."""
    state = json.loads(referee.snapshot())
    zones = state["state"]["zones"]
    zones["draw_pile"] = sorted(zones["draw_pile"] + zones.pop("discard_pile"))
    return json.dumps(state, sort_keys=True)


@pytest.mark.parametrize("seed", [6, 14])
def test_a_turn_the_camera_saw_nothing_of_is_a_card_drawn_and_discarded_unseen(seed):
    """A card drawn and discarded face down between two reads (a game played fast: its time in
    staging never read) leaves no card the camera can name, and the next player's move seems out
    of turn. Where the draw pile and the discard pile both moved since the last read, the
    recovery puts a turn drawn unseen first, with a stand-in card still unseen, and the game
    stays in step: the same player to move and every card in view where the true game has it
    (held-out seed 144 played twice as fast lost 16 of its 24 observations to one such turn).
    A stand-in whose own name turns up later gives way to another card still unseen."""
    blind: list = []
    recovered: list = []
    true_moves, inferred, truth, camera = play(seed, max_obs=80, blind_discards=blind, recovered=recovered)
    stand_ins = [e for e in recovered if e.blind]  # (and no desync: ``play`` asserts it at every table)
    assert blind and stand_ins
    assert all(len(e.blind) == 1 and e.missed[1].dst == "discard_pile" for e in stand_ins)
    assert hidden_pooled(camera) == hidden_pooled(truth)


@pytest.mark.parametrize("seed", [1, 10, 13])
def test_a_round_ended_unseen_and_its_next_flop_read_as_one_table_is_a_turn_drawn_unseen(seed):
    """A round's last card drawn and discarded face down unseen, and the next flop dealt before
    the camera reads the table again (a game played fast): the three flop piles covered at once
    are no other table, and a turn drawn unseen that deals the whole flop is taken over the
    same table read as the last card discarded face up on a flop pile with the flop two cards
    short (a camera reads tables that settled, rarely a deal half made): held-out seeds 142 and
    150 played twice as fast lost the rest of their games to such tables."""
    blind: list = []
    recovered: list = []
    true_moves, inferred, truth, camera = play(
        seed, max_obs=80, blind_discards=blind, unread_flops=True, recovered=recovered
    )
    assert any(e.blind and any(o.dst.startswith("flop_") for o in e.steps) for e in recovered)
    assert hidden_pooled(camera) == hidden_pooled(truth)


def first_discard_then_a_draw(seeds=range(1, 200)):
    """(seed, observations) of games whose first card discarded face down (from ``staging``)
    comes before the next player's first draw into ``staging``, nothing between them."""
    for seed in seeds:
        observations = simulated_observations(seed, 40)
        moves = [(k, o) for k, o in enumerate(observations) if o.type == "move"]
        for (i, a), (_, b) in itertools.pairwise(moves):
            if a.dst == "discard_pile":  # the first card there: from staging, then a draw
                if a.src == "staging" and (b.src, b.dst) == ("draw_pile", "staging") and str(b.card) != "JK":
                    return seed, observations[: observations.index(b) + 1], i
                break
    pytest.fail("no game whose first face-down discard is followed by a draw")


def read_with_a_turn_unseen(back: tuple[float, float] | None = None):
    """Plays :func:`first_discard_then_a_draw`'s game, its first discard's draw and discard
    never read, the backs of face-down zones shown; ``back`` = (probability, share of reads
    agreeing) reads the discard pile's back so. Returns the truth, the camera's referee, the
    observations, every read's result and the event inference."""
    seed, observations, discard = first_discard_then_a_draw()
    truth, camera = Referee(load_game("royal_family")), Referee(load_game("royal_family"))
    inference = EventInference(camera, LAYOUT)
    read_at, touched, results = 0.0, {}, []
    for k, obs, view in played_views(observations, truth, inference, backs=True):
        touched.update({obs.src: float(k + 1), obs.dst: float(k + 1)})
        if obs.card == observations[discard].card and k <= discard:  # its draw and discard: never read
            continue
        if back is not None and "discard_pile" in view.backs:
            view.back_faces = {"discard_pile": [(back[0], (("8D", 0.02),))]}
            view.confidence = {"discard_pile": back[1]}
        results.append(inference.update(view, dict(touched), float(k + 1), read_at))
        read_at = float(k + 1)
    return truth, camera, observations, results, inference


def test_a_back_where_the_game_has_no_card_is_a_turn_drawn_and_discarded_unseen():
    """The game's first card discarded face down, its draw never read, and the next player's
    draw read in ``staging``: that draw alone is a legal move (the same player's), but the
    discard pile now shows a back where the game holds no card, and nothing read put one there.
    The turn drawn unseen explains both: the next player is to move (held-out seed 148 played
    twice as fast read its next player's joker as the same player's draw, and lost 13 of 24
    observations and made a wrong damage announcement)."""
    truth, camera, observations, results, _ = read_with_a_turn_unseen()
    assert [r.desync for r in results if r.desync is not None] == []
    assert results[-1].recovered is not None and len(results[-1].recovered.blind) == 1
    assert [o.short() for o, _ in results[-1].fed][-1] == observations[-1].short()
    assert hidden_pooled(camera) == hidden_pooled(truth)


@pytest.mark.parametrize(("p_back", "agreed", "taken"), [(0.33, 2 / 3, False), (0.74, 1.0, True)])
def test_a_back_where_the_game_has_no_card_calls_for_a_turn_only_when_read_surely(p_back, agreed, taken):
    """The table of the test above, its back in the discard pile read as the detector reads a
    back put there (0.74, every read of the table agreeing: held-out seed 148 played fast) or
    as it reads one a pulsing light shows for a read or two (0.33, two reads of three: held-out
    seed 145, whose next draw was taken for a turn drawn unseen before it, and the game lost
    8 of its 24 observations). Only the first calls for the turn; the second leaves the draw
    seen as the legal move it is alone."""
    _, _, observations, results, _ = read_with_a_turn_unseen((p_back, agreed))
    result = results[-1]
    assert (result.recovered is not None and bool(result.recovered.blind)) == taken
    if not taken:  # the draw alone, the same player's
        assert [o.short() for o, _ in result.fed] == [observations[-1].short()]


def flop_named_as_its_twin(seed: int):
    """The first flop of ``seed``'s game named by the camera as a card of its rank still in the
    draw pile (0.51, its true name 0.34: the anglo `QS` laid as `QC`): (truth, camera referee,
    event inference, physical table, the flop's zone, its true name, the name it was given)."""
    truth, camera, inference, physical, flop, _ = first_flop(seed)
    card = str(flop.card)
    twin = next(str(c) for c in physical["draw_pile"] if c.rank == flop.card.rank and str(c) != card)
    first = camera_view(physical)
    first.cards[flop.dst] = [twin]
    first.likelihood[(flop.dst, twin)] = 0.51
    first.candidates[(flop.dst, twin)] = ((card, 0.34),)
    assert [o.short() for o, _ in inference.update(first, {flop.dst: 1.0}, now=2.0).fed] == [
        f"{twin} draw_pile -> {flop.dst}"
    ]
    return truth, camera, inference, physical, flop.dst, card, twin


def read_where_it_lies(inference, physical, zone: str, reads: list[tuple[str, float, str, float]]) -> list:
    """Read the table again and again, nothing moved since: the card on ``zone`` read by each
    (name, its probability, another name, that name's); the renames fed."""
    renames = []
    for k, (name, p, other, q) in enumerate(reads):
        view = camera_view(physical)
        view.cards[zone] = [name]
        view.likelihood[(zone, name)] = p
        view.candidates[(zone, name)] = ((other, q),)
        result = inference.update(view, {zone: 1.0}, now=4.0 + k, since=3.0 + k)
        assert result.desync is None
        renames += [(str(o.card), o.data["as"]) for o, _ in result.fed if o.type == "rename"]
    return renames


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("count", [2, 3])
def test_a_card_named_unsurely_and_read_by_another_name_where_it_lies_is_renamed_by_its_reads(seed, count):
    """The first flop is named as its twin of another suit (0.51, its true name 0.34); then
    read where it lies, nothing moved, by its true name (0.55, the twin 0.28). One or two such
    reads leave it as named (each is taken for that card, misread); from the third, its reads
    together name it better than its first: it is renamed and the game re-read (held-out seed
    146: an anglo `QS` laid as `QC` and read `QS` in most reads after was never renamed)."""
    truth, camera, inference, physical, zone, card, twin = flop_named_as_its_twin(seed)
    renames = read_where_it_lies(inference, physical, zone, [(card, 0.55, twin, 0.28)] * count)
    if count < 3:
        assert renames == [] and twin in inference.named
        assert camera.snapshot() != truth.snapshot()
    else:
        assert renames == [(twin, card)]
        assert camera.snapshot() == truth.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_read_by_two_names_in_turn_where_it_lies_keeps_its_first(seed):
    """The same flop read where it lies by its twin's name and its true name in turn, or by
    its true name always but barely surer than the twin (0.42 against 0.36): its reads name it
    no better than its first name did, and it is not renamed."""
    for turns in ([("twin", 0.45, 0.40), ("card", 0.55, 0.28)] * 3, [("card", 0.42, 0.36)] * 5):
        truth, camera, inference, physical, zone, card, twin = flop_named_as_its_twin(seed)
        names = {"card": (card, twin), "twin": (twin, card)}
        reads = [(names[who][0], p, names[who][1], q) for who, p, q in turns]
        assert read_where_it_lies(inference, physical, zone, reads) == []
        assert twin in inference.named


@pytest.mark.parametrize(
    ("shown", "p", "renamed"), [("drawn", 0.85, True), ("in_view", 0.9, False), (None, 0, False)]
)
def test_a_card_drawn_unseen_is_named_by_a_glimpse_of_it_where_it_was_drawn_to(shown, p, renamed):
    """The turn drawn and discarded unseen of :func:`read_with_a_turn_unseen`, recovered with
    a stand-in card; then a frame of the moment its card lay in staging, too brief to be read,
    is read (a game played fast: held-out seeds 142, 144, 146, 148 and 150 each lost such a
    turn's two observations, a drawn 2 among them, whose surprise then went unannounced). The
    card read there renames the stand-in, and the game is the true one, no longer pooled; a
    card read there that is in view elsewhere, or no card at all, leaves the stand-in."""
    truth, camera, observations, results, inference = read_with_a_turn_unseen()
    blind = results[-1].recovered.blind
    glimpse = TableState()
    drawn = next(str(o.card) for o in observations if o.type == "move" and o.dst == "discard_pile")
    if shown is not None:
        name = drawn if shown == "drawn" else next(iter(visible(LAYOUT, inference.physical)))[1]
        glimpse.cards["staging"] = [name]
        glimpse.likelihood[("staging", name)] = p
    result = inference.glimpsed(glimpse, {blind[0]: "staging"})
    renames = [(str(o.card), o.data["as"]) for o, _ in result.fed if o.type == "rename"]
    if renamed:
        assert renames == [(blind[0], drawn)] or (blind[0] == drawn and renames == [])
        assert camera.snapshot() == truth.snapshot()
        assert blind[0] not in inference.stand_ins or blind[0] == drawn
    else:
        assert renames == [] and blind[0] in inference.stand_ins
        assert hidden_pooled(camera) == hidden_pooled(truth)

"""The players of a rendered Houska Castle, Dukes Up! or Royal Crush game (``table_moves``):
after every observation of whole simulated games, the cards face up on their table are the
cards the rules have face up, and a card that comes up never takes a name already in view."""

from __future__ import annotations

from collections import Counter

import pytest

from vision.events import visible
from vision.layout import load_layout
from vision.synth.game_record import record_game
from vision.synth.game_video import _hidden
from vision.synth.table_moves import TablePlayers
from vision.synth.table_state import Table, bare, face_down

# Whole simulated games of three games laid out on the table (seconds each):
# CI runs them; the quick subset leaves them out.
pytestmark = pytest.mark.slow


def shown(layout, table: Table) -> Counter:
    """Card names a camera reads on ``table``: pile tops and spreads of face-up zones."""
    up = {z: [c for c in cards if not face_down(c)] for z, cards in table.zones.items()}
    tops = {z: [cards[-1]] for z, cards in table.zones.items() if cards and not face_down(cards[-1])}
    seen = {
        z: (tops.get(z, []) if layout.zones[z].kind == "pile" else up[z]) for z in up if z in layout.zones
    }
    return Counter(bare(c) for (_, c), n in visible(layout, seen).items() for _ in range(n))


@pytest.mark.parametrize("game", ["houska_castle", "dukes_up", "royal_crush"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_players_lay_the_table_out_as_the_rules_have_it(game, seed):
    layout = load_layout(game)
    record = record_game(game, seed)
    table = Table(record.initial, tuple(z for z in record.initial if _hidden(layout, z)))
    players = TablePlayers(game, layout, table)
    for step in record.steps:
        for move in players.moves(step.obs, step.actor):
            table.put(move.dst, table.take(move.src, move.index), move.up, layout, move.src)
        zones: dict[str, list] = {}
        for zone, cards in players.referee.game.cards_by_zone(players.referee.state).items():
            zones.setdefault(layout.lies_in(zone), []).extend(cards)
        want = Counter(name for (_, name), n in visible(layout, zones).items() for _ in range(n))
        assert shown(layout, table) == want, f"{game} seed {seed} observation {step.line}: {step.obs.short()}"
    assert record.outcome is not None  # a whole game

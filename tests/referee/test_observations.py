import json

import pytest

from referee.errors import ObservationError
from referee.observations import Observation, parse_short, read_jsonl


def test_move_round_trip():
    obs = Observation.move("7S", "draw_pile", "staging")
    assert obs.to_json() == {"card": "7S", "from": "draw_pile", "to": "staging"}
    assert Observation.from_json(json.loads(obs.to_line())) == obs


@pytest.mark.parametrize(
    "text, expected",
    [
        ("7S draw_pile -> staging", {"card": "7S", "from": "draw_pile", "to": "staging"}),
        ("10H flop_1->fort_hearts", {"card": "10H", "from": "flop_1", "to": "fort_hearts"}),
        ("answer clubs", {"type": "answer", "choice": "clubs"}),
        ("answer 2", {"type": "answer", "choice": 2}),
        ("end_turn", {"type": "end_turn"}),
        ("dice values=3,5", {"type": "dice", "values": [3, 5]}),
    ],
)
def test_short_form(text, expected):
    assert parse_short(text).to_json() == expected


@pytest.mark.parametrize(
    "line, field",
    [
        ('{"card": "7X", "from": "draw_pile", "to": "staging"}', "card"),
        ('{"card": "7S", "to": "staging"}', "from"),
        ('{"card": "7S", "from": "draw_pile", "to": 3}', "to"),
        ('{"type": "answer"}', "choice"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path, line, field):
    path = tmp_path / "obs.jsonl"
    path.write_text('{"card": "AS", "from": "draw_pile", "to": "staging"}\n' + line + "\n")
    with pytest.raises(ObservationError) as err:
        list(read_jsonl(path))
    assert f"{path}:2" in str(err.value) and f"'{field}'" in str(err.value)


def test_invalid_json_names_line(tmp_path):
    path = tmp_path / "obs.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(ObservationError, match=r"obs.jsonl:1: not valid JSON"):
        list(read_jsonl(path))

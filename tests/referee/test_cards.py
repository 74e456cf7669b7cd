import pytest

from referee.cards import CLASS_ID, CLASSES, Card, CardError, card, class_id, full_deck


@pytest.mark.parametrize(
    "text, rank, suit, color, value",
    [
        ("AS", "A", "S", "black", 1),
        ("10H", "10", "H", "red", 10),
        ("QD", "Q", "D", "red", 12),
        ("KC", "K", "C", "black", 13),
        ("JK", "JK", "", None, 0),
        ("BACK", "BACK", "", None, 0),
    ],
)
def test_parse(text, rank, suit, color, value):
    c = Card.parse(text)
    assert (c.rank, c.suit, c.color, c.value) == (rank, suit, color, value)
    assert str(c) == text


@pytest.mark.parametrize(
    "bad", ["", "1S", "11H", "10", "S", "ZS", "as", "10X", "JKS", "BACKS", "7 S", None, 7]
)
def test_parse_rejects(bad):
    with pytest.raises(CardError):
        Card.parse(bad)


def test_classes_are_54_unique_and_ordered():
    assert len(CLASSES) == 54 == len(set(CLASSES))
    assert CLASSES[-2:] == ("JK", "BACK")
    assert [str(c) for c in full_deck(jokers=0)] == list(CLASSES[:52])
    assert all(CLASS_ID[name] == i for i, name in enumerate(CLASSES))
    assert class_id("10H") == CLASSES.index("10H") and class_id(card("BACK")) == 53


def test_face_and_suit_names():
    assert card("JS").is_face and card("QH").is_face and not card("10H").is_face
    assert card("7D").suit_name == "diamonds"
    assert len(full_deck()) == 54

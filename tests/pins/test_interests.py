"""The interest taxonomy, boards with an interest, and pins carrying it."""

from __future__ import annotations

import pytest

from pins.actions import create_board, repin, update_board
from pins.exceptions import InvalidContent, NotFound
from pins.interests import all_interests, clean_interest, interest, taxonomy
from tests.pins.helpers import new_pin, new_pinner


def test_the_taxonomy_has_about_thirty_unique_named_topics() -> None:
    slugs = taxonomy().slugs()
    assert 25 <= len(slugs) <= 40 and len(set(slugs)) == len(slugs)
    assert slugs == sorted(slugs) and {"food-and-drink", "home-decor", "travel"} <= set(slugs)
    assert all(item.name and item.slug.replace("-", "").isalpha() for item in all_interests())
    assert taxonomy().version >= 1


def test_an_unknown_interest_is_not_found_and_invalid_as_input() -> None:
    assert interest("travel").name == "Travel"
    with pytest.raises(NotFound):
        interest("knitting")
    with pytest.raises(InvalidContent, match="no interest 'knitting'") as raised:
        clean_interest("knitting")
    assert raised.value.field == "interest"
    assert clean_interest("") is None and clean_interest(None) is None


def test_a_boards_pins_and_repins_carry_its_interest_when_made() -> None:
    owner, saver = new_pinner(), new_pinner()
    board = create_board(owner.user_id, "Dinners", interest="food-and-drink")
    assert board.interest == "food-and-drink"
    pin = new_pin(owner.user_id, board.id)
    assert pin.interest == "food-and-drink"
    travel = create_board(saver.user_id, "Trips", interest="travel")
    assert repin(saver.user_id, pin.id, travel.id).interest == "travel"
    plain = create_board(saver.user_id, "Misc")
    assert plain.interest is None and repin(saver.user_id, pin.id, plain.id).interest is None


def test_changing_a_boards_interest_keeps_or_clears_it() -> None:
    owner = new_pinner()
    board = create_board(owner.user_id, "Rooms", interest="home-decor")
    assert update_board(owner.user_id, board.id, name="Room ideas").interest == "home-decor"
    assert update_board(owner.user_id, board.id, interest="design").interest == "design"
    assert update_board(owner.user_id, board.id, interest="").interest is None
    with pytest.raises(InvalidContent):
        update_board(owner.user_id, board.id, interest="nope")

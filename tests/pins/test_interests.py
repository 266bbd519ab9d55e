"""The interest taxonomy, boards with an interest, pins carrying it, and an interest's pins
(``interest_has_pin``, sliced over the pins' own shards)."""

from __future__ import annotations

import pytest

from pins.actions import create_board, delete_board, delete_pin, repin, update_board
from pins.actions.pins import delete_pins_of_user
from pins.domain import Pin
from pins.exceptions import InvalidContent, NotFound
from pins.interest_pins import SLICES, interest_pin_ids
from pins.interests import all_interests, clean_interest, interest, taxonomy
from pins.selectors import interest_pins_page
from pins.types import INTEREST_HAS_PIN
from sharding import slices
from sharding.hosts import alias_for_shard
from sharding.ids import shard_of
from tests.pins.helpers import new_pin, new_pinner
from toolkit.paging import InvalidPageSize


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


def _spread_pins(slug: str) -> list[Pin]:
    """One pin each of new pinners on boards with ``slug`` until the pins sit on at least four
    shards of both hosts (pinners land on random shards; a pin lives on its board's)."""
    pins: list[Pin] = []
    while len({shard_of(p.id) for p in pins}) < 4 or \
            len({alias_for_shard(shard_of(p.id)) for p in pins}) < 2:
        owner = new_pinner()
        board = create_board(owner.user_id, "Ideas", interest=slug)
        pins.append(new_pin(owner.user_id, board.id, f"Pin {len(pins)}"))
    return pins


def _listed(slug: str, slack: int = 50) -> list[int]:
    return [pin_id for pin_id, _ in interest_pin_ids(interest(slug).id, 200 + slack)]


def test_an_interests_pins_are_sliced_over_their_shards_and_listed_newest_first() -> None:
    pins = _spread_pins("weddings")
    topic = interest("weddings").id
    assert {shard_of(pin.id) for pin in pins} <= set(SLICES.shards(topic))
    for pin in pins:  # each row sits on its pin's shard, beside the pin
        assert slices.contains(INTEREST_HAS_PIN, topic, pin.id)
        assert slices.count(INTEREST_HAS_PIN, topic, [shard_of(pin.id)]) >= 1
    newest = interest_pin_ids(topic, len(pins) + 50)
    mine = [(pin_id, created) for pin_id, created in newest if pin_id in {p.id for p in pins}]
    assert [pin_id for pin_id, _ in mine] == [pin.id for pin in reversed(pins)]
    assert [created for _, created in mine] == [pin.created_us for pin in reversed(pins)]
    assert [created for _, created in newest] == sorted((c for _, c in newest), reverse=True)


def test_reading_on_before_a_time_gives_only_older_pins() -> None:
    pins = _spread_pins("weddings")
    topic = interest("weddings").id
    older = interest_pin_ids(topic, 3, before=pins[2].created_us)
    assert pins[2].id not in [pin_id for pin_id, _ in older]
    assert all(created < pins[2].created_us for _, created in older)
    assert [pin_id for pin_id, _ in older[:2]] == [pins[1].id, pins[0].id]
    assert interest_pin_ids(topic, 1, before=pins[2].created_us, before_id=pins[2].id + 1) \
        == [(pins[2].id, pins[2].created_us)]
    assert interest_pin_ids(topic, 0) == []


def test_paging_an_interests_pins_continues_without_duplicates() -> None:
    pins = _spread_pins("diy-and-crafts")
    wanted = {pin.id for pin in pins}
    seen: list[Pin] = []
    page = interest_pins_page("diy-and-crafts", limit=2)
    while True:
        assert len(page.items) <= 2
        seen.extend(page.items)
        if wanted <= {pin.id for pin in seen} or page.next_cursor is None:
            break
        page = interest_pins_page("diy-and-crafts", limit=2, after=page.next_cursor)
    ids = [pin.id for pin in seen]
    assert len(ids) == len(set(ids)) and wanted <= set(ids)
    assert [p.id for p in seen if p.id in wanted] == [pin.id for pin in reversed(pins)]
    assert all(pin.interest == "diy-and-crafts" for pin in seen)
    created = [pin.created_us for pin in seen]
    assert created == sorted(created, reverse=True)


def test_a_bad_cursor_or_page_size_is_invalid_and_an_unknown_interest_not_found() -> None:
    for cursor in ("not-a-cursor", "bm90LWEtY3Vyc29y"):
        with pytest.raises(InvalidContent) as raised:
            interest_pins_page("travel", limit=5, after=cursor)
        assert raised.value.field == "cursor"
    with pytest.raises(InvalidPageSize):
        interest_pins_page("travel", limit=0)
    with pytest.raises(NotFound):
        interest_pins_page("knitting")


def test_a_deleted_pin_leaves_its_interests_list() -> None:
    owner = new_pinner()
    board = create_board(owner.user_id, "Gardens", interest="gardening")
    kept, gone = new_pin(owner.user_id, board.id), new_pin(owner.user_id, board.id)
    assert {kept.id, gone.id} <= set(_listed("gardening"))
    delete_pin(owner.user_id, gone.id)
    assert not slices.contains(INTEREST_HAS_PIN, interest("gardening").id, gone.id)
    assert gone.id not in _listed("gardening") and kept.id in _listed("gardening")
    assert gone.id not in {pin.id for pin in interest_pins_page("gardening", limit=50).items}


def test_a_repin_is_listed_under_its_own_boards_interest() -> None:
    owner, saver = new_pinner(), new_pinner()
    food = create_board(owner.user_id, "Dinners", interest="food-and-drink")
    source = new_pin(owner.user_id, food.id)
    trips = create_board(saver.user_id, "Trips", interest="travel")
    saved = repin(saver.user_id, source.id, trips.id)
    plain = repin(saver.user_id, source.id, create_board(saver.user_id, "Misc").id)
    assert saved.id in _listed("travel") and saved.id not in _listed("food-and-drink")
    assert source.id in _listed("food-and-drink") and source.id not in _listed("travel")
    assert not any(slices.contains(INTEREST_HAS_PIN, topic.id, plain.id)
                   for topic in all_interests())


def test_deleting_a_board_or_a_pinners_pins_takes_them_off_the_list() -> None:
    owner = new_pinner()
    board = create_board(owner.user_id, "Cars", interest="cars")
    other = create_board(owner.user_id, "More cars", interest="cars")
    on_board = [new_pin(owner.user_id, board.id) for _ in range(2)]
    on_other = new_pin(owner.user_id, other.id)
    delete_board(owner.user_id, board.id)
    listed = _listed("cars")
    assert on_other.id in listed and not {pin.id for pin in on_board} & set(listed)
    assert delete_pins_of_user(owner.user_id) == 1
    assert not slices.contains(INTEREST_HAS_PIN, interest("cars").id,
                               on_other.id)

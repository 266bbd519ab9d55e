"""Many pinners, boards and pins made at once (an import): each as the single action makes it,
refusals reported in place, one transaction per shard host, events for every pin."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage

from events import publisher
from pins.actions import (
    NewBoard,
    NewPin,
    NewPinner,
    create_boards,
    create_pinners,
    create_pins,
)
from pins.conf import content_settings
from pins.domain import Board, Pin
from pins.events import PIN_CREATED
from pins.exceptions import InvalidContent, NotFound, UsernameTaken
from pins.models import Pinner
from pins.selectors import boards_of, get_board, get_pin, get_user, pins_of_board, pins_of_user
from pins.types import BOARD_HAS_PINS
from sharding import mappings
from sharding.hosts import by_host
from sharding.ids import shard_of
from sharding.mysql.base import DatabaseWrapper
from sharding.topology import current_map
from tests.events.helpers import recorded
from tests.pins.helpers import image_bytes, new_board, new_pinner, unique_username


@pytest.fixture
def created() -> Iterator[list[dict[str, Any]]]:
    with recorded(PIN_CREATED) as received:
        yield received


def test_pinners_are_made_in_order_with_refusals_in_place() -> None:
    taken = new_pinner()
    names = [unique_username(), taken.username.upper(), "no spaces allowed", unique_username()]
    made = create_pinners([NewPinner(names[0], "First"), NewPinner(names[1]),
                           NewPinner(names[2]), NewPinner(names[3])])
    assert isinstance(made[0], Pinner) and isinstance(made[3], Pinner)
    assert isinstance(made[1], UsernameTaken)
    assert isinstance(made[2], InvalidContent) and not isinstance(made[2], UsernameTaken)
    first, last = get_user(made[0].user_id), get_user(made[3].user_id)
    assert (first.username, first.display_name) == (names[0], "First")
    assert (last.username, last.display_name) == (names[3], names[3])  # the username shows
    account = get_user_model().objects.get(username=names[0])
    assert Pinner.objects.get(account=account).user_id == made[0].user_id
    assert not account.has_usable_password()


def test_a_username_twice_in_one_call_is_made_once() -> None:
    name = unique_username()
    made = create_pinners([NewPinner(name), NewPinner(name.upper())])
    assert isinstance(made[0], Pinner) and isinstance(made[1], UsernameTaken)
    assert get_user_model().objects.filter(username__iexact=name).count() == 1


def test_pinners_are_placed_in_groups_with_one_commit_per_host(
        monkeypatch: pytest.MonkeyPatch) -> None:
    commits: list[str] = []
    commit = DatabaseWrapper.commit

    def counted(self: DatabaseWrapper) -> None:
        commits.append(self.alias)
        commit(self)

    monkeypatch.setattr(DatabaseWrapper, "commit", counted)
    made = create_pinners([NewPinner(unique_username()) for _ in range(40)])
    placed = [shard_of(pinner.user_id) for pinner in made if isinstance(pinner, Pinner)]
    assert len(placed) == 40 and set(placed) <= set(current_map().open_shards())
    size = content_settings.number("BULK_PINNERS_PER_SHARD")
    groups = [placed[first:first + size] for first in range(0, 40, size)]
    assert [len(set(group)) for group in groups] == [1] * len(groups)  # a group, a shard
    assert len({group[0] for group in groups}) == len(groups) == 3  # a shard, a group
    hosts = by_host(set(placed))
    assert sorted(alias for alias in commits if alias != "default") == sorted(hosts)


def test_bulks_of_pinners_land_on_random_shards() -> None:
    firsts = {shard_of(made[0].user_id) for made in
              (create_pinners([NewPinner(unique_username())]) for _ in range(12))
              if isinstance(made[0], Pinner)}
    assert len(firsts) > 1


def test_boards_are_made_beside_their_owners_and_listed_first() -> None:
    one, two = new_pinner(), new_pinner()
    old = new_board(one.user_id, "Older")
    made = create_boards([NewBoard(one.user_id, "Quiche", "Pastry"),
                          NewBoard(two.user_id, ""),  # a board needs a name
                          NewBoard(two.user_id, "Soup"),
                          NewBoard(old.id, "Not a user")])
    assert isinstance(made[1], InvalidContent) and isinstance(made[3], NotFound)
    quiche, soup = made[0], made[2]
    assert isinstance(quiche, Board) and isinstance(soup, Board)
    assert get_board(quiche.id) == quiche and quiche.description == "Pastry"
    assert shard_of(quiche.id) == shard_of(one.user_id)
    assert shard_of(soup.id) == shard_of(two.user_id)
    assert [b.id for b in boards_of(one.user_id).items] == [quiche.id, old.id]
    assert [b.id for b in boards_of(two.user_id).items] == [soup.id]


def test_pins_are_made_on_their_boards_by_the_owners(created: list[dict[str, Any]]) -> None:
    one, two = new_pinner(), new_pinner()
    first, second = new_board(one.user_id), new_board(two.user_id)
    picture = image_bytes(120, 80, "JPEG")
    made = create_pins([NewPin(first.id, "Leek", "Crisp", "https://example.com/leek"),
                        NewPin(second.id, "x" * 1000),  # too long a title
                        NewPin(second.id, "Soup"),
                        NewPin(first.id, "Tart"),
                        NewPin(one.user_id, "Not a board")], picture)
    assert isinstance(made[1], InvalidContent) and isinstance(made[4], NotFound)
    leek, soup, tart = made[0], made[2], made[3]
    assert isinstance(leek, Pin) and isinstance(soup, Pin) and isinstance(tart, Pin)
    assert get_pin(leek.id) == leek
    assert (leek.pinner_id, leek.title, leek.link) == (one.user_id, "Leek",
                                                       "https://example.com/leek")
    assert (soup.pinner_id, soup.board_id) == (two.user_id, second.id)
    assert shard_of(leek.id) == shard_of(first.id) and shard_of(soup.id) == shard_of(second.id)
    assert {p.id for p in pins_of_board(first.id).items} == {leek.id, tart.id}
    assert [p.id for p in pins_of_user(two.user_id).items] == [soup.id]
    assert mappings.sequence_of(BOARD_HAS_PINS, first.id, tart.id) == tart.created_us
    assert (leek.width, leek.height) == (120, 80)
    files = {leek.image, leek.thumbnail, tart.image, tart.thumbnail}
    assert len(files) == 4 and all(default_storage.exists(name) for name in files)
    with default_storage.open(leek.image) as stored:
        assert stored.read() == picture  # stored as uploaded, not encoded again
    publisher.flush()  # the events go to the publisher thread once their host commits
    assert sorted(event["pin_id"] for event in created) == sorted([leek.id, soup.id, tart.id])


def test_a_picture_that_is_not_one_refuses_every_pin() -> None:
    owner = new_pinner()
    with pytest.raises(InvalidContent):
        create_pins([NewPin(new_board(owner.user_id).id, "Broken")], b"not a picture")

"""The content's managers against the real shards: ``Pin.objects`` and friends, the paged
related managers, related objects and their prefetch, on the profile and the index row alike."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pins.actions import repin
from pins.domain import Board, Pin, User
from pins.exceptions import NotFound
from pins.models import Pinner
from pins.types import PIN
from sharding.exceptions import MalformedObjectId
from sharding.ids import compose, shard_of
from tests.pins.helpers import new_board, new_pin, new_pinner, pinner_off_shard
from tests.sharding.helpers import queries_per_host, shard_aliases
from toolkit.related import prefetch


def _shard_queries(run: Callable[[], object]) -> int:
    """How many statements the shard hosts were sent while ``run()`` ran."""
    with queries_per_host() as captured:
        run()
    return sum(len(capture.captured_queries) for capture in captured.values())


def test_objects_get_in_bulk_and_exists() -> None:
    ada = new_pinner()
    board = new_board(ada.user_id)
    pin = new_pin(ada.user_id, board.id)
    assert Pin.objects.get(pin.id) == pin
    assert Board.objects.get(str(board.id)) == board
    assert User.objects.get(ada.user_id).username == ada.username
    assert User.objects.get(username=ada.username.upper()).id == ada.user_id
    assert Pin.objects.exists(pin.id) and not Pin.objects.exists(board.id)
    with pytest.raises(NotFound):
        Pin.objects.get(compose(shard_of(pin.id), PIN.type_id, 2**35))
    with pytest.raises(MalformedObjectId):
        Pin.objects.get(board.id)


def test_user_objects_get_wants_an_id_or_a_username() -> None:
    with pytest.raises(TypeError, match="a user ID or a username"):
        User.objects.get()


def test_in_bulk_across_shards_is_one_query_per_host() -> None:
    ada = new_pinner()
    bob = pinner_off_shard(shard_of(ada.user_id))
    pins = [new_pin(ada.user_id, new_board(ada.user_id).id),
            new_pin(bob.user_id, new_board(bob.user_id).id)]
    ghost = compose(shard_of(pins[0].id), PIN.type_id, 2**35)
    wanted = [pins[1].id, ghost, pins[0].id]
    found: dict[int, Pin] = {}
    statements = _shard_queries(lambda: found.update(Pin.objects.in_bulk(wanted)))
    assert list(found) == [pins[1].id, pins[0].id] and found[pins[0].id] == pins[0]
    assert statements <= len(shard_aliases())


def test_objects_are_reached_through_the_class_only() -> None:
    pin = new_pin((ada := new_pinner()).user_id, new_board(ada.user_id).id)
    with pytest.raises(AttributeError, match="through the class"):
        pin.objects  # type: ignore[misc]  # noqa: B018


def test_related_lists_page_count_and_iterate() -> None:
    ada = new_pinner()
    board = new_board(ada.user_id)
    made = [new_pin(ada.user_id, board.id, title=f"Pin {n}") for n in range(5)][::-1]
    first = board.pins.page(limit=2)
    second = board.pins.page(limit=2, after=first.next_cursor)
    assert [pin.id for pin in first] + second.ids == [pin.id for pin in made[:4]]
    assert board.pins.count() == 5
    assert [pin.id for pin in board.pins.iterator(chunk=2)] == [pin.id for pin in made]
    profile = User.objects.get(ada.user_id)
    for pinner in (ada, profile):
        assert pinner.pins.count() == 5 and pinner.boards.count() == 1
        assert pinner.boards.page().ids == [board.id]


def test_repins_of_a_pin() -> None:
    ada, bob = new_pinner(), new_pinner()
    source = new_pin(ada.user_id, new_board(ada.user_id).id)
    saved = repin(bob.user_id, source.id, new_board(bob.user_id).id)
    assert source.repins.count() == 1 and source.repins.page().ids == [saved.id]


def test_related_objects_load_once() -> None:
    ada = new_pinner()
    board = new_board(ada.user_id)
    pin = Pin.objects.get(new_pin(ada.user_id, board.id).id)
    assert pin.board == board and pin.pinner.id == ada.user_id
    assert board.owner.username == ada.username
    assert _shard_queries(lambda: (pin.board, pin.pinner)) == 0
    index_row = Pinner.objects.get(user_id=ada.user_id)
    assert index_row.profile.username == ada.username


def test_prefetch_reads_a_page_of_related_objects_in_one_batch() -> None:
    ada = new_pinner()
    bob = pinner_off_shard(shard_of(ada.user_id))
    boards = [new_board(ada.user_id), new_board(bob.user_id)]
    made = [new_pin(owner, board.id) for owner, board
            in ((ada.user_id, boards[0]), (bob.user_id, boards[1]), (ada.user_id, boards[0]))]
    pins = list(Pin.objects.in_bulk([pin.id for pin in made]).values())
    statements = _shard_queries(lambda: prefetch(pins, "board", "pinner"))
    assert statements <= 2 * len(shard_aliases())  # one batch per name: a query per host at most
    assert _shard_queries(lambda: [(pin.board.name, pin.pinner.username) for pin in pins]) == 0
    assert [pin.board.id for pin in pins] == [boards[0].id, boards[1].id, boards[0].id]

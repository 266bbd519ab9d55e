"""``pinner.home``: a visit's page, what the feed holds, and an operator's rebuild of the pools,
through the manager, on the real HBase clusters."""

from __future__ import annotations

from feed.smart import pools
from pins.domain import User
from tests.feed.helpers import new_board, new_pin, new_user
from tests.smartfeed.test_service import reader_with_history


def test_the_home_manager_pages_and_counts_what_was_shown() -> None:
    reader_id, shown = reader_with_history(4)
    reader = User.objects.get(reader_id)
    assert reader.home.count() == 4
    first = reader.home.page(limit=10)
    assert first.outcome == "chunk" and first.new == 1
    assert first.ids[1:] == shown and len(first.ids) == 5
    visit = reader.home.page(limit=2)
    later = reader.home.page(limit=2, after=visit.next_cursor)
    assert visit.ids[1:] == shown[:1]
    assert later.outcome == "page" and later.ids == shown[1:3]


def test_rebuild_refills_the_pools_from_the_follows() -> None:
    owner, reader = new_user("sfo"), User.objects.get(new_user("sfm"))
    board = new_board(owner)
    reader.follow(board)
    new_pin(owner, board)
    pools.clear(reader.id)
    sizes = reader.home.rebuild()
    assert sizes["following"] == 1 and sum(pools.sizes(reader.id).values()) == sum(sizes.values())

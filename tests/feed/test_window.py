"""A first page of a long feed row reads the row's head only, and serves what the whole row
would."""

from __future__ import annotations

from typing import Any

import pytest

from feed import storage
from feed.schema import COUNTER, FEED, HORIZON_PREFIX, META, Entry, row_key
from feed.store import cells
from tests.feed.helpers import new_user
from toolkit.clock import now_us


def _stored(user: int, count: int, horizon_at: int | None = None) -> list[Entry]:
    """A row of ``count`` entries, a write counted, and a horizon at the ``horizon_at``-th
    newest; its entries newest first."""
    base = now_us()
    entries = [Entry(created_us=base - 1000 * i, pin_id=1000 + i) for i in range(count)]
    horizons = [] if horizon_at is None else [entries[horizon_at].qualifier]
    storage.change_feed("primary", user, base, add=entries, horizons=horizons)
    storage.count_writes("primary", {user: 1})
    return entries


@pytest.mark.parametrize(("stored", "horizon_at", "count"), [
    (0, None, 4),   # no row
    (3, None, 4),   # the whole feed, shorter than the page
    (4, None, 4),   # exactly a page
    (10, None, 4),  # a page of a longer row
    (10, None, 6),  # a page as long as the cap, of a row longer than it
    (10, 5, 4),     # a horizon below the page
    (10, 2, 4),     # a horizon inside the page: a short window, cut at the horizon
    (10, 0, 4),     # a horizon above every entry: nothing served
    (7, 6, 6),      # the horizon right below a full page
])
def test_a_first_page_is_the_window_the_whole_row_gives(
        small_feed: dict[str, Any], stored: int, horizon_at: int | None, count: int) -> None:
    user = new_user()
    _stored(user, stored, horizon_at)
    served, boundary = storage.read_feed("primary", user).served()
    for _ in range(2):  # read whole, then by the head if the row is long
        window = storage.read_window("primary", user, None, count)
        assert window.entries == served[:count]
        assert window.boundary == (boundary if len(served) < count else None)
        assert storage.reads_head(user) == (stored > small_feed["CAP"] // 2)


def test_a_long_row_that_shrinks_is_read_whole_again(small_feed: dict[str, Any]) -> None:
    user = new_user()
    entries = _stored(user, 10)
    storage.read_window("primary", user, None, 4)
    assert storage.reads_head(user)
    storage.change_feed("primary", user, now_us(), remove=entries[2:])
    assert storage.read_window("primary", user, None, 4).entries == entries[:2]
    assert not storage.reads_head(user)
    assert storage.read_window("primary", user, None, 4).entries == entries[:2]


def test_the_head_is_the_rows_first_cells_past_deleted_ones_with_the_meta_cells(
        small_feed: dict[str, Any]) -> None:
    user = new_user()
    entries = _stored(user, 12, horizon_at=10)
    storage.change_feed("primary", user, now_us(), remove=entries[:3])  # delete markers ahead
    found = cells.read_head("primary", row_key(user), FEED, 4, also=[META])
    assert sorted(column for column in found if column.startswith(FEED)) == [
        entry.column for entry in entries[3:7]]
    assert {column for column in found if column.startswith(META)} == {
        COUNTER, HORIZON_PREFIX + entries[10].qualifier}


def test_a_later_page_or_one_longer_than_the_cap_reads_the_whole_row(
        small_feed: dict[str, Any]) -> None:
    user = new_user()
    entries = _stored(user, 12, horizon_at=9)
    after = storage.read_window("primary", user, entries[1].qualifier, 4)
    assert after.entries == entries[2:6] and after.boundary is None
    # the cap (6) counts from the row's newest entry, not from the cursor
    tail = storage.read_window("primary", user, entries[3].qualifier, 4)
    assert tail.entries == entries[4:6] and tail.boundary == entries[5].qualifier
    longer = storage.read_window("primary", user, None, 8)
    assert longer.entries == entries[:6] and longer.boundary == entries[5].qualifier

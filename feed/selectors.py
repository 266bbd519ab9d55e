"""Reading feeds: newest-first pages of hydrated pins, and the raw head for operators.

A page is one speculative row read (primary, or the standby after the cutoff) and one
``objects.get_many`` for its pin IDs (object cache first, one query per host). The row serves
its newest ``CAP`` entries; the pins of followed celebrity boards (:mod:`feed.pulled`) are
merged in, and a page past what the row serves comes from the followed boards' pin lists
(:mod:`feed.merge`), with the same cursors. Entries whose pin is gone are skipped, so a page
may hold fewer items than ``limit``.

>>> page = feed_page(alice, limit=50)
>>> [pin.title for pin in page.items], page.next_cursor
(['Leek quiche', ...], 'f_____...')
"""

from __future__ import annotations

from feed import pulled, sources
from feed.conf import feed_settings
from feed.merge import Stream, board_stream, just_after, merge
from feed.schema import Entry, decode_cursor, encode_cursor
from feed.speculative import speculative
from feed.storage import FeedRow, Window, read_feed, read_window
from feed.store.pools import Cluster
from pins.domain import Pin
from pins.types import USER
from sharding.ids import parse_id
from sharding.mappings import MAX_PAGE
from toolkit import paging
from toolkit.paging import Page

READ_AHEAD = 2
"""Pins read per board beyond the page: a board's last creation time read is left out (its
ties may be incomplete), and the cursor's own pin is read again."""


def feed_page(user_id: int | str, limit: int | None = None, after: str | None = None,
              ) -> Page[Pin]:
    """A page of the user's following feed, newest first, after the cursor ``after``."""
    user = parse_id(user_id, USER)
    size = page_size(limit)
    entries = feed_entries(user, decode_cursor(after) if after else None, size + 1)
    window = entries[:size]
    more = len(entries) > size
    return Page(hydrate(window), encode_cursor(window[-1].qualifier) if more and window else None)


def feed_entries(user_id: int, after: bytes | None, count: int) -> list[Entry]:
    """Up to ``count`` entries of the feed after the qualifier ``after``, newest first: the
    pushed entries of the stored row (one speculative read), merged with the pins of the
    pulled boards the user follows; past the part the row serves, the pins of every followed
    board (see :mod:`feed.merge`)."""
    window = speculative(lambda cluster: read_window(cluster, user_id, after, count))
    deep = window.boundary is not None and len(window.entries) < count
    if deep:  # every followed board is read anyway: the pulled ones are among them
        every, now_pulled = sources.followed_boards(user_id), pulled.current()
        celebrities = sorted(board for board in every if board in now_pulled)
        followed = sorted(every.difference(celebrities))
    else:
        celebrities, followed = pulled.followed_pulled(user_id), []
    per_board = count + READ_AHEAD
    while True:
        streams = [Stream(window.entries, _pushed_below(window, count, deep))]
        if celebrities:
            streams.append(board_stream(celebrities, after, per_board))
        if deep:
            streams.append(board_stream(followed, max(after or b"", window.boundary or b"")
                                        or None, per_board))
        entries, short = merge(streams, after, count)
        if not short or per_board >= MAX_PAGE:
            return entries
        per_board = min(MAX_PAGE, per_board * 2)


def _pushed_below(window: Window, count: int, deep: bool) -> bytes | None:
    """Where the row's entries stop being exact: after the last entry read when the read was
    cut at ``count``, else at the row's boundary (the board streams go on from there)."""
    if len(window.entries) >= count:
        return just_after(window.entries[-1].qualifier)
    if window.boundary is None or deep:
        return None
    return just_after(window.boundary)


def feed_head(user_id: int | str, cluster: Cluster | None = None) -> FeedRow:
    """The whole stored feed of a user (entries, horizon, write counter), from ``cluster`` or
    read speculatively."""
    user = parse_id(user_id, USER)

    def read(name: Cluster) -> FeedRow:
        return read_feed(name, user)

    return read(cluster) if cluster is not None else speculative(read)


def hydrate(entries: list[Entry]) -> list[Pin]:
    """The pins of ``entries``, in order, skipping pins that no longer exist."""
    return hydrate_ids([entry.pin_id for entry in entries])


def hydrate_ids(pin_ids: list[int]) -> list[Pin]:
    """The pins of ``pin_ids``, in order, skipping pins that no longer exist (one
    ``objects.get_many``, through :func:`pins.selectors.pins_by_id`)."""
    found = sources.pins_by_id(pin_ids)
    return [found[pin_id] for pin_id in pin_ids if pin_id in found]


def page_size(limit: int | None) -> int:
    """A checked page size of the feeds (:func:`toolkit.paging.page_size`)."""
    return paging.page_size(limit, default=feed_settings.number("PAGE_SIZE"),
                            maximum=feed_settings.number("MAX_PAGE"))

"""Reading feeds: newest-first pages of hydrated pins, and the raw head for operators.

A page is one speculative row read (primary, or the standby after the cutoff) and one
``objects.get_many`` for its pin IDs (object cache first, one query per host). Only the newest
``CAP`` entries are served; entries whose pin is gone are skipped, so a page may hold fewer
items than ``limit``.

>>> page = feed_page(alice, limit=50)
>>> [pin.title for pin in page.items], page.next_cursor
(['Leek quiche', ...], 'f_____...')
"""

from __future__ import annotations

from feed.conf import cap, feed_settings
from feed.exceptions import InvalidFeedInput
from feed.schema import Entry, decode_cursor, encode_cursor
from feed.speculative import speculative
from feed.storage import FeedRow, read_feed, read_window
from feed.store.pools import Cluster
from pins.domain import Page, Pin
from pins.selectors import get_user, pinner_by_username
from pins.types import USER
from sharding import ids, objects
from sharding.exceptions import InvalidObjectId


def feed_page(user_id: int | str, limit: int | None = None, after: str | None = None,
              ) -> Page[Pin]:
    """A page of the user's following feed, newest first, after the cursor ``after``."""
    user = checked_user(user_id)
    size = page_size(limit)
    start = decode_cursor(after) if after else None
    entries = speculative(lambda cluster: read_window(cluster, user, cap(), start, size + 1))
    window = entries[:size]
    more = len(entries) > size
    return Page(hydrate(window), encode_cursor(window[-1].qualifier) if more and window else None)


def feed_head(user_id: int | str, cluster: Cluster | None = None) -> FeedRow:
    """The whole stored feed of a user (entries, horizon, write counter), from ``cluster`` or
    read speculatively."""
    user = checked_user(user_id)

    def read(name: Cluster) -> FeedRow:
        return read_feed(name, user)

    return read(cluster) if cluster is not None else speculative(read)


def hydrate(entries: list[Entry]) -> list[Pin]:
    """The pins of ``entries``, in order, skipping pins that no longer exist."""
    return hydrate_ids([entry.pin_id for entry in entries])


def hydrate_ids(pin_ids: list[int]) -> list[Pin]:
    """The pins of ``pin_ids``, in order, skipping pins that no longer exist (one
    ``objects.get_many``)."""
    found = objects.get_many(pin_ids)
    return [Pin.from_json(pin_id, found[pin_id]) for pin_id in pin_ids if pin_id in found]


def resolve_user(user: str) -> int:
    """A user ID as given, or the ID of the pinner called ``user`` (``feed show demo``);
    :class:`~pins.exceptions.NotFound` for an unknown username or user ID."""
    if user.strip().isdigit():
        user_id = checked_user(user)
        get_user(user_id)
        return user_id
    return pinner_by_username(user).user_id


def checked_user(user_id: int | str) -> int:
    try:
        value = ids.parse(user_id)
        ids.expect_type(value, USER)
    except (InvalidObjectId, ValueError) as exc:
        raise InvalidFeedInput(f"{user_id!r} is not a user ID.") from exc
    return value


def page_size(limit: int | None) -> int:
    """A checked page size: the default for None, else 1..``MAX_PAGE``."""
    size = int(feed_settings.PAGE_SIZE) if limit is None else limit
    maximum = int(feed_settings.MAX_PAGE)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= maximum:
        raise InvalidFeedInput(f"The page size must be 1..{maximum}.")
    return size

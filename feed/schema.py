"""The HBase layout of the feed, as pure functions (no I/O).

Table ``<prefix>_feed``; row = the follower's user ID (8 bytes, big-endian); family ``feed``
(one version) with one column per entry, qualifier = reverse creation time + pin ID (8 + 8
bytes, big-endian), empty value. Columns sort lexicographically, so a row reads newest first.
Family ``meta`` holds the row's write counter (``meta:n``) and its horizons (``meta:h<qualifier>``,
see :mod:`feed.trim`).

>>> entry = Entry(created_us=1_718_000_000_000_000, pin_id=241294492511762325)
>>> Entry.from_qualifier(entry.qualifier) == entry
True
>>> decode_cursor(encode_cursor(entry.qualifier)) == entry.qualifier
True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from feed.exceptions import InvalidFeedInput
from toolkit import paging

FEED = b"feed"
META = b"meta"
FEED_PREFIX = FEED + b":"
COUNTER = META + b":n"
HORIZON_PREFIX = META + b":h"
MAX_TIME = (1 << 63) - 1
ROW = struct.Struct(">Q")
QUALIFIER = struct.Struct(">QQ")
COUNT = struct.Struct(">q")


def table_name(prefix: str) -> str:
    return f"{prefix}_feed"


def families() -> dict[str, dict[str, int]]:
    """The column families of the feed table, as ``happybase`` ``create_table`` wants them."""
    return {FEED.decode(): {"max_versions": 1}, META.decode(): {"max_versions": 1}}


@dataclass(frozen=True)
class Entry:
    """One entry of a feed: a pin and its creation time (µs)."""

    created_us: int
    pin_id: int

    @property
    def qualifier(self) -> bytes:
        return QUALIFIER.pack(MAX_TIME - self.created_us, self.pin_id)

    @property
    def column(self) -> bytes:
        return FEED_PREFIX + self.qualifier

    @classmethod
    def from_qualifier(cls, qualifier: bytes) -> Entry:
        reverse, pin_id = QUALIFIER.unpack(qualifier)
        return cls(created_us=MAX_TIME - reverse, pin_id=pin_id)

    @classmethod
    def from_column(cls, column: bytes) -> Entry:
        return cls.from_qualifier(column[len(FEED_PREFIX):])


def row_key(user_id: int) -> bytes:
    return ROW.pack(user_id)


def user_of(row: bytes) -> int:
    return int(ROW.unpack(row)[0])


def horizon_column(qualifier: bytes) -> bytes:
    return HORIZON_PREFIX + qualifier


def horizon_of(column: bytes) -> bytes:
    return column[len(HORIZON_PREFIX):]


def newest_first(entries: list[Entry]) -> list[Entry]:
    """Entries in feed order: newest first, ties by ascending pin ID (as the qualifiers sort)."""
    return sorted(entries, key=lambda entry: entry.qualifier)


def decode_count(value: bytes | None) -> int:
    return int(COUNT.unpack(value)[0]) if value else 0


def encode_cursor(qualifier: bytes) -> str:
    return paging.encode_cursor(qualifier)


def decode_cursor(text: str) -> bytes:
    """The qualifier a cursor from :func:`encode_cursor` stands for."""
    try:
        raw = paging.decode_cursor(text)
    except ValueError as exc:
        raise InvalidFeedInput("The page cursor is not valid.") from exc
    if len(raw) != QUALIFIER.size:
        raise InvalidFeedInput("The page cursor is not valid.")
    return raw

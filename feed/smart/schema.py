"""The HBase layout of the smart feed, as pure functions (no I/O).

**Pools** (table ``<prefix>_pools`` on the pools cluster). A user's pool for one source is a
priority queue of rows::

    user (8) | 0x01 | source (1) | inverted rank (8) | pin (8)      family p, column p:e

so a prefix scan of ``user | 0x01 | source`` returns the best entry first. The cell holds the
entry's quality and the pin's creation time (:data:`ENTRY_VALUE`). The rank is the entry's
time-anchored score (:func:`feed.smart.scoring.rank`). Each user has one meta row
``user | 0x00``: family ``m`` holds the pool sizes (``m:n<source>``, counters), the
generator's state (``m:state``, JSON) and when the pools were last rebuilt (``m:rebuilt``);
family ``a`` holds the user's affinities (``a:p<pinner>``, ``a:b<board>``, ``a:i<interest>``,
counters).

**Materialized feed** (table ``<prefix>_home`` on the primary and standby clusters, read
speculatively like the following feed). Row = user (8); family ``h``, one column per pin shown,
qualifier = reverse time of the visit that showed it + its position in that visit's chunk, so
the row reads newest chunk first, each chunk in the generator's order. The value is the pin ID
and its source.

>>> key = pool_key(user_id, "interests", rank_key=17, pin_id=pin_id)
>>> decode_pool_key(key) == (user_id, "interests", 17, pin_id)
True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Literal

from feed.schema import MAX_TIME, QUALIFIER

Source = Literal["following", "repins", "interests", "related"]
SOURCES: tuple[Source, ...] = ("following", "repins", "interests", "related")
CODE: dict[str, int] = {name: number for number, name in enumerate(SOURCES, start=1)}
SOURCE_OF: dict[int, Source] = dict(enumerate(SOURCES, start=1))

USER = struct.Struct(">Q")
POOL_KEY = struct.Struct(">QBBQQ")
ENTRY_VALUE = struct.Struct(">dq")
HOME_VALUE = struct.Struct(">QBd")
"""Pin, source code and the score it was shown with; entries written before scores were kept
hold the first two only (``OLD_HOME_VALUE``)."""
OLD_HOME_VALUE = struct.Struct(">QB")
META_ROW, POOL_ROW = 0x00, 0x01

ENTRY = b"p:e"
STATE = b"m:state"
PULLED = b"m:pulled"
"""Creation time (µs) of the newest celebrity pin pulled into the user's pools."""
REBUILT = b"m:rebuilt"
"""When the user's pools were last rebuilt from the graph (µs), set by a rebuild's end."""
SIZE_PREFIX = b"m:n"
AFFINITY_PREFIX = b"a:"
HOME_PREFIX = b"h:"
Affinity = Literal["p", "b", "i"]


def pool_families() -> dict[str, dict[str, int]]:
    return {"p": {"max_versions": 1}, "m": {"max_versions": 1}, "a": {"max_versions": 1}}


def home_families() -> dict[str, dict[str, int]]:
    return {"h": {"max_versions": 1}}


def pool_prefix(user_id: int, source: Source | None = None) -> bytes:
    """The prefix of a user's pool rows: of one source, or of all of them."""
    head = USER.pack(user_id) + bytes([POOL_ROW])
    return head if source is None else head + bytes([CODE[source]])


def pool_key(user_id: int, source: Source, rank_key: int, pin_id: int) -> bytes:
    return POOL_KEY.pack(user_id, POOL_ROW, CODE[source], rank_key, pin_id)


def decode_pool_key(key: bytes) -> tuple[int, Source, int, int]:
    user_id, _, code, rank_key, pin_id = POOL_KEY.unpack(key)
    return user_id, SOURCE_OF[code], rank_key, pin_id


def meta_row(user_id: int) -> bytes:
    return USER.pack(user_id) + bytes([META_ROW])


def user_row(user_id: int) -> bytes:
    """A user's materialized feed row (and the prefix of all their pools-table rows)."""
    return USER.pack(user_id)


def size_column(source: Source) -> bytes:
    return SIZE_PREFIX + bytes([CODE[source]])


def affinity_column(kind: Affinity, object_id: int) -> bytes:
    return AFFINITY_PREFIX + kind.encode() + USER.pack(object_id)


@dataclass(frozen=True)
class Shown:
    """One entry of the materialized feed: a pin shown at ``shown_us``, at ``position`` of
    that visit's chunk, from ``source``, with the ``score`` it had then (None for entries
    written before scores were kept)."""

    shown_us: int
    position: int
    pin_id: int
    source: Source
    score: float | None = None

    @property
    def qualifier(self) -> bytes:
        return QUALIFIER.pack(MAX_TIME - self.shown_us, self.position)

    @property
    def column(self) -> bytes:
        return HOME_PREFIX + self.qualifier

    @property
    def value(self) -> bytes:
        if self.score is None:
            return OLD_HOME_VALUE.pack(self.pin_id, CODE[self.source])
        return HOME_VALUE.pack(self.pin_id, CODE[self.source], self.score)

    @classmethod
    def from_cell(cls, column: bytes, value: bytes) -> Shown:
        reverse, position = QUALIFIER.unpack(column[len(HOME_PREFIX):])
        if len(value) == OLD_HOME_VALUE.size:
            pin_id, code = OLD_HOME_VALUE.unpack(value)
            return cls(MAX_TIME - reverse, position, pin_id, SOURCE_OF[code])
        pin_id, code, score = HOME_VALUE.unpack(value)
        return cls(MAX_TIME - reverse, position, pin_id, SOURCE_OF[code], score)

    def as_message(self) -> list[Any]:
        """JSON-safe form for queue messages."""
        return [self.shown_us, self.position, self.pin_id, CODE[self.source], self.score]

    @classmethod
    def from_message(cls, item: list[Any]) -> Shown:
        shown_us, position, pin_id, code, *rest = item
        score = rest[0] if rest else None
        return cls(int(shown_us), int(position), int(pin_id), SOURCE_OF[int(code)],
                   None if score is None else float(score))

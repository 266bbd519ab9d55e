"""A dict whose keys can also be listed in byte order, sorted lazily.

Writes stay O(1): new keys wait in a pending list and are merged into the sorted list on the
next ordered read (timsort merges a sorted run and a short tail in linear time). Removals only
mark the sorted list stale; the next ordered read rebuilds it.

Usage::

    rows: SortedMap[Row] = SortedMap()
    rows.set(b"b", row_b); rows.set(b"a", row_a)
    rows.sorted_keys()          # [b"a", b"b"]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


class SortedMap(Generic[V]):
    """Mapping of ``bytes`` keys to values with an ordered view of the keys."""

    __slots__ = ("_items", "_pending", "_sorted", "_stale")

    def __init__(self) -> None:
        self._items: dict[bytes, V] = {}
        self._sorted: list[bytes] = []
        self._pending: list[bytes] = []
        self._stale = False

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: bytes) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._items)

    def get(self, key: bytes) -> V | None:
        return self._items.get(key)

    def set(self, key: bytes, value: V) -> None:
        if key not in self._items:
            self._pending.append(key)
        self._items[key] = value

    def pop(self, key: bytes) -> V | None:
        value = self._items.pop(key, None)
        if value is not None:
            self._stale = True
        return value

    def items(self) -> Iterator[tuple[bytes, V]]:
        return iter(self._items.items())

    def sorted_keys(self) -> list[bytes]:
        """Every key in byte order (the returned list must not be modified)."""
        if self._stale:
            self._sorted = sorted(self._items)
            self._pending.clear()
            self._stale = False
        elif self._pending:
            self._sorted = sorted(self._sorted + self._pending)
            self._pending.clear()
        return self._sorted

"""A dict whose keys are also kept in byte order.

The ordered keys live in a ``sortedcontainers.SortedList`` (a list of sorted sublists): an
insert or a removal costs O(log n), so a table of a million rows that takes writes between
scans never re-sorts (re-sorting the whole key list after each write made every scan of a
busy table O(n)). Readers get the live sorted view; they index it and bisect it under the
store's lock.

Usage::

    rows: SortedMap[Row] = SortedMap()
    rows.set(b"b", row_b); rows.set(b"a", row_a)
    list(rows.sorted_keys())    # [b"a", b"b"]
    rows.sorted_keys().bisect_left(b"b")   # 1
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from sortedcontainers import SortedList

V = TypeVar("V")


class SortedMap(Generic[V]):
    """Mapping of ``bytes`` keys to values with an ordered view of the keys."""

    __slots__ = ("_items", "_sorted")

    def __init__(self) -> None:
        self._items: dict[bytes, V] = {}
        self._sorted: SortedList = SortedList()

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
            self._sorted.add(key)
        self._items[key] = value

    def pop(self, key: bytes) -> V | None:
        value = self._items.pop(key, None)
        if value is not None:
            self._sorted.remove(key)
        return value

    def items(self) -> Iterator[tuple[bytes, V]]:
        return iter(self._items.items())

    def sorted_keys(self) -> SortedList:
        """Every key in byte order: a live view (index it, bisect it with its
        ``bisect_left``/``bisect_right``, never modify it)."""
        return self._sorted

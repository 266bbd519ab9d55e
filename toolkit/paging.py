"""Pages of newest-first lists, one way everywhere: the :class:`Page` type, the rule for a
page size asked for by a caller, and the encoding of the cursors inside them.

A page size of ``None`` means the default; anything else must be an int from 1 to the
maximum, else :class:`InvalidPageSize` (a 400 naming ``limit`` in the web UI and the API).

>>> page_size(None, default=50, maximum=200)
50
>>> decode_cursor(encode_cursor(b"1700000000.42"))
b'1700000000.42'
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


class Identified(Protocol):
    @property
    def id(self) -> int: ...


T = TypeVar("T")
WithId = TypeVar("WithId", bound=Identified)


@dataclass(frozen=True)
class Page(Generic[T]):
    """Newest-first items of a list and the opaque cursor of the next page (``None`` at the
    end). Iterating a page iterates its items."""

    items: list[T]
    next_cursor: str | None

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    @property
    def ids(self: Page[WithId]) -> list[int]:
        """The IDs of the items, in order."""
        return [item.id for item in self.items]


def walk(read: Callable[[int, str | None], Page[T]], chunk: int) -> Iterator[T]:
    """Every item of a list, newest first, read a page of ``chunk`` at a time by
    ``read(limit, cursor)`` from one cursor to the next."""
    cursor: str | None = None
    while True:
        page = read(chunk, cursor)
        yield from page.items
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


class Paged(Generic[T]):
    """What every manager of a newest-first list shares: its own :meth:`page`, and
    :meth:`iterator` walking every item from one page to the next."""

    chunk = 100
    """The page size :meth:`iterator` reads by default."""

    def page(self, limit: int | None = None, after: str | None = None) -> Page[T]:
        raise NotImplementedError

    def iterator(self, chunk: int | None = None) -> Iterator[T]:
        """Every item, newest first, a page of ``chunk`` at a time."""
        return walk(lambda size, cursor: self.page(size, cursor), chunk or self.chunk)


def encode_cursor(raw: bytes) -> str:
    """``raw`` as a cursor: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str) -> bytes:
    """The bytes a cursor from :func:`encode_cursor` stands for; ``ValueError`` for text that
    is not one."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError as exc:  # binascii.Error is one
        raise ValueError(f"{text[:40]!r} is not a cursor") from exc


class InvalidPageSize(ValueError):
    """A page size that is not an int from 1 to the maximum."""


def page_size(limit: object, *, default: int, maximum: int) -> int:
    """``limit`` checked, or ``default`` for ``None``."""
    size = default if limit is None else limit
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= maximum:
        raise InvalidPageSize(f"The page size must be 1..{maximum}.")
    return size

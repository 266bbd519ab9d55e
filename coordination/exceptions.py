"""Errors of the coordination layer. Driver errors are wrapped, with the original as
``__cause__``; each caller above names them in its own terms (:func:`named_as`: the shard
map's, the graph's)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from toolkit.errors import StoreUnavailable


class CoordinationError(Exception):
    """Base class of every error raised by the coordination layer."""


class CoordinationUnavailable(CoordinationError, StoreUnavailable):
    """ZooKeeper cannot be reached (for a change), or a document is not known at all (for a
    read: no such node, and no last-known-good copy)."""


class DocumentConflict(CoordinationError):
    """A document changed under a compare-and-set update: read it again."""


class RegistryError(CoordinationError):
    """A registry change that cannot be made (unknown kind or name, a name taken)."""


@contextmanager
def named_as(unavailable: type[Exception], conflict: type[Exception],
             conflict_text: str | None = None) -> Iterator[None]:
    """Inside the block, :class:`CoordinationUnavailable` is raised again as ``unavailable``
    and :class:`DocumentConflict` as ``conflict`` (with ``conflict_text``, if given), the
    original as ``__cause__``.

    >>> with named_as(ShardMapUnavailable, ShardMapConflict):
    ...     shard_map_document().update(change)
    """
    try:
        yield
    except DocumentConflict as exc:
        raise conflict(conflict_text or str(exc)) from exc
    except CoordinationUnavailable as exc:
        raise unavailable(str(exc)) from exc

"""Errors of the follower graph. Driver errors are wrapped, with the original as ``__cause__``.

Input errors (:class:`InvalidGraphInput`, :class:`GraphNotFound`) carry messages fit to show a
pinner; the others are for operators.
"""

from toolkit.errors import StoreUnavailable


class GraphError(Exception):
    """Base class of every error raised by the graph."""


class InvalidGraphInput(GraphError, ValueError):
    """An ID of the wrong type, a self-follow, a bad cursor or too many IDs at once."""


class GraphNotFound(GraphError, LookupError):
    """No such user or board."""


class GraphUnavailable(GraphError, StoreUnavailable):
    """Redis (or the vshard map) cannot serve the request now; writes are in the edge log."""


class GraphFenced(GraphUnavailable):
    """The vshard is being moved or has moved: refresh the map and retry. ``mark`` is the
    fence's value (``fenced``, ``moved:<to>``, ``reconciling``) when Redis named it."""

    def __init__(self, message: str, mark: str | None = None) -> None:
        super().__init__(message)
        self.mark = mark


class VShardMapError(GraphError):
    """The vshard map is malformed, or a change to it is not allowed."""


class VShardMapConflict(GraphError):
    """The vshard map changed under a compare-and-set update."""


class MoveError(GraphError):
    """A vshard move could not be carried out safely."""


class PromotionError(GraphError):
    """A Redis replica promotion could not be carried out safely."""

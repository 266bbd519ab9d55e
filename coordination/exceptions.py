"""Errors of the coordination layer. Driver errors are wrapped, with the original as
``__cause__``; each caller above names them in its own terms (the shard map's, the graph's)."""

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

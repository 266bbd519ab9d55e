"""Errors of the sharding layer. Driver errors are wrapped, with the original as ``__cause__``."""

from toolkit.errors import StoreUnavailable


class ShardingError(Exception):
    """Base class of every error raised by the sharding layer."""


class InvalidObjectId(ShardingError, ValueError):
    """An ID (or one of its parts) is out of range, or not of the expected type."""


class MalformedObjectId(InvalidObjectId):
    """An ID given as input (a URL, a query, a body, a command line) that no object of the
    wanted type can have: not a number, out of range, or another type's. A 400 everywhere
    (:func:`sharding.ids.parse_id` is the one parser that raises it)."""


class UnknownObjectType(ShardingError, LookupError):
    """No object type is registered under that number or name."""


class ObjectNotFound(ShardingError, LookupError):
    """No object is stored under that ID."""


class ShardNotOpen(ShardingError, LookupError):
    """The shard map has no range for that shard."""


class ShardMapError(ShardingError):
    """The shard map is malformed, or a change to it is not allowed."""


class ShardMapUnavailable(ShardingError, StoreUnavailable):
    """ZooKeeper cannot be reached (for a change), or no map is known at all (for a read)."""


class ShardMapConflict(ShardingError):
    """The shard map changed under a compare-and-set update."""


class ShardUnavailable(ShardingError, StoreUnavailable):
    """A shard host refused or dropped the connection, or failed the statement."""


class PromotionError(ShardingError):
    """A replica promotion could not be carried out safely."""

"""64-bit object IDs: ``(shard << 46) | (type << 36) | local``.

Pure functions, no I/O. The top two bits are reserved (always zero), shard IDs take 16 bits,
type IDs 10 bits and local IDs (the shard table's auto-increment) 36 bits.

>>> decompose(241294492511762325)
ObjectId(shard=3429, type_id=1, local_id=7075733)
>>> compose(3429, 1, 7075733)
241294492511762325
"""

from __future__ import annotations

from dataclasses import dataclass

from sharding.exceptions import InvalidObjectId, MalformedObjectId, UnknownObjectType

SHARD_BITS = 16
TYPE_BITS = 10
LOCAL_BITS = 36
TYPE_SHIFT = LOCAL_BITS
SHARD_SHIFT = LOCAL_BITS + TYPE_BITS
MAX_SHARD = (1 << SHARD_BITS) - 1
MAX_TYPE = (1 << TYPE_BITS) - 1
MAX_LOCAL = (1 << LOCAL_BITS) - 1
MAX_ID = (1 << (SHARD_SHIFT + SHARD_BITS)) - 1


@dataclass(frozen=True)
class ObjectId:
    """The three parts of an object ID."""

    shard: int
    type_id: int
    local_id: int

    @property
    def id(self) -> int:
        return compose(self.shard, self.type_id, self.local_id)


def _check(name: str, value: int, maximum: int, minimum: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidObjectId(f"{name} must be an integer, got {value!r}")
    if not minimum <= value <= maximum:
        raise InvalidObjectId(f"{name} {value} is out of range {minimum}..{maximum}")


def compose(shard: int, type_id: int, local_id: int) -> int:
    """Build an ID from its parts; local IDs start at 1 (auto-increment)."""
    _check("shard", shard, MAX_SHARD)
    _check("type", type_id, MAX_TYPE, minimum=1)
    _check("local id", local_id, MAX_LOCAL, minimum=1)
    return (shard << SHARD_SHIFT) | (type_id << TYPE_SHIFT) | local_id


def decompose(object_id: int) -> ObjectId:
    """Split an ID into shard, type and local ID; reject IDs no object can have."""
    _check("id", object_id, MAX_ID, minimum=1)
    parts = ObjectId(
        shard=object_id >> SHARD_SHIFT,
        type_id=(object_id >> TYPE_SHIFT) & MAX_TYPE,
        local_id=object_id & MAX_LOCAL,
    )
    if parts.type_id == 0 or parts.local_id == 0:
        raise InvalidObjectId(f"{object_id} has no type or no local id")
    return parts


def shard_of(object_id: int) -> int:
    """The logical shard an object lives on. The bits are checked in place (routing and the
    feeds call it per entry); an ID no object can have goes to :func:`decompose`, whose error
    says what is wrong with it."""
    if (type(object_id) is int and 0 < object_id <= MAX_ID and object_id & MAX_LOCAL
            and (object_id >> TYPE_SHIFT) & MAX_TYPE):
        return object_id >> SHARD_SHIFT
    return decompose(object_id).shard


ID_DIGITS = len(str(MAX_ID))
"""The most decimal digits an ID has (19)."""


def parse_id(value: str | int, expected: ObjectType | None = None) -> int:
    """The one parser of IDs given as input (URLs, queries, bodies, command lines): an int,
    or 1 to :data:`ID_DIGITS` ASCII digits (spaces around them allowed), that an object can
    have, and with ``expected`` an ID of that type. Anything else is
    :class:`~sharding.exceptions.MalformedObjectId`.

    >>> parse_id("144959613005987841", BOARD)
    144959613005987841
    """
    number = None
    if type(value) is int:
        number = value
    elif (isinstance(value, str) and 0 < len(text := value.strip()) <= ID_DIGITS
          and text.isascii() and text.isdigit()):
        number = int(text)
    if number is not None:  # the bits checked in place: graph and feed calls are hot paths
        kind = (number >> TYPE_SHIFT) & MAX_TYPE
        if 0 < number <= MAX_ID and number & MAX_LOCAL and kind and (
                expected is None or kind == expected.type_id):
            return number
    shown = value[:40] + "..." if isinstance(value, str) and len(value) > 40 else value
    wanted = f"a {expected.name} ID" if expected is not None else "an object ID"
    raise MalformedObjectId(f"{shown!r} is not {wanted}")


@dataclass(frozen=True)
class ObjectType:
    """A kind of object: its type number (inside IDs), its name and its table on every shard
    (``stored=False``: a kind that only has IDs, such as an interest of the fixed taxonomy,
    and no table)."""

    type_id: int
    name: str
    table: str
    stored: bool = True


class TypeRegistry:
    """The object types known to this process, by number and by name."""

    def __init__(self) -> None:
        self._by_id: dict[int, ObjectType] = {}
        self._by_name: dict[str, ObjectType] = {}

    def register(self, object_type: ObjectType) -> ObjectType:
        """Add a type; registering the same type twice is allowed, a clash is not."""
        _check("type", object_type.type_id, MAX_TYPE, minimum=1)
        known = self._by_id.get(object_type.type_id) or self._by_name.get(object_type.name)
        if known is not None and known != object_type:
            raise ValueError(f"object type {object_type} clashes with {known}")
        self._by_id[object_type.type_id] = object_type
        self._by_name[object_type.name] = object_type
        return object_type

    def by_id(self, type_id: int) -> ObjectType:
        try:
            return self._by_id[type_id]
        except KeyError:
            raise UnknownObjectType(f"no object type has number {type_id}") from None

    def name_of(self, type_id: int) -> str | None:
        """The name of a registered type number (None when none has it)."""
        known = self._by_id.get(type_id)
        return known.name if known else None

    def by_name(self, name: str) -> ObjectType:
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownObjectType(f"no object type is called {name!r}") from None

    def all(self) -> list[ObjectType]:
        return sorted(self._by_id.values(), key=lambda t: t.type_id)


types = TypeRegistry()


def type_of(object_id: int) -> ObjectType:
    """The registered type of an object ID."""
    return types.by_id(decompose(object_id).type_id)


def expect_type(object_id: int, expected: ObjectType) -> ObjectId:
    """Decompose ``object_id`` and check that it is an ID of ``expected``'s type."""
    parts = decompose(object_id)
    if parts.type_id != expected.type_id:
        raise InvalidObjectId(f"{object_id} is not a {expected.name} id")
    return parts

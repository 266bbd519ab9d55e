"""Loading and re-storing one content object by ID. Every way an ID can be wrong (malformed,
wrong type, shard not open, no such object) becomes :class:`~pins.exceptions.NotFound`.

>>> board_id, data = load("144959613005987841", BOARD)
"""

from __future__ import annotations

from pins.domain import JSONObject
from pins.exceptions import NotFound
from sharding import ids, objects
from sharding.exceptions import ObjectNotFound, ShardNotOpen, UnknownObjectType
from sharding.ids import ObjectType


def checked_id(object_id: int | str, object_type: ObjectType) -> int:
    """``object_id`` as an integer ID of ``object_type``, or :class:`NotFound`."""
    try:
        value = ids.parse(object_id)
        ids.expect_type(value, object_type)
    except (ValueError, UnknownObjectType) as exc:
        raise NotFound(f"{object_id!r} is not a {object_type.name} ID.") from exc
    return value


def load(object_id: int | str, object_type: ObjectType) -> tuple[int, JSONObject]:
    """The checked ID and stored JSON of an object of ``object_type``, or :class:`NotFound`."""
    value = checked_id(object_id, object_type)
    try:
        data = objects.get(value)
    except ShardNotOpen as exc:
        raise NotFound(f"No {object_type.name} {value}: its shard is not open.") from exc
    if data is None:
        raise NotFound(f"No {object_type.name} {value}.")
    return value, data


def replace(object_id: int, object_type: ObjectType, data: JSONObject) -> None:
    """Store new JSON for an object; :class:`NotFound` if it was deleted in the meantime."""
    try:
        objects.update(object_id, data)
    except ObjectNotFound as exc:
        raise NotFound(f"No {object_type.name} {object_id}.") from exc

"""Loading and re-storing one content object by ID. An ID no object of the type can have is
:class:`~sharding.exceptions.MalformedObjectId` (400); one whose shard is not open or whose
object does not exist is :class:`~pins.exceptions.NotFound`.

>>> board_id, data = load("144959613005987841", BOARD)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pins.domain import JSONObject
from pins.exceptions import NotFound
from sharding import objects
from sharding.exceptions import ObjectNotFound, ShardNotOpen
from sharding.ids import ObjectType, parse_id


def load(object_id: int | str, object_type: ObjectType) -> tuple[int, JSONObject]:
    """The checked ID and stored JSON of an object of ``object_type``, or :class:`NotFound`."""
    value = parse_id(object_id, object_type)
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


Fields = dict[str, tuple[object | None, Callable[[Any], Any]]]


def edit(object_id: int, object_type: ObjectType, data: JSONObject, fields: Fields) -> JSONObject:
    """Clean each field of ``fields`` given (``(value, cleaner)``, value not None) into the
    object's JSON and store it; the JSON now stored. Nothing is written when nothing changes."""
    changed = dict(data)
    for key, (value, clean) in fields.items():
        if value is not None:
            changed[key] = clean(value)
    if changed != data:
        replace(object_id, object_type, changed)
    return changed

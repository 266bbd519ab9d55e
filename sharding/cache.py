"""Object and list caches, in separate django-redis pools, with versioned keys.

Objects are cached by ID (``o:<id>``) in the ``objects`` pool; the newest entries of a mapping
list (``l:<table>:<from_id>``) and its count (``n:<table>:<from_id>``) in the ``lists`` pool.
Writers invalidate after commit; readers fill on a miss (cache-aside). The key format version
is ``CACHE_VERSION``: bump it when an encoding changes and old entries are simply never read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.cache import BaseCache, caches

from sharding.conf import sharding_settings


def _objects() -> BaseCache:
    return caches[sharding_settings.OBJECT_CACHE]


def _lists() -> BaseCache:
    return caches[sharding_settings.LIST_CACHE]


def _version() -> int:
    return int(sharding_settings.CACHE_VERSION)


def object_key(object_id: int) -> str:
    return f"o:{object_id}"


def get_objects(ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """Cached objects among ``ids`` (misses are absent)."""
    keys = {object_key(object_id): object_id for object_id in ids}
    if not keys:
        return {}
    found = _objects().get_many(list(keys), version=_version())
    return {keys[key]: value for key, value in found.items()}


def put_objects(objects: dict[int, dict[str, Any]]) -> None:
    if objects:
        _objects().set_many({object_key(i): data for i, data in objects.items()},
                            version=_version())


def forget_object(object_id: int) -> None:
    _objects().delete(object_key(object_id), version=_version())


def list_key(table: str, from_id: int) -> str:
    return f"l:{table}:{from_id}"


def count_key(table: str, from_id: int) -> str:
    return f"n:{table}:{from_id}"


def get_list_head(table: str, from_id: int) -> list[tuple[int, int]] | None:
    """The cached newest ``(to_id, sequence)`` entries of a list, or ``None``."""
    value = _lists().get(list_key(table, from_id), version=_version())
    return None if value is None else [tuple(entry) for entry in value]  # type: ignore[misc]


def get_list_heads(table: str, from_ids: Iterable[int]) -> dict[int, list[tuple[int, int]]]:
    """The cached heads of several lists (one round trip); lists not cached are absent."""
    keys = {list_key(table, from_id): from_id for from_id in from_ids}
    if not keys:
        return {}
    found = _lists().get_many(list(keys), version=_version())
    return {keys[key]: [tuple(entry) for entry in value]  # type: ignore[misc]
            for key, value in found.items()}


def put_list_head(table: str, from_id: int, entries: list[tuple[int, int]]) -> None:
    _lists().set(list_key(table, from_id), entries, version=_version())


def get_count(table: str, from_id: int) -> int | None:
    value = _lists().get(count_key(table, from_id), version=_version())
    return None if value is None else int(value)


def put_count(table: str, from_id: int, count: int) -> None:
    _lists().set(count_key(table, from_id), count, version=_version())


def forget_list(table: str, from_id: int) -> None:
    _lists().delete_many([list_key(table, from_id), count_key(table, from_id)],
                         version=_version())

"""The object and list caches on the real cache Redis: a fill never brings back what a writer
invalidated after the fill's read, reads in a transaction never fill, and a cache that is down
only costs queries."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connections
from pytest_django import Settings

from pins.types import BOARD, BOARD_HAS_PINS, PIN
from sharding import cache, mappings, objects
from sharding.hosts import atomic
from sharding.ids import shard_of
from tests.sharding.helpers import queries_per_host

SHARD = 9


def test_a_fill_read_before_an_update_does_not_store_the_old_object() -> None:
    pin_id = objects.create(PIN, SHARD, {"title": "old"})
    found, misses = cache.get_objects([pin_id])  # a reader misses ...
    assert found == {}
    old = objects.get_many([pin_id], cached=False)  # ... and reads the shard,
    objects.update(pin_id, {"title": "new"})  # a writer commits and invalidates,
    cache.put_objects(misses, old)  # then the reader's fill arrives: it is refused
    assert objects.get(pin_id) == {"title": "new"}


def test_a_fill_read_before_a_delete_does_not_bring_the_object_back() -> None:
    pin_id = objects.create(PIN, SHARD, {"title": "doomed"})
    _, misses = cache.get_objects([pin_id])
    old = objects.get_many([pin_id], cached=False)
    assert objects.delete(pin_id)
    cache.put_objects(misses, old)
    assert objects.get(pin_id) is None


def test_a_fill_with_no_write_since_its_read_is_stored_and_served() -> None:
    pin_id = objects.create(PIN, SHARD, {"title": "steady"})
    objects.update(pin_id, {"title": "steady, edited"})  # the key has a stamp now
    assert objects.get(pin_id) == {"title": "steady, edited"}  # miss, fill
    with queries_per_host() as captured:
        assert objects.get(pin_id) == {"title": "steady, edited"}
    assert all(len(c.captured_queries) == 0 for c in captured.values())


def test_a_fill_long_after_its_read_stores_nothing() -> None:
    pin_id = objects.create(PIN, SHARD, {"title": "slow reader"})
    _, misses = cache.get_objects([pin_id])
    misses.read_at -= cache.STAMP_SECONDS  # the stamp it read may have expired since
    cache.put_objects(misses, objects.get_many([pin_id], cached=False))
    assert cache.get_objects([pin_id])[0] == {}


def test_a_list_head_read_before_an_add_does_not_hide_the_new_entry() -> None:
    board_id = objects.create(BOARD, SHARD, {"name": "race"})
    first, second = (objects.create(PIN, SHARD, {"n": n}) for n in range(2))
    mappings.add(BOARD_HAS_PINS, board_id, first, sequence=1)
    _, misses = cache.get_list_heads(BOARD_HAS_PINS.name, [board_id])
    stale = [(first, 1)]
    mappings.add(BOARD_HAS_PINS, board_id, second, sequence=2)
    cache.put_list_heads(misses, BOARD_HAS_PINS.name, {board_id: stale})
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [second, first]
    assert mappings.heads(BOARD_HAS_PINS, [board_id], 10)[board_id][0].to_id == second


def test_a_count_read_before_an_add_is_not_stored() -> None:
    board_id = objects.create(BOARD, SHARD, {"name": "count race"})
    pin_id = objects.create(PIN, SHARD, {"n": 0})
    _, misses = cache.get_counts(BOARD_HAS_PINS.name, [board_id])
    mappings.add(BOARD_HAS_PINS, board_id, pin_id)
    cache.put_counts(misses, BOARD_HAS_PINS.name, {board_id: 0})
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1


def test_reads_inside_a_rolled_back_transaction_leave_nothing_cached() -> None:
    board_id = objects.create(BOARD, SHARD, {"name": "rolled back"})
    pin_id = objects.create(PIN, SHARD, {"n": 0})

    class Abandon(Exception):
        pass

    with pytest.raises(Abandon), atomic(shard_of(board_id)):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=5)
        objects.update(pin_id, {"n": 1})
        assert mappings.page(BOARD_HAS_PINS, board_id).ids == [pin_id]  # its own write
        assert mappings.count(BOARD_HAS_PINS, board_id) == 1
        assert objects.get(pin_id) == {"n": 1}
        raise Abandon
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == []
    assert mappings.count(BOARD_HAS_PINS, board_id) == 0
    assert objects.get(pin_id) == {"n": 0}


def test_concurrent_readers_never_leave_an_old_version_cached() -> None:
    """Readers hammer one object while it is updated; once the writes stop, the cache holds
    the last version (without stamps, a reader's late fill often leaves an older one)."""
    pin_id = objects.create(PIN, SHARD, {"v": 0})
    stop = threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                objects.get(pin_id)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for version in range(1, 201):
            objects.update(pin_id, {"v": version})
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    assert errors == []
    assert objects.get(pin_id) == {"v": 200}


@pytest.fixture
def cache_down(settings: Settings) -> None:
    unreachable: dict[str, Any] = {"LOCATION": "redis://127.0.0.1:1/0"}
    settings.CACHES = {name: {**config, **unreachable} for name, config in settings.CACHES.items()}


def test_with_the_cache_down_objects_and_lists_are_read_and_written_from_the_shards(
        cache_down: None, caplog: pytest.LogCaptureFixture) -> None:
    board_id = objects.create(BOARD, SHARD, {"name": "no cache"})
    pin_id = objects.create(PIN, SHARD, {"n": 0})
    mappings.add(BOARD_HAS_PINS, board_id, pin_id)
    objects.update(pin_id, {"n": 1})
    assert objects.get(pin_id) == {"n": 1}
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [pin_id]
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1
    assert mappings.heads(BOARD_HAS_PINS, [board_id], 5)[board_id][0].to_id == pin_id
    assert "cache objects: invalidation failed, kept to send again" in caplog.text
    assert "cache lists: invalidation failed, kept to send again" in caplog.text


def _unreachable(settings: Settings) -> dict[str, Any]:
    return {name: {**config, "LOCATION": "redis://127.0.0.1:1/0"}
            for name, config in settings.CACHES.items()}


def test_an_invalidation_the_cache_failed_is_sent_before_the_next_read(
        settings: Settings) -> None:
    pin_id = objects.create(PIN, SHARD, {"title": "cached before the outage"})
    assert objects.get(pin_id) == {"title": "cached before the outage"}  # now in the cache
    reachable = settings.CACHES
    settings.CACHES = _unreachable(settings)
    objects.update(pin_id, {"title": "edited during the outage"})  # its invalidation fails
    settings.CACHES = reachable  # the cache answers again, still holding the old copy
    assert objects.get(pin_id) == {"title": "edited during the outage"}


def test_past_max_pending_failed_invalidations_the_pool_is_cleared(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_PENDING", 2)
    bystander = objects.create(PIN, SHARD, {"title": "unrelated"})
    edited = [objects.create(PIN, SHARD, {"n": n}) for n in range(3)]
    objects.get_many([bystander, *edited])
    assert set(cache.get_objects([bystander])[0]) == {bystander}
    reachable = settings.CACHES
    settings.CACHES = _unreachable(settings)
    for pin_id in edited:
        objects.update(pin_id, {"n": -1})
    settings.CACHES = reachable
    assert objects.get_many(edited) == {pin_id: {"n": -1} for pin_id in edited}
    assert cache.get_objects([bystander])[0] == {}  # the whole pool went


def test_cached_objects_and_counts_read_back_as_they_were_stored() -> None:
    board_id = objects.create(BOARD, SHARD, {"name": "read back", "tags": ["a", 1, None]})
    mappings.add(BOARD_HAS_PINS, board_id, objects.create(PIN, SHARD, {"n": 0}))
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1  # miss, fill: an integer
    assert objects.get(board_id) == {"name": "read back", "tags": ["a", 1, None]}  # a pickle
    assert cache.get_counts(BOARD_HAS_PINS.name, [board_id])[0] == {board_id: 1}
    assert cache.get_objects([board_id])[0] == {
        board_id: {"name": "read back", "tags": ["a", 1, None]}}


@pytest.mark.parametrize("options", [
    {"COMPRESSOR": "django_redis.compressors.zlib.ZlibCompressor"},
    {"SERIALIZER": "django_redis.serializers.json.JSONSerializer"},
])
def test_a_cache_that_compresses_or_serializes_otherwise_still_reads_back(
        settings: Settings, options: dict[str, str]) -> None:
    settings.CACHES = {name: {**config, "OPTIONS": {**config["OPTIONS"], **options}}
                       for name, config in settings.CACHES.items()}
    client = caches["objects"].client  # type: ignore[attr-defined]
    assert not cache._pickles_plainly(client)
    pin_id = objects.create(PIN, SHARD, {"title": "stored otherwise"})
    assert objects.get(pin_id) == {"title": "stored otherwise"}  # miss, fill
    assert cache.get_objects([pin_id])[0] == {pin_id: {"title": "stored otherwise"}}

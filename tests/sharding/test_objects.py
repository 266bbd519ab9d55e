"""Sharded objects on the real shard hosts: CRUD, placement, caching, one query per host."""

import pytest
from django.core.cache import caches

from pins.types import BOARD, PIN, USER
from sharding import ids, objects
from sharding.exceptions import InvalidObjectId, ObjectNotFound, ShardNotOpen
from sharding.hosts import atomic_on_host
from sharding.topology import current_map
from tests.sharding.helpers import queries_per_host, shards_on_every_host


def test_created_object_lives_on_the_requested_shard_and_reads_back() -> None:
    shard = current_map().open_shards()[-1]
    pin_id = objects.create(PIN, shard, {"title": "Quiche", "tags": ["egg"]})
    parts = ids.decompose(pin_id)
    assert (parts.shard, parts.type_id) == (shard, PIN.type_id)
    assert objects.get(pin_id) == {"title": "Quiche", "tags": ["egg"]}


def test_local_ids_come_from_the_shard_tables_auto_increment() -> None:
    shard = current_map().open_shards()[0]
    first = ids.decompose(objects.create(BOARD, shard, {"name": "a"})).local_id
    second = ids.decompose(objects.create(BOARD, shard, {"name": "b"})).local_id
    assert second > first >= 1


def test_unicode_text_survives_the_round_trip() -> None:
    shard = current_map().open_shards()[1]
    text = "Crème brûlée 🍮 — 焼き菓子"
    assert objects.get(objects.create(PIN, shard, {"title": text})) == {"title": text}


def test_update_replaces_the_json_and_the_cached_copy() -> None:
    pin_id = objects.create(PIN, 3, {"title": "old"})
    assert objects.get(pin_id) == {"title": "old"}
    objects.update(pin_id, {"title": "new"})
    assert objects.get(pin_id) == {"title": "new"}


def test_delete_removes_the_object_and_its_cached_copy() -> None:
    pin_id = objects.create(PIN, 4, {"title": "gone soon"})
    assert objects.get(pin_id) is not None
    assert objects.delete(pin_id) is True
    assert objects.get(pin_id) is None
    assert objects.delete(pin_id) is False


def test_updating_a_missing_object_raises_not_found() -> None:
    with pytest.raises(ObjectNotFound):
        objects.update(ids.compose(5, PIN.type_id, ids.MAX_LOCAL), {"title": "x"})


def test_a_missing_object_reads_as_none() -> None:
    assert objects.get(ids.compose(5, USER.type_id, ids.MAX_LOCAL)) is None


def test_creating_on_a_shard_that_is_not_open_fails_clearly() -> None:
    with pytest.raises(ShardNotOpen):
        objects.create(PIN, current_map().shard_count() + 10, {"title": "nowhere"})


def test_a_malformed_id_is_rejected_before_any_query() -> None:
    with pytest.raises(InvalidObjectId):
        objects.get(0)


def test_get_many_makes_one_query_per_host_for_50_objects_on_many_shards() -> None:
    shards = shards_on_every_host(per_host=10)
    pin_ids = [objects.create(PIN, shards[i % len(shards)], {"n": i}) for i in range(50)]
    caches["objects"].clear()
    with queries_per_host() as captured:
        found = objects.get_many(pin_ids)
    assert [found[pin_id]["n"] for pin_id in pin_ids] == list(range(50))
    per_host = {alias: len(c.captured_queries) for alias, c in captured.items()}
    assert {alias: n for alias, n in per_host.items() if n} == {
        master: 1 for master in current_map().masters()}


def test_get_many_makes_one_query_per_host_and_table_for_mixed_types() -> None:
    shards = shards_on_every_host(per_host=3)
    mixed = [objects.create(PIN if i % 2 else BOARD, shards[i % len(shards)], {"n": i})
             for i in range(12)]
    caches["objects"].clear()
    with queries_per_host() as captured:
        assert len(objects.get_many(mixed)) == 12
    assert sum(len(c.captured_queries) for c in captured.values()) == 2 * len(
        current_map().masters())


def test_get_many_serves_cached_objects_without_queries() -> None:
    pin_ids = [objects.create(PIN, shard, {"shard": shard})
               for shard in shards_on_every_host(per_host=2)]
    objects.get_many(pin_ids)
    with queries_per_host() as captured:
        assert len(objects.get_many(pin_ids)) == len(pin_ids)
    assert all(len(c.captured_queries) == 0 for c in captured.values())


def test_get_many_skips_missing_ids_and_keeps_the_requested_order() -> None:
    present = [objects.create(PIN, shard, {}) for shard in shards_on_every_host(per_host=2)]
    missing = ids.compose(2, PIN.type_id, ids.MAX_LOCAL)
    wanted = [present[2], missing, present[0]]
    assert list(objects.get_many(wanted)) == [present[2], present[0]]


def test_objects_made_together_get_their_ids_in_order() -> None:
    made = objects.create_many(PIN, 7, [{"n": n} for n in range(5)])
    assert [ids.decompose(pin_id).shard for pin_id in made] == [7] * 5
    assert made == sorted(made)
    assert [objects.get(pin_id) for pin_id in made] == [{"n": n} for n in range(5)]
    assert objects.create_many(PIN, 7, []) == []


ODD_TEXT = "it's \"quoted\" \\ back\\slashed; Crème 🍮 %s %(x)s"


def _host_shards(count: int) -> list[int]:
    shard_map = current_map()
    return shard_map.shards_of(shard_map.masters()[0])[:count]


def test_objects_made_on_a_hosts_shards_together_get_their_ids_by_shard_in_order() -> None:
    shards = _host_shards(3)
    datas = {shard: [{"n": n, "text": ODD_TEXT} for n in range(number + 1)]
             for number, shard in enumerate(shards)}
    with atomic_on_host(shards):  # the inserts go unanswered, read together
        made = objects.create_on_host(PIN, datas)
    assert list(made) == shards
    for shard in shards:
        assert [ids.decompose(pin_id).shard for pin_id in made[shard]] == [shard] * len(
            datas[shard])
        assert made[shard] == sorted(made[shard])
        assert [objects.get(pin_id) for pin_id in made[shard]] == datas[shard]


def test_objects_made_together_outside_a_transaction_each_wait_for_their_answer() -> None:
    shards = shards_on_every_host(per_host=1)  # on several hosts: no one transaction
    made = objects.create_on_host(BOARD, {shard: [{"name": ODD_TEXT}] for shard in shards})
    assert [objects.get(board_ids[0]) for board_ids in made.values()] == \
        [{"name": ODD_TEXT}] * len(shards)
    assert objects.create_on_host(BOARD, {shards[0]: []}) == {shards[0]: []}


def test_objects_made_together_go_with_a_rollback() -> None:
    shards = _host_shards(2)
    made: dict[int, list[int]] = {}
    with pytest.raises(RuntimeError), atomic_on_host(shards):
        made = objects.create_on_host(PIN, {shard: [{"n": 1}, {"n": 2}] for shard in shards})
        raise RuntimeError("rolled back")
    assert all(len(pin_ids) == 2 for pin_ids in made.values())
    assert objects.get_many([pin_id for pin_ids in made.values() for pin_id in pin_ids]) == {}

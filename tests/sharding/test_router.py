"""The Django database router maps shard and object hints to the master's alias."""

from django.db import router

from pins.types import PIN
from sharding import ids
from sharding.router import ShardRouter
from sharding.topology import current_map


def test_a_shard_hint_routes_to_the_master_of_its_range() -> None:
    shard_map = current_map()
    for shard in (0, shard_map.shard_count() - 1):
        assert router.db_for_write(None, shard=shard) == shard_map.master_for(shard)  # type: ignore[arg-type]
        assert router.db_for_read(None, shard=shard) == shard_map.master_for(shard)  # type: ignore[arg-type]


def test_an_object_id_hint_routes_to_the_master_of_the_objects_shard() -> None:
    shard_map = current_map()
    last = shard_map.shard_count() - 1
    object_id = ids.compose(last, PIN.type_id, 12)
    alias = router.db_for_read(None, object_id=object_id)  # type: ignore[arg-type]
    assert alias == shard_map.master_for(last)


def test_without_hints_the_router_has_no_opinion() -> None:
    assert ShardRouter().db_for_read(None) is None
    assert router.db_for_read(None) == "default"  # type: ignore[arg-type]


def test_migrations_never_run_on_shard_hosts() -> None:
    for master in current_map().hosts():
        assert ShardRouter().allow_migrate(master, "auth") is False
    assert ShardRouter().allow_migrate("default", "auth") is None

"""The shard map as a value: lookup, validation, promotion. No servers."""

import pytest

from sharding.exceptions import ShardMapError, ShardNotOpen
from sharding.shardmap import ShardMap, ShardRange

PAIRS = [("mysql001a", "mysql001b"), ("mysql002a", "mysql002b")]


def test_initial_map_splits_shards_evenly_over_the_pairs() -> None:
    shard_map = ShardMap.initial(4096, PAIRS)
    assert [r.to_json() for r in shard_map.ranges] == [
        {"range": [0, 2047], "master": "mysql001a", "replica": "mysql001b"},
        {"range": [2048, 4095], "master": "mysql002a", "replica": "mysql002b"},
    ]


def test_initial_map_gives_the_remainder_to_the_first_hosts() -> None:
    sizes = [r.size for r in ShardMap.initial(7, [("a", None), ("b", None), ("c", None)]).ranges]
    assert sizes == [3, 2, 2]


def test_master_for_finds_the_range_of_a_shard() -> None:
    shard_map = ShardMap.initial(4096, PAIRS)
    assert shard_map.master_for(0) == "mysql001a"
    assert shard_map.master_for(2047) == "mysql001a"
    assert shard_map.master_for(2048) == "mysql002a"
    assert shard_map.master_for(3429) == "mysql002a"


def test_a_shard_outside_every_range_is_not_open() -> None:
    with pytest.raises(ShardNotOpen):
        ShardMap.initial(4096, PAIRS).master_for(4096)


def test_overlapping_ranges_are_rejected() -> None:
    with pytest.raises(ShardMapError, match="overlaps"):
        ShardMap((ShardRange(0, 10, "a"), ShardRange(10, 20, "b")))


def test_a_host_cannot_be_its_own_replica() -> None:
    with pytest.raises(ShardMapError):
        ShardMap((ShardRange(0, 10, "a", "a"),))


def test_promotion_moves_every_range_of_the_master_to_its_replica() -> None:
    promoted = ShardMap.initial(4096, PAIRS).promoted("mysql001a")
    assert promoted.master_for(5) == "mysql001b"
    assert promoted.range_for(5).replica is None
    assert promoted.master_for(3000) == "mysql002a"


def test_promoting_a_master_without_replica_fails() -> None:
    promoted = ShardMap.initial(16, PAIRS).promoted("mysql001a")
    with pytest.raises(ShardMapError, match="no single replica"):
        promoted.promoted("mysql001b")


def test_promoting_an_unknown_host_fails() -> None:
    with pytest.raises(ShardMapError, match="not a master"):
        ShardMap.initial(16, PAIRS).promoted("mysql009a")


def test_the_map_round_trips_through_json() -> None:
    shard_map = ShardMap.initial(100, PAIRS)
    assert ShardMap.loads(shard_map.dumps(), version=4) == ShardMap(shard_map.ranges, 4)


@pytest.mark.parametrize("raw", [b"{}", b"[]", b"not json", b'{"ranges": [{"range": [1]}]}'])
def test_a_malformed_map_is_a_clear_error(raw: bytes) -> None:
    with pytest.raises(ShardMapError):
        ShardMap.loads(raw)

"""The vshard map as a value: initial placement, lookup, moves, promotion, validation."""

from __future__ import annotations

import pytest

from graph.exceptions import VShardMapError
from graph.vshardmap import VShardMap, VShardRange

PAIRS = [("redis001a", "redis001b"), ("redis002a", "redis002b")]


def _ranges(vshard_map: VShardMap) -> list[tuple[int, int, str]]:
    return [(r.first, r.last, r.master) for r in vshard_map.ranges]


def test_initial_map_splits_the_used_vshards_and_the_rest_evenly() -> None:
    assert _ranges(VShardMap.initial(8192, 64, PAIRS)) == [
        (0, 31, "redis001a"), (32, 63, "redis002a"),
        (64, 4127, "redis001a"), (4128, 8191, "redis002a")]


def test_initial_map_gives_every_pair_the_same_number_of_vshards() -> None:
    vshard_map = VShardMap.initial(8192, 4096, PAIRS)
    assert [len(vshard_map.vshards_of(m)) for m in vshard_map.masters()] == [4096, 4096]


def test_initial_map_with_every_shard_open_is_two_ranges() -> None:
    assert _ranges(VShardMap.initial(8192, 65536, PAIRS)) == [
        (0, 4095, "redis001a"), (4096, 8191, "redis002a")]


def test_master_for_finds_the_range_of_a_vshard() -> None:
    vshard_map = VShardMap.initial(8192, 64, PAIRS)
    assert [vshard_map.master_for(v) for v in (0, 31, 32, 63, 64, 8191)] == [
        "redis001a", "redis001a", "redis002a", "redis002a", "redis001a", "redis002a"]


def test_a_vshard_out_of_range_is_an_error() -> None:
    with pytest.raises(VShardMapError, match="out of"):
        VShardMap.initial(8192, 64, PAIRS).master_for(8192)


def test_homed_moves_a_range_splitting_and_merging_neighbours() -> None:
    moved = VShardMap.initial(8192, 64, PAIRS).homed(10, 40, "redis003a", None)
    assert _ranges(moved) == [(0, 9, "redis001a"), (10, 40, "redis003a"),
                              (41, 63, "redis002a"), (64, 4127, "redis001a"),
                              (4128, 8191, "redis002a")]
    back = moved.homed(10, 31, "redis001a", "redis001b").homed(32, 40, "redis002a", "redis002b")
    assert back.ranges == VShardMap.initial(8192, 64, PAIRS).ranges


def test_promoted_hands_every_range_of_the_master_to_its_replica() -> None:
    promoted = VShardMap.initial(8192, 64, PAIRS).promoted("redis001a", None)
    assert promoted.masters() == ["redis001b", "redis002a"]
    assert promoted.replica_of("redis001b") is None
    assert promoted.vshards_of("redis001b")[:2] == [0, 1]


def test_promoting_a_master_without_replica_is_refused() -> None:
    vshard_map = VShardMap((VShardRange(0, 8191, "redis001a"),))
    with pytest.raises(VShardMapError, match="no single replica"):
        vshard_map.promoted("redis001a", None)


def test_a_gap_between_ranges_is_rejected() -> None:
    with pytest.raises(VShardMapError, match="gap"):
        VShardMap((VShardRange(0, 10, "a"), VShardRange(12, 8191, "b")))


def test_overlapping_ranges_are_rejected() -> None:
    with pytest.raises(VShardMapError, match="overlaps"):
        VShardMap((VShardRange(0, 10, "a"), VShardRange(10, 8191, "b")))


def test_an_instance_cannot_be_its_own_replica() -> None:
    with pytest.raises(VShardMapError, match="own replica"):
        VShardMap((VShardRange(0, 8191, "a", "a"),))


def test_the_map_survives_a_json_round_trip_with_its_version() -> None:
    vshard_map = VShardMap.initial(8192, 64, PAIRS)
    loaded = VShardMap.loads(vshard_map.dumps(), version=7)
    assert loaded.ranges == vshard_map.ranges and loaded.version == 7


def test_malformed_json_is_a_map_error() -> None:
    with pytest.raises(VShardMapError, match="malformed"):
        VShardMap.loads(b'{"ranges": [{"range": [0]}]}')


def test_with_replica_names_the_standby_of_every_range_of_a_master() -> None:
    vshard_map = VShardMap.initial(8192, 64, PAIRS).promoted("redis001a", None)
    attached = vshard_map.with_replica("redis001b", "redis001a")
    assert {r.replica for r in attached.ranges_of("redis001b")} == {"redis001a"}


def test_a_master_cannot_become_a_replica_in_the_map() -> None:
    with pytest.raises(VShardMapError, match="is a master"):
        VShardMap.initial(8192, 64, PAIRS).with_replica("redis001a", "redis002a")

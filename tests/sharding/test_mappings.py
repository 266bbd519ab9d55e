"""Mapping tables on the real shard hosts: edges, counts and newest-first cursor pages."""

from collections.abc import Iterable

import pytest

from pins.types import BOARD, BOARD_HAS_PINS, PIN
from sharding import ids, mappings, objects
from sharding.conf import sharding_settings
from sharding.exceptions import InvalidObjectId, ShardingError
from sharding.hosts import alias_for_shard, atomic
from sharding.mappings import Edges, InvalidCursor, MappingTable
from tests.sharding.helpers import queries_per_host


@pytest.fixture
def board_id() -> int:
    return objects.create(BOARD, 7, {"name": "mapping test"})


def _pins(count: int, shard: int = 7) -> list[int]:
    return [objects.create(PIN, shard, {"n": n}) for n in range(count)]


def test_an_added_edge_is_contained_and_counted(board_id: int) -> None:
    pin_id = _pins(1)[0]
    assert mappings.add(BOARD_HAS_PINS, board_id, pin_id) is True
    assert mappings.contains(BOARD_HAS_PINS, board_id, pin_id)
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1


def test_adding_an_edge_twice_keeps_one_edge_and_its_first_sequence(board_id: int) -> None:
    pin_id = _pins(1)[0]
    assert mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=100)
    assert mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=200) is False
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, pin_id) == 100
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1


def test_removing_an_edge_updates_the_count_and_the_first_page(board_id: int) -> None:
    first, second = _pins(2)
    mappings.add(BOARD_HAS_PINS, board_id, first, sequence=1)
    mappings.add(BOARD_HAS_PINS, board_id, second, sequence=2)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [second, first]
    assert mappings.remove(BOARD_HAS_PINS, board_id, second) is True
    assert mappings.remove(BOARD_HAS_PINS, board_id, second) is False
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [first]
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1


def test_pages_walk_the_list_newest_first_without_gaps_or_repeats(board_id: int) -> None:
    pin_ids = _pins(120)
    for sequence, pin_id in enumerate(pin_ids):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=1000 + sequence // 3)
    seen, cursor, sizes = [], None, []
    while True:
        page = mappings.page(BOARD_HAS_PINS, board_id, limit=50, after=cursor)
        seen += page.items
        sizes.append(len(page.items))
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert sizes == [50, 50, 20]
    assert sorted(e.to_id for e in seen) == sorted(pin_ids)
    keys = [(e.sequence, e.to_id) for e in seen]
    assert keys == sorted(keys, reverse=True)


def test_iterate_returns_every_entry_newest_first(board_id: int) -> None:
    pin_ids = _pins(30)
    for sequence, pin_id in enumerate(pin_ids):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=sequence)
    assert [e.to_id for e in mappings.iterate(BOARD_HAS_PINS, board_id, chunk=7)] == pin_ids[::-1]


def test_a_new_edge_appears_on_a_cached_first_page(board_id: int) -> None:
    first, second = _pins(2)
    mappings.add(BOARD_HAS_PINS, board_id, first)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [first]
    mappings.add(BOARD_HAS_PINS, board_id, second)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [second, first]
    assert mappings.count(BOARD_HAS_PINS, board_id) == 2


def test_the_mapping_lives_on_the_shard_of_its_from_id() -> None:
    board_id = objects.create(BOARD, 9, {})
    pin_on_other_shard = objects.create(PIN, 40, {})
    mappings.add(BOARD_HAS_PINS, board_id, pin_on_other_shard)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [pin_on_other_shard]


@pytest.mark.parametrize("cursor", ["garbage!", "bm90LWEtY3Vyc29y", ""])
def test_a_forged_cursor_is_a_clear_error(board_id: int, cursor: str) -> None:
    with pytest.raises(InvalidCursor):
        mappings.page(BOARD_HAS_PINS, board_id, after=cursor)


@pytest.mark.parametrize("limit", [0, -1, mappings.MAX_PAGE + 1])
def test_an_out_of_range_page_size_is_a_clear_error(board_id: int, limit: int) -> None:
    with pytest.raises(InvalidCursor):
        mappings.page(BOARD_HAS_PINS, board_id, limit=limit)


def test_ids_of_the_wrong_type_are_rejected(board_id: int) -> None:
    pin_id = _pins(1)[0]
    with pytest.raises(InvalidObjectId):
        mappings.add(BOARD_HAS_PINS, pin_id, board_id)
    with pytest.raises(InvalidObjectId):
        mappings.add(BOARD_HAS_PINS, board_id, ids.compose(7, 999, 1))


def test_clear_removes_the_whole_list_and_its_cached_head(board_id: int) -> None:
    for pin_id in _pins(3):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id)
    assert mappings.count(BOARD_HAS_PINS, board_id) == 3
    assert mappings.clear(BOARD_HAS_PINS, board_id) == 3
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == []
    assert mappings.count(BOARD_HAS_PINS, board_id) == 0


def test_find_edges_reads_targets_and_ranges_of_many_lists_with_one_query_per_host(
        board_id: int) -> None:
    low, middle, high = _pins(3)
    for sequence, pin_id in enumerate((low, middle, high), start=10):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=sequence)
    far = next(shard for shard in range(sharding_settings.SHARD_COUNT)
               if alias_for_shard(shard) != alias_for_shard(7))
    other = objects.create(BOARD, far, {"name": "on the other host"})
    mappings.add(BOARD_HAS_PINS, other, low, sequence=5)
    with queries_per_host() as queries:
        found = mappings.find_edges([
            Edges(BOARD_HAS_PINS, board_id, between=(middle, high)),
            Edges(BOARD_HAS_PINS, board_id, between=(high + 1, high + 9)),
            Edges(BOARD_HAS_PINS, board_id, to_ids=(low, high + 1, low)),
            Edges(BOARD_HAS_PINS, other, to_ids=(low, middle)),
            Edges(BOARD_HAS_PINS, other)])  # nothing asked: no query
    assert found == [{middle: 11, high: 12}, {}, {low: 10}, {low: 5}, {}]
    assert {alias: len(captured) for alias, captured in queries.items() if len(captured)} == {
        alias_for_shard(7): 1, alias_for_shard(far): 1}


def test_counts_of_many_lists_are_one_query_per_host_for_those_not_cached(
        board_id: int) -> None:
    far = next(shard for shard in range(sharding_settings.SHARD_COUNT)
               if alias_for_shard(shard) != alias_for_shard(7))
    other, empty, cached = (objects.create(BOARD, shard, {"name": "counted"})
                            for shard in (far, 7, far))
    for owner, count in ((board_id, 3), (other, 2), (cached, 1)):
        for sequence, pin_id in enumerate(_pins(count), start=1):
            mappings.add(BOARD_HAS_PINS, owner, pin_id, sequence=sequence)
    assert mappings.count(BOARD_HAS_PINS, cached) == 1  # now in the cache
    with queries_per_host() as queries:
        found = mappings.counts(BOARD_HAS_PINS, [board_id, other, empty, cached, board_id])
    assert found == {board_id: 3, other: 2, empty: 0, cached: 1}
    assert {alias: len(captured) for alias, captured in queries.items() if len(captured)} == {
        alias_for_shard(7): 1, alias_for_shard(far): 1}
    with queries_per_host() as queries:  # all of them cached by the read above
        assert mappings.counts(BOARD_HAS_PINS, [board_id, other, empty]) == {
            board_id: 3, other: 2, empty: 0}
    assert not any(queries.values())
    mappings.add(BOARD_HAS_PINS, other, _pins(1)[0], sequence=9)
    assert mappings.counts(BOARD_HAS_PINS, [other, empty]) == {other: 3, empty: 0}


def test_edges_removed_together_leave_the_others_and_no_stale_head(board_id: int) -> None:
    first, second, third = _pins(3)
    for sequence, pin_id in enumerate((first, second, third)):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id, sequence=sequence)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [third, second, first]  # cached
    with atomic(7):  # sent unanswered in a transaction, and the head forgotten at the commit
        mappings.remove_many(BOARD_HAS_PINS, [(board_id, third), (board_id, first),
                                              (board_id, _pins(1)[0])])
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [second]
    mappings.remove_many(BOARD_HAS_PINS, [(board_id, second)])  # outside one: at once
    assert mappings.count(BOARD_HAS_PINS, board_id) == 0


def test_held_answers_for_several_lists_of_one_owner_in_one_query(board_id: int) -> None:
    kept, gone, never = _pins(3)
    mappings.add(BOARD_HAS_PINS, board_id, kept)
    mappings.add(BOARD_HAS_PINS, board_id, gone)
    mappings.remove(BOARD_HAS_PINS, board_id, gone)
    with queries_per_host() as queries:
        found = mappings.held(board_id, [(BOARD_HAS_PINS, [kept, gone, never]),
                                         (BOARD_HAS_PINS, [never, kept]), (BOARD_HAS_PINS, [])])
    assert found == [{kept}, {kept}, set()]
    assert {alias: len(captured) for alias, captured in queries.items() if len(captured)} == {
        alias_for_shard(7): 1}


def test_a_scan_walks_a_shards_table_in_key_order_filtered_by_target() -> None:
    board = objects.create(BOARD, 11, {})
    near, far = _pins(3, shard=11), _pins(2, shard=12)
    for pin_id in near + far:
        mappings.add(BOARD_HAS_PINS, board, pin_id)

    def mine(rows: Iterable[tuple[int, int, int]]) -> list[int]:
        return [to_id for from_id, to_id, _ in rows if from_id == board]

    assert mine(mappings.scan(BOARD_HAS_PINS, 11, chunk=100)) == sorted(near + far)
    assert mine(mappings.scan(BOARD_HAS_PINS, 11, to_ids=far[:1] + near[:1], chunk=1)) == \
        sorted(far[:1] + near[:1])
    assert mine(mappings.scan(BOARD_HAS_PINS, 11, to_shards=[12], chunk=2)) == sorted(far)
    assert all(ids.decompose(to_id).shard == 12
               for _, to_id, _ in mappings.scan(BOARD_HAS_PINS, 11, to_shards=[12]))


def test_edges_added_together_keep_their_sequences_and_leave_no_stale_head(
        board_id: int) -> None:
    first, second, third = _pins(3)
    mappings.add(BOARD_HAS_PINS, board_id, first, sequence=1)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [first]  # the head is cached
    with atomic(7):  # sent unanswered in a transaction, and the head forgotten at the commit
        mappings.add_many(BOARD_HAS_PINS, [(board_id, second, 30), (board_id, third, 20),
                                           (board_id, first, 99)])
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [second, third, first]
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, first) == 1  # kept
    assert mappings.count(BOARD_HAS_PINS, board_id) == 3


def test_a_failed_edge_sent_unanswered_fails_its_transaction(board_id: int) -> None:
    pin_id = _pins(1)[0]
    missing = MappingTable("board_lacks_pins", BOARD, PIN)  # no such table on the shards
    with pytest.raises(ShardingError, match="board_lacks_pins"), atomic(7):
        mappings.add(BOARD_HAS_PINS, board_id, pin_id)
        mappings.add_many(missing, [(board_id, pin_id, 1)])
        objects.create(PIN, 7, {})  # the next statement reads the answer owed
    assert not mappings.contains(BOARD_HAS_PINS, board_id, pin_id)  # rolled back


def test_edges_sent_unanswered_go_with_a_rollback(board_id: int) -> None:
    first, second = _pins(2)
    mappings.add(BOARD_HAS_PINS, board_id, first)
    with pytest.raises(RuntimeError), atomic(7):
        mappings.add_many(BOARD_HAS_PINS, [(board_id, second, 5)])
        raise RuntimeError("rolled back")
    assert not mappings.contains(BOARD_HAS_PINS, board_id, second)
    assert mappings.page(BOARD_HAS_PINS, board_id).ids == [first]

"""Pools on the real pools cluster: best first by score, capped by trims, emptied by the
generator's removals; affinities and state in the meta row."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_django import Settings
from thriftpy2.thrift import TClient

from feed.smart import pools
from feed.smart.pools import Insert
from feed.smart.schema import ENTRY, SOURCES, Source, affinity_column, pool_prefix
from feed.smart.scoring import score
from feed.store import rows
from feed.store.pools import POOLS
from tests.feed.helpers import new_user
from toolkit.clock import now_us

HOUR = 3_600_000_000


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.floats(0.05, 5.0), st.integers(0, 72 * HOUR)), min_size=1,
                max_size=40))
def test_a_pool_returns_its_entries_best_first(entries: list[tuple[float, int]]) -> None:
    user, now = new_user("sfp"), now_us()
    inserts = [Insert(user, "interests", pin, q, now - age)
               for pin, (q, age) in enumerate(entries, start=1)]
    pools.insert(inserts)
    found = pools.best(user, "interests", 100)
    expected = sorted(inserts, key=lambda e: (-score(e.quality, e.created_us, now, 24.0),
                                              e.pin_id))
    scores = [score(c.quality, c.created_us, now, 24.0) for c in found]
    assert sorted(c.pin_id for c in found) == sorted(e.pin_id for e in inserts)
    assert all(a >= b * (1 - 1e-9) for a, b in itertools.pairwise(scores))
    assert found[0].pin_id in {e.pin_id for e in expected
                               if score(e.quality, e.created_us, now, 24.0)
                               >= scores[0] * (1 - 1e-9)}
    assert pools.best(user, "following", 10) == []


def test_a_full_pool_is_trimmed_to_its_best(settings: Settings) -> None:
    settings.PINSITE_SMARTFEED = {"POOL_CAP": 5, "POOL_SLACK": 3}
    user, now = new_user("sfp"), now_us()
    rng = random.Random(4)
    inserts = [Insert(user, "related", pin, rng.uniform(0.1, 3), now) for pin in range(1, 8)]
    assert pools.insert(inserts) == []
    due = pools.insert([Insert(user, "related", 100, 0.01, now)])
    assert due == [(user, "related")]
    assert pools.trim(user, "related") == 3
    kept = [c.pin_id for c in pools.best(user, "related", 100)]
    best_five = [e.pin_id for e in sorted(inserts, key=lambda e: -e.quality)[:5]]
    assert kept == best_five
    assert pools.sizes(user)["related"] == 5


def test_removed_entries_leave_the_pool_and_its_count() -> None:
    user, now = new_user("sfp"), now_us()
    pools.insert([Insert(user, "following", pin, 1.0, now - pin) for pin in (1, 2, 3)])
    taken = pools.best(user, "following", 2)
    assert pools.remove(c.key for c in taken) == 2
    assert [c.pin_id for c in pools.best(user, "following", 10)] == [3]
    assert pools.sizes(user)["following"] == 1


def test_affinities_add_up_per_column() -> None:
    user, other = new_user("sfp"), new_user("sfp")
    pools.add_affinity(user, {("p", 11): 5, ("b", 12): 3})
    pools.add_affinity(user, {("p", 11): 3})
    columns = [affinity_column("p", 11), affinity_column("b", 12)]
    found = pools.counts([user, other], columns)
    assert {u: c.total(columns) for u, c in found.items()} == {user: 11, other: 0}
    assert found[user].points == {columns[0]: 8, columns[1]: 3}
    assert pools.all_affinities(user) == {"p:11": 8, "b:12": 3}


def test_an_insert_puts_its_pools_sizes_with_its_entries(monkeypatch: pytest.MonkeyPatch,
                                                        ) -> None:
    user, now = new_user("sfp"), now_us()
    pools.insert([Insert(user, "related", pin, 1.0, now) for pin in range(1, 4)])
    calls = _thrift_calls(monkeypatch)
    both: list[Source] = ["related", "interests"]
    pools.insert([Insert(user, source, 9, 1.0, now) for source in both])
    assert calls == {"getRowsWithColumns": 1, "mutateRows": 1}  # the sizes read, one batch
    assert pools.sizes(user) == {**dict.fromkeys(SOURCES, 0), "related": 4, "interests": 1}
    pools.remove([Insert(user, "related", 1, 1.0, now).key()])  # removals subtract
    pools.insert([Insert(user, "related", 10, 1.0, now)])
    assert pools.sizes(user)["related"] == 4


def test_an_insert_counted_before_writes_in_two_calls_and_finds_full_pools(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the sizes read before (beside the affinities its entries were scored by), an
    insert is a put and one increment that also adds the affinity points; the pools it
    finds due a trim are those the counters then reach."""
    settings.PINSITE_SMARTFEED = {"POOL_CAP": 5, "POOL_SLACK": 3}
    user, other, now = new_user("sfp"), new_user("sfp"), now_us()
    pools.insert([Insert(user, "related", pin, 1.0, now) for pin in range(1, 7)])
    column = affinity_column("b", 12)
    counted = pools.counts([user, other], [column])
    assert counted[user].sizes["related"] == 6 and counted[other].sizes["related"] == 0
    calls = _thrift_calls(monkeypatch)
    due = pools.insert([Insert(u, "related", 100 + n, 1.0, now) for u in (user, other)
                        for n in range(2)],
                       {u: c.sizes for u, c in counted.items()}, {user: {("b", 12): 4}})
    assert calls == {"mutateRows": 1, "incrementRows": 1}
    assert due == [(user, "related")]
    assert pools.sizes(user)["related"] == 8 and pools.sizes(other)["related"] == 2
    assert pools.affinity_points(user, [column]) == {column: 4}


def test_points_alone_are_one_increment(monkeypatch: pytest.MonkeyPatch) -> None:
    user = new_user("sfp")
    calls = _thrift_calls(monkeypatch)
    assert pools.insert([], {}, {user: {("p", 7): 5}}) == []
    assert calls == {"incrementRows": 1}
    assert pools.all_affinities(user) == {"p:7": 5}


def test_a_take_removes_and_writes_the_state_in_one_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    user, now = new_user("sfp"), now_us()
    pools.insert([Insert(user, "following", pin, 1.0, now - pin) for pin in (1, 2, 3)])
    taken = pools.best(user, "following", 2)
    calls = _thrift_calls(monkeypatch)
    assert pools.take(user, [c.key for c in taken], {"last_at_us": now}) == 2
    assert calls == {"mutateRows": 1, "incrementRows": 1}
    assert [c.pin_id for c in pools.best(user, "following", 10)] == [3]
    assert pools.read_meta(user) == pools.Meta({"last_at_us": now},
                                               {**dict.fromkeys(SOURCES, 0), "following": 1})


def _thrift_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The Thrift calls this process makes from now on, by name."""
    calls: Counter[str] = Counter()
    request = TClient._req

    def counted(self: TClient, api: str, *args: object, **kwargs: object) -> object:
        calls[api] += 1
        return request(self, api, *args, **kwargs)

    monkeypatch.setattr(TClient, "_req", counted)
    return calls


def _filled(user: int, per_source: dict[Source, int]) -> list[Insert]:
    now = now_us()
    inserts = [Insert(user, source, 1000 * n + pin, 0.1 + pin / 10, now - pin)
               for n, (source, count) in enumerate(per_source.items())
               for pin in range(count)]
    pools.insert(inserts)
    return inserts


@pytest.mark.parametrize("per_source", [
    {"following": 3, "repins": 0, "interests": 12, "related": 1},
    {"following": 0, "repins": 0, "interests": 0, "related": 0},
    {"following": 7, "repins": 7, "interests": 7, "related": 7},
])
def test_small_pools_are_read_by_one_scan_of_three_calls(
        per_source: dict[Source, int], monkeypatch: pytest.MonkeyPatch) -> None:
    user = new_user("sfp")
    _filled(user, per_source)
    expected = {source: pools.best(user, source, 5) for source in SOURCES}
    meta = pools.read_meta(user)
    assert meta.sizes == {source: per_source[source] for source in SOURCES}
    calls = _thrift_calls(monkeypatch)
    assert pools.best_of_each(user, 5, meta.sizes) == expected
    assert calls == {"scannerOpenWithScan": 1, "scannerGetList": 1, "scannerClose": 1}


def test_pools_counted_short_are_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counters that say less than the pools hold cost another scan of the pools the first
    one may have cut, never entries."""
    user = new_user("sfp")
    _filled(user, {"following": 9, "repins": 2, "interests": 6, "related": 4})
    expected = {source: pools.best(user, source, 5) for source in SOURCES}
    calls = _thrift_calls(monkeypatch)
    assert pools.best_of_each(user, 5, dict.fromkeys(SOURCES, 0)) == expected
    assert calls["scannerOpenWithScan"] > 1


@pytest.mark.parametrize(("per_source", "scans"), [
    ({"following": 9, "repins": 0, "interests": 1, "related": 2}, 2),
    ({"following": 1, "repins": 20, "interests": 2, "related": 0}, 2),
    ({"following": 6, "repins": 4, "interests": 9, "related": 5}, 3),
])
def test_a_large_pool_ends_its_scan(per_source: dict[Source, int], scans: int,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool counted beyond the entries asked for is read no further than them: the next
    pool starts a scan of its own."""
    monkeypatch.setattr(pools, "TOGETHER_SLACK", 0)
    user = new_user("sfp")
    _filled(user, per_source)
    expected = {source: pools.best(user, source, 4) for source in SOURCES}
    sizes = pools.read_meta(user).sizes
    calls = _thrift_calls(monkeypatch)
    assert pools.best_of_each(user, 4, sizes) == expected
    assert calls["scannerOpenWithScan"] == scans


@pytest.mark.parametrize(("entries", "limit", "batch", "batches"), [
    (5, None, 2, 3), (6, 6, 3, 2), (6, 4, 3, 2), (2, 10, 1000, 1), (0, 3, 1000, 1)])
def test_a_scan_reads_its_rows_in_batches_and_stops_at_a_short_one(
        entries: int, limit: int | None, batch: int, batches: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    user = new_user("sfp")
    keys = sorted(insert.key() for insert in _filled(user, {"related": entries}))
    calls = _thrift_calls(monkeypatch)
    found = rows.scan(POOLS, pools.pools_table(), pool_prefix(user, "related"), [ENTRY],
                      limit=limit, batch_size=batch)
    assert [key for key, _ in found] == keys[:limit]
    assert all(cells.keys() == {ENTRY} for _, cells in found)
    assert calls == {"scannerOpenWithScan": 1, "scannerGetList": batches, "scannerClose": 1}


def test_sizes_an_insert_was_not_given_are_read_not_taken_for_zero(
        monkeypatch: pytest.MonkeyPatch) -> None:
    user, other, now = new_user("sfp"), new_user("sfp"), now_us()
    pools.insert([Insert(u, "related", pin, 1.0, now) for u in (user, other) for pin in (1, 2)])
    known = pools.counts([user], [], ["related"])
    calls = _thrift_calls(monkeypatch)
    both: list[Source] = ["related", "interests"]
    pools.insert([Insert(u, source, 7, 1.0, now) for u in (user, other) for source in both],
                 {u: found.sizes for u, found in known.items()})
    assert calls == {"getRowsWithColumns": 1, "mutateRows": 1}  # the sizes it lacked, one batch
    for u in (user, other):
        assert pools.sizes(u) == {**dict.fromkeys(SOURCES, 0), "related": 3, "interests": 1}

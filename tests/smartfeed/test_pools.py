"""Pools on the real pools cluster: best first by score, capped by trims, emptied by the
generator's removals; affinities and state in the meta row."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_django import Settings

from feed.smart import pools
from feed.smart.pools import Insert
from feed.smart.schema import affinity_column
from feed.smart.scoring import score
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
    assert pools.affinities([user, other], columns) == {user: 11, other: 0}
    assert pools.all_affinities(user) == {"p:11": 8, "b:12": 3}

"""Scoring and mixing against a small reference model (hypothesis): the pools' fixed keys sort
as the scores do at any later time, quotas are a fair apportionment of the chunk, and a mix
takes each source's best, drops what fell under the threshold and orders best first."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from feed.smart.schema import SOURCES
from feed.smart.scoring import Candidate, mix, quality, quotas, rank_key, score

HALF_LIFE = 24.0
HOUR = 3_600_000_000
NOW = 1_800_000_000_000_000
RATES = {"following": 0.4, "repins": 0.25, "interests": 0.2, "related": 0.15}

qualities = st.floats(min_value=0.01, max_value=10.0, allow_nan=False)
ages = st.integers(min_value=0, max_value=30 * 24 * HOUR)
candidate = st.builds(lambda source, pin, q, age: Candidate(source, pin, q, NOW - age),
                      st.sampled_from(SOURCES), st.integers(1, 40), qualities, ages)


@given(st.lists(st.tuples(qualities, ages), min_size=2, max_size=30),
       st.integers(min_value=0, max_value=90 * 24 * HOUR))
def test_pool_keys_sort_as_scores_do_at_any_later_time(entries: list[tuple[float, int]],
                                                       later: int) -> None:
    now = NOW + later
    by_key = sorted(entries, key=lambda e: rank_key(e[0], NOW - e[1], HALF_LIFE))
    scores = [score(q, NOW - age, now, HALF_LIFE) for q, age in by_key]
    for better, worse in itertools.pairwise(scores):
        assert better >= worse * (1 - 1e-6)


@given(st.sampled_from(SOURCES), st.integers(0, 100), st.integers(0, 10_000))
def test_quality_grows_with_affinity_and_repins(source: str, points: int, repins: int) -> None:
    weights = {name: 1.0 for name in SOURCES}
    base = quality(source, points, repins, weights)  # type: ignore[arg-type]
    assert 1.0 <= base < 2.0 * (1 + math.log1p(repins) / 4)
    assert quality(source, points + 1, repins, weights) > base  # type: ignore[arg-type]
    assert quality(source, points, repins + 1, weights) > base  # type: ignore[arg-type]


@given(st.integers(0, 60), st.fixed_dictionaries({s: st.integers(0, 50) for s in SOURCES}))
def test_quotas_are_a_fair_apportionment(size: int, available: dict[str, int]) -> None:
    seats = quotas(size, RATES, available)
    assert sum(seats.values()) == min(size, sum(available.values()))
    assert all(0 <= seats[s] <= available[s] for s in SOURCES)
    target = {s: size * RATES[s] for s in SOURCES}
    for short in SOURCES:  # no seat could move to a source further below its share
        if seats[short] >= available[short]:
            continue
        for rich in SOURCES:
            if rich != short and seats[rich] > 0:
                assert target[short] - seats[short] <= target[rich] - (seats[rich] - 1) + 1e-9


@settings(max_examples=300)
@given(st.lists(candidate, max_size=40), st.integers(0, 25),
       st.floats(min_value=0.0, max_value=2.0))
def test_a_mix_matches_the_reference_model(found: list[Candidate], size: int,
                                           threshold: float) -> None:
    def value(c: Candidate) -> float:
        return score(c.quality, c.created_us, NOW, HALF_LIFE)

    pools: dict[str, list[Candidate]] = {
        s: sorted([c for c in found if c.source == s], key=lambda c: -value(c)) for s in SOURCES}
    result = mix(pools, size, RATES, NOW, threshold, HALF_LIFE)
    # Reference: drop under the threshold; each pin once, from its best entry.
    alive = [c for c in found if value(c) >= threshold]
    best: dict[int, float] = {}
    for c in alive:
        best[c.pin_id] = max(best.get(c.pin_id, 0.0), value(c))
    assert {id(c) for c in result.dropped} == {id(c) for c in found if value(c) < threshold}
    picked = [c.pin_id for c in result.picks]
    assert len(picked) == len(set(picked)) == min(size, len(best))
    assert all(value(c) == best[c.pin_id] for c in result.picks)
    assert [value(c) for c in result.picks] == sorted((value(c) for c in result.picks),
                                                      reverse=True)
    owner: dict[int, Candidate] = {}  # a pin's entry: its best, the first source on ties
    for source in SOURCES:
        for c in pools[source]:
            if value(c) >= threshold and value(c) == best[c.pin_id]:
                owner.setdefault(c.pin_id, c)
    assert all(owner[c.pin_id] is c for c in result.picks)
    for source in SOURCES:
        mine = [c for c in result.picks if c.source == source]
        assert len(mine) == result.quotas[source]
        offered = sorted((value(c) for c in owner.values() if c.source == source),
                         reverse=True)
        assert sorted((value(c) for c in mine), reverse=True) == offered[:len(mine)]
    assert {c.pin_id for c in result.taken} == set(picked)

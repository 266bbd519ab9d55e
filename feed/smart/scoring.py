"""Scoring and mixing: pure, deterministic functions (no I/O, no clock).

**Quality** of a pin for a user, from one source::

    quality = weight(source) * (1 + affinity) * (1 + ln(1 + repins) / 4)
    affinity = 1 - exp(-points / 10)      (0 ≤ affinity < 1)

``points`` are the user's affinity points to the pin's pinner, board and interest: 3 for each
pin the user saved from them, 5 for following them (taken back on unfollow).

**Recency** halves a score every ``half_life`` (24 h by default)::

    score(now) = quality * 2^(-(now - created) / half_life)

Pools need one fixed key per entry that sorts like ``score(now)`` at *every* ``now``. Since
the decay factor ``2^(-now / half_life)`` is common to all entries at any one time, the
time-anchored **rank** ``ln(quality) + ln 2 * created / half_life`` orders entries exactly as
their scores do, for ever; the pools store ``MAX - round(rank * 1e9)`` so a prefix scan returns
the best first.

**Mixing.** A chunk of ``size`` pins gives each source a quota proportional to its rate, seat by
seat: each seat goes to the source with the largest ``rate * size - seats`` that still has
pins (ties: the order of :data:`~feed.smart.schema.SOURCES`), so a source short of pins leaves
its seats to the others. Entries whose score fell under the threshold are dropped; a pin
offered by several sources counts once, from its best entry. The chunk is ordered best first.

>>> quality("following", points=0, repins=0, weights={"following": 1.0})
1.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from feed.schema import MAX_TIME
from feed.smart.schema import SOURCES, Source

US_PER_HOUR = 3_600_000_000
RANK_SCALE = 1_000_000_000
AFFINITY_SCALE = 10.0
POINTS = {"repin": 3, "follow": 5}


def quality(source: Source, points: int, repins: int, weights: Mapping[str, float]) -> float:
    """A pin's quality for a user (see the module's formula); always > 0 for a positive
    weight."""
    affinity = 1.0 - math.exp(-max(0, points) / AFFINITY_SCALE)
    return float(weights[source]) * (1.0 + affinity) * (1.0 + math.log1p(max(0, repins)) / 4.0)


def rank(quality_value: float, created_us: int, half_life_hours: float) -> float:
    """The time-anchored rank: orders entries as :func:`score` does at any time."""
    return math.log(quality_value) + math.log(2) * created_us / (half_life_hours * US_PER_HOUR)


def rank_key(quality_value: float, created_us: int, half_life_hours: float) -> int:
    """The pool key's rank part: smaller is better (an inverted, fixed-point rank)."""
    return MAX_TIME - round(rank(quality_value, created_us, half_life_hours) * RANK_SCALE)


def score(quality_value: float, created_us: int, now_us: int, half_life_hours: float) -> float:
    """The entry's score at ``now_us``: its quality decayed by its age (never negative)."""
    age_hours = max(0, now_us - created_us) / US_PER_HOUR
    return quality_value * 2.0 ** (-age_hours / half_life_hours)


@dataclass(frozen=True)
class Candidate:
    """One pool entry: where it is (``key``), what it offers and how good it is."""

    source: Source
    pin_id: int
    quality: float
    created_us: int
    key: bytes = field(default=b"", compare=False)


@dataclass(frozen=True)
class Mix:
    """A chunk: ``picks`` best first; ``taken`` every pool entry the chunk uses up (picks and
    the same pins' entries in other sources); ``dropped`` entries under the threshold."""

    picks: list[Candidate]
    taken: list[Candidate]
    dropped: list[Candidate]
    quotas: dict[str, int]


def quotas(size: int, rates: Mapping[str, float], available: Mapping[str, int]) -> dict[str, int]:
    """Seats per source for a chunk of ``size`` (see the module's rule)."""
    seats: dict[str, int] = {source: 0 for source in SOURCES}
    target = {source: size * float(rates.get(source, 0.0)) for source in SOURCES}
    for _ in range(size):
        open_sources = [s for s in SOURCES if seats[s] < available.get(s, 0)]
        if not open_sources:
            break
        best = max(open_sources, key=lambda s: (target[s] - seats[s], -SOURCES.index(s)))
        seats[best] += 1
    return seats


def mix(candidates: Mapping[str, Sequence[Candidate]], size: int, rates: Mapping[str, float],
        now_us: int, threshold: float, half_life_hours: float) -> Mix:
    """Choose a chunk of at most ``size`` pins from each source's candidates (best first)."""
    def value(candidate: Candidate) -> float:
        return score(candidate.quality, candidate.created_us, now_us, half_life_hours)

    dropped: list[Candidate] = []
    best_of_pin: dict[int, Candidate] = {}
    for source in SOURCES:
        for candidate in candidates.get(source, ()):
            if value(candidate) < threshold:
                dropped.append(candidate)
                continue
            known = best_of_pin.get(candidate.pin_id)
            if known is None or value(candidate) > value(known):
                best_of_pin[candidate.pin_id] = candidate
    offered = {source: [c for c in candidates.get(source, ()) if best_of_pin.get(c.pin_id) is c]
               for source in SOURCES}
    seats = quotas(size, rates, {source: len(found) for source, found in offered.items()})
    picks = [c for source in SOURCES for c in offered[source][:seats[source]]]
    picks.sort(key=lambda c: (-value(c), c.pin_id))
    chosen = {c.pin_id for c in picks}
    below = {id(c) for c in dropped}
    taken = [c for source in SOURCES for c in candidates.get(source, ())
             if c.pin_id in chosen and id(c) not in below]
    return Mix(picks, taken, dropped, seats)

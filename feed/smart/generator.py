"""The content generator: on a visit, decide how many new pins to show and take them from the
pools, mixed and best first (:func:`feed.smart.scoring.mix`). Entries whose pin was deleted are
left out of the mix and removed with the rest (one :func:`pins.selectors.pins_by_id`, cache
first).

It only reads. The new pins of the celebrity boards the user follows (not fanned out) are
pulled as candidates beside the ``following`` pool (:func:`feed.smart.intake.celebrity_pins`).
Once the service has shown the chunk, the queue removes the chosen and dropped entries from the
pools, records the visit in the user's state (:func:`feed.smart.tasks.take`), and puts the
pulled pins the chunk did not use into the pool (:func:`feed.smart.tasks.keep_pulled`). A
visit whose chunk was never shown (the service fell back: the generator failed or ran past its
budget) leaves the pools, the pull mark and the state as they were, so the next visit pulls the
same pins again and its chunk is at least as large: it counts the hours since the last
*delivered* chunk, and never falls below that chunk's size after a missed visit.

Chunk size: ``CHUNK_MIN + CHUNK_PER_HOUR * hours since the last delivered chunk``, at most
``CHUNK_MAX``; a first visit gets ``CHUNK_MAX``; never more than the page shows.

>>> chunk = generate(alice)
>>> [pick.pin_id for pick in chunk.picks]
[...]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from feed.smart import intake, pools
from feed.smart.conf import smart_settings
from feed.smart.schema import SOURCES
from feed.smart.scoring import US_PER_HOUR, Candidate, Mix, mix
from feed.sources import pins_by_id
from toolkit import clock

HISTORY = 5


@dataclass(frozen=True)
class Chunk:
    """A visit's new pins (best first) and what the queue removes from the pools after."""

    user_id: int
    at_us: int
    size: int
    mixed: Mix
    gone: list[Candidate] = field(default_factory=list)
    pulled: list[Candidate] = field(default_factory=list)
    """The celebrity pins pulled as candidates: not in the pools yet."""
    pulled_mark_us: int | None = None
    """The pull mark they move the user's to, once the chunk is shown."""
    elapsed_ms: float = field(default=0.0, compare=False)

    @property
    def picks(self) -> list[Candidate]:
        return self.mixed.picks

    def composition(self) -> dict[str, int]:
        counts: dict[str, int] = {source: 0 for source in SOURCES}
        for pick in self.picks:
            counts[pick.source] += 1
        return counts

    def removals(self) -> list[bytes]:
        """Pool entries the chunk used up, dropped under the threshold, or found deleted."""
        pulled = {c.key for c in self.pulled}
        return [key for key in self._spent() if key not in pulled]

    def pulled_to_keep(self) -> list[int]:
        """The pulled pins the chunk neither used nor dropped: for the ``following`` pool."""
        spent = set(self._spent())
        return [c.pin_id for c in self.pulled if c.key not in spent]

    def _spent(self) -> list[bytes]:
        """The keys of every candidate the chunk took, dropped or found deleted."""
        return [c.key for c in (*self.mixed.taken, *self.mixed.dropped, *self.gone)]


def chunk_size(state: dict[str, Any], now_us: int) -> int:
    """How many new pins this visit asks for (see the module's rule)."""
    low, high = smart_settings.number("CHUNK_MIN"), smart_settings.number("CHUNK_MAX")
    last_at = state.get("last_at_us")
    if last_at is None:
        return high
    hours = max(0, now_us - int(last_at)) / US_PER_HOUR
    size = min(high, low + int(hours * smart_settings.decimal("CHUNK_PER_HOUR")))
    if state.get("missed", 0):
        size = max(size, int(state.get("last_size", 0)))
    return max(low, min(high, size))


def generate(user_id: int, now_us: int | None = None, limit: int | None = None) -> Chunk:
    """The chunk of this visit: the user's state and pool sizes (one row), then the best of
    every source, by as few scans as the pools' counted sizes allow (an empty or small pool
    shares the scan of the pool after it: :func:`pools.best_of_each`). At most ``limit``
    pins (the page's size): a chunk never spills past the page it is shown on, so what it
    takes from the pools is all on that page."""
    started = time.perf_counter()
    now = now_us if now_us is not None else clock.now_us()
    celebrities = intake.celebrity_pins(user_id)
    meta = pools.read_meta(user_id)
    size = chunk_size(meta.state, now)
    if limit is not None:
        size = min(size, limit)
    window = 2 * size + 10
    scanned = pools.best_of_each(user_id, window, meta.sizes)
    pulled = _pulled_candidates(celebrities, scanned["following"])
    if pulled:  # ranked among the pool's entries as if they were in it
        scanned["following"] = sorted([*scanned["following"], *pulled],
                                      key=lambda c: c.key)[:window]
    alive = pins_by_id({c.pin_id for found in scanned.values() for c in found})
    candidates: dict[str, list[Candidate]] = {
        source: [c for c in found if c.pin_id in alive] for source, found in scanned.items()}
    gone = [c for found in scanned.values() for c in found if c.pin_id not in alive]
    mixed = mix(candidates, size, smart_settings.SOURCE_RATES, now,
                smart_settings.decimal("QUALITY_THRESHOLD"),
                smart_settings.decimal("HALF_LIFE_HOURS"))
    return Chunk(user_id, now, size, mixed, gone, pulled,
                 None if celebrities is None else celebrities.mark_us,
                 (time.perf_counter() - started) * 1000)


def _pulled_candidates(celebrities: intake.CelebrityPins | None,
                       pooled: list[Candidate]) -> list[Candidate]:
    """The pulled pins as ``following`` candidates, keyed as their pool entries will be; none
    that the pool holds already."""
    if celebrities is None:
        return []
    known = {c.pin_id for c in pooled}
    return [Candidate(entry.source, entry.pin_id, entry.quality, entry.created_us, entry.key())
            for entry in celebrities.entries if entry.pin_id not in known]


def delivered(state: dict[str, Any], at_us: int, size: int, composition: dict[str, int],
              ) -> dict[str, Any]:
    """The state after a chunk was shown at ``at_us``: the recent compositions, and its time
    and size unless a later chunk was recorded first (queue messages may come late).
    Unchanged if this chunk was recorded already (a message delivered twice)."""
    if any(int(item["at_us"]) == at_us for item in state.get("history", [])):
        return state
    history = sorted([{"at_us": at_us, "size": size, "sources": composition},
                      *state.get("history", [])], key=lambda item: -int(item["at_us"]))
    state = {**state, "history": history[:HISTORY]}
    if at_us < int(state.get("last_at_us", 0)):
        return state
    return {**state, "last_at_us": at_us, "last_size": size, "missed": 0}


def missed(state: dict[str, Any], at_us: int) -> dict[str, Any]:
    """The state after a visit at ``at_us`` that showed no chunk (the service fell back);
    unchanged if a later chunk was delivered already."""
    if at_us <= int(state.get("last_at_us", 0)):
        return state
    return {**state, "missed": int(state.get("missed", 0)) + 1}

"""A pinner's smart-feed state for operators (the admin page, ``smartfeed show``): pool sizes
per source, the top entries with their scores now, the last chunks' composition, the
materialized feed's head, the affinities. Each part read from a cluster that is down reports
the error instead, so the page still shows the rest.

>>> state_of(alice)["pools"]["sizes"]
{'following': 12, 'repins': 3, 'interests': 40, 'related': 7}
"""

from __future__ import annotations

from typing import Any

from feed.exceptions import FeedUnavailable
from feed.selectors import hydrate_ids
from feed.smart import materialized, pools
from feed.smart.conf import smart_settings
from feed.smart.scoring import score
from feed.speculative import speculative
from toolkit.clock import iso_time, now_us


def state_of(user_id: int, top: int = 10) -> dict[str, Any]:
    """Everything the operator pages show about one pinner's smart feed (JSON-safe)."""
    now = now_us()
    return {"user_id": str(user_id), "pools": _pools(user_id, top, now),
            "materialized": _materialized(user_id, top)}


def _pools(user_id: int, top: int, now: int) -> dict[str, Any]:
    try:
        meta = pools.read_meta(user_id)
        sizes, state = meta.sizes, meta.state
        entries = pools.best_of_each(user_id, top, sizes)
        affinities = pools.all_affinities(user_id)
    except FeedUnavailable as exc:
        return {"error": str(exc)}
    half_life = smart_settings.decimal("HALF_LIFE_HOURS")
    titles = {pin.id: pin.title for pin in hydrate_ids(
        [c.pin_id for found in entries.values() for c in found])}
    return {
        "sizes": sizes,
        "top": {source: [{"pin_id": str(c.pin_id), "title": titles.get(c.pin_id),
                          "quality": round(c.quality, 4),
                          "score": round(score(c.quality, c.created_us, now, half_life), 4),
                          "created": _time(c.created_us)} for c in found]
                for source, found in entries.items()},
        "chunks": [{**item, "at": _time(int(item["at_us"]))}
                   for item in state.get("history", [])],
        "missed_visits": int(state.get("missed", 0)),
        "last_visit": _time(int(state["last_at_us"])) if "last_at_us" in state else None,
        "affinities": dict(sorted(affinities.items(), key=lambda item: -item[1])[:top]),
    }


def _materialized(user_id: int, top: int) -> dict[str, Any]:
    try:
        shown = speculative(lambda cluster: materialized.read(cluster, user_id))
    except FeedUnavailable as exc:
        return {"error": str(exc)}
    head = shown[:top]
    titles = {pin.id: pin.title for pin in hydrate_ids([entry.pin_id for entry in head])}
    return {"entries": len(shown),
            "head": [{"pin_id": str(entry.pin_id), "source": entry.source,
                      "shown": _time(entry.shown_us), "title": titles.get(entry.pin_id)}
                     for entry in head]}


def _time(us: int) -> str:
    return iso_time(us)

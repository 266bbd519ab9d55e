""""Why is this pin on my Home?": the smart feed's records of a pin for a pinner.

The materialized feed says when the pin was shown, at which place of that visit's chunk, from
which pool (its source: a followed board, a repin, a followed interest, a related pin) and
with which score; the pools say whether it is waiting in any of them now, with its quality
and the score it would have now. A pin in neither was offered by no source.

>>> found = explain_home(alice, pin_id)
>>> found.present, found.reasons[0].code
(True, 'shown')
"""

from __future__ import annotations

from feed.exceptions import FeedUnavailable
from feed.explain import Explanation, Reason
from feed.smart import materialized, pools
from feed.smart.conf import pool_cap, pool_slack, smart_settings
from feed.smart.schema import SOURCES
from feed.smart.scoring import score
from feed.speculative import speculative
from toolkit.clock import now_us

SOURCE_TEXT = {"following": "pins of the boards you follow",
               "repins": "pins you repinned from, and their boards",
               "interests": "the interests you follow",
               "related": "pins related to pins you saved"}


def explain_home(user_id: int, pin_id: int) -> Explanation:
    """Why ``pin_id`` is, or is not, on the Home feed of ``user_id``."""
    reasons: list[Reason] = []
    try:
        shown = speculative(lambda cluster: materialized.read(cluster, user_id))
    except FeedUnavailable as exc:
        shown = []
        reasons.append(Reason("unreadable", "materialized", f"the Home feed cannot be read: "
                              f"{exc}"))
    showings = [entry for entry in shown if entry.pin_id == pin_id]
    for entry in showings:
        scored = "" if entry.score is None else f", with a score of {entry.score:.3f}"
        reasons.append(Reason(
            "shown", "materialized", f"shown on Home at place {entry.position + 1} of that "
            f"visit's pins, from the {entry.source} pool ({SOURCE_TEXT[entry.source]})"
            f"{scored}", entry.shown_us,
            {"pool": entry.source, "position": entry.position, "score": entry.score}))
    reasons.extend(_pooled(user_id, pin_id))
    if not showings and not any(r.code == "pooled" for r in reasons):
        reasons.append(Reason("not_offered", "pools", "in none of your pools: no source "
                              "offered it (not from a board or interest you follow, not "
                              "related to pins you saved)"))
    return Explanation(user_id, pin_id, bool(showings), reasons)


def _pooled(user_id: int, pin_id: int) -> list[Reason]:
    """The pools holding the pin now, with its quality and its score now."""
    now = now_us()
    half_life = smart_settings.decimal("HALF_LIFE_HOURS")
    threshold = smart_settings.decimal("QUALITY_THRESHOLD")
    found = []
    try:
        for source in SOURCES:
            for candidate in pools.best(user_id, source, pool_cap() + pool_slack()):
                if candidate.pin_id != pin_id:
                    continue
                value = score(candidate.quality, candidate.created_us, now, half_life)
                below = " (below the threshold: it will be dropped)" if value < threshold else ""
                found.append(Reason(
                    "pooled", "pools", f"waiting in the {source} pool ({SOURCE_TEXT[source]}) "
                    f"with quality {candidate.quality:.3f}, a score of {value:.3f} now{below}",
                    candidate.created_us, {"pool": source, "quality": candidate.quality,
                                           "score": value}))
    except FeedUnavailable as exc:
        found.append(Reason("unreadable", "pools", f"the pools cannot be read: {exc}"))
    return found

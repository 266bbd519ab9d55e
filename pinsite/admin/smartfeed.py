"""The smart feed's pages: a pinner's pools, last chunks, materialized feed and affinities
(:func:`feed.smart.state.state_of`) with a button that queues a rebuild of their pools, and the
generator's health over the last hour (:func:`feed.smart.health.summary`).

A part of the state read from a cluster that is down comes back as ``{"error": ...}`` and is
shown as a warning beside the parts that answered; Redis down on the health page is a warning
too. Rebuilding the pools is an operator's action like the others (a confirmation page, then a
superuser's ``POST``); it only queues ``feed.smart.tasks.rebuild``, and the worker does it on
behalf of the operator, who is the actor of its entry in the operator audit log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from feed.exceptions import FeedUnavailable
from feed.smart import health, tasks
from feed.smart.schema import SOURCES
from feed.smart.state import state_of
from pins import selectors as content
from pinsite.admin.followers import find_pinner_page
from pinsite.admin.pages import attempt, confirmed_action, pinner_of, render_page
from toolkit import acting

TOP = 10
AFFINITY_KINDS = {"p": "pinner", "b": "board", "i": "interest"}
OUTCOME_MEANINGS = {
    "chunk": "a new chunk was shown",
    "failed": "the generator raised (the pools cluster down, say): materialized feed only",
    "timeout": "the generator ran past its budget: materialized feed only",
    "unavailable": "no chunk, and the materialized feed could not be read either: the visit "
                   "got an error",
}


@dataclass(frozen=True)
class SourcePool:
    """One source's pool: its counted size and its best entries (score now, quality)."""

    source: str
    size: int
    top: list[dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    name: str
    count: int
    meaning: str


@dataclass(frozen=True)
class Affinity:
    kind: str
    object_id: str
    points: int
    linked: bool


def source_pools(pools: dict[str, Any]) -> list[SourcePool]:
    """The pools part of the state, one row per source in the generator's order."""
    return [SourcePool(source, int(pools["sizes"].get(source, 0)), pools["top"].get(source, []))
            for source in SOURCES]


def affinities(points: dict[str, int]) -> list[Affinity]:
    """``{"p:<id>": points, ...}`` as rows; pinners and boards link to their lookup."""
    rows = []
    for key, value in points.items():
        kind, _, object_id = key.partition(":")
        rows.append(Affinity(AFFINITY_KINDS.get(kind, kind), object_id, value, kind in ("p", "b")))
    return rows


def page_context(state: dict[str, Any]) -> dict[str, Any]:
    """What the template needs from :func:`state_of`, each part with its error or its rows."""
    pools, home = state["pools"], state["materialized"]
    pools_error = pools.get("error")
    return {"pools": pools, "pools_error": pools_error,
            "sources": [] if pools_error else source_pools(pools),
            "affinities": [] if pools_error else affinities(pools["affinities"]),
            "home": home, "home_error": home.get("error")}


def find_pinner(request: HttpRequest) -> HttpResponse:
    """A form for a user ID or username; goes to that pinner's smart feed."""
    return find_pinner_page(request, "Smart feed of a pinner",
                            "admin:operations-smartfeed-pinner")


def pinner(request: HttpRequest, user_id: str) -> HttpResponse:
    """Pools, top entries, last chunks, materialized head and affinities of one pinner."""
    user, error = attempt(lambda: content.get_user(user_id))
    if user is None:
        return render_page(request, "pinners.html", "Smart feed of a pinner",
                           {"query": user_id, "error": error,
                            "finder": reverse("admin:operations-smartfeed-pinners")})
    state, state_error = attempt(lambda: state_of(user.id, top=TOP))
    return render_page(request, "smartfeed_pinner.html", f"Smart feed of {user.username}", {
        "pinner": user, "top": TOP, "error": state_error,
        **(page_context(state) if state else {})})


def rebuild(request: HttpRequest, user_id: str) -> HttpResponse:
    """Confirm, then queue a rebuild of the pinner's pools (the worker does it)."""
    user = pinner_of(user_id)
    details = [f"Empties the pools of {user.username} ({user.id}) and refills them from the "
               "graph: the newest pins of every board and interest they follow, and the pins "
               "related to their newest saves. Pins pooled by earlier fanouts and not among "
               "those are gone.",
               "The materialized feed (what they were shown) is kept."]

    def queue() -> str:
        tasks.rebuild.send(user.id, actor=acting.current().to_json())
        return f"Rebuilding the smart feed pools of {user.username} ({user.id}): queued."

    return confirmed_action(request, title=f"Rebuild the smart feed pools of {user.username}",
                            details=details, perform=queue,
                            done="admin:operations-smartfeed-pinner", user_id=str(user.id))


def health_page(request: HttpRequest) -> HttpResponse:
    """Visits, outcomes, fallbacks and generator latency over the last hour."""
    summary, error = read_summary()
    return render_page(request, "smartfeed_health.html", "Smart feed health", {
        "summary": summary, "redis_error": error,
        **(health_context(summary) if summary else {})})


def health_context(summary: dict[str, Any]) -> dict[str, Any]:
    """The outcomes as rows with their meaning, and the fallback share in percent."""
    return {"outcomes": [Outcome(name, count, OUTCOME_MEANINGS.get(name, ""))
                         for name, count in summary["outcomes"].items()],
            "fallback_percent": f"{100 * summary['fallback_share']:.1f}"}


def read_summary() -> tuple[dict[str, Any] | None, str | None]:
    """:func:`feed.smart.health.summary`, or ``(None, message)`` when Redis cannot answer."""
    try:
        return health.summary(), None
    except FeedUnavailable as exc:
        return None, str(exc)

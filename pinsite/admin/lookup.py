"""Looking up any 64-bit ID: its decoded parts, where it lives (shard host, graph vshard), the
JSON stored for it and the lists (mappings) it heads."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse

from graph import selectors as graph
from graph import topology as graph_topology
from graph.vshards import vshard_of
from pins import selectors as content
from pins.lookup import load
from pins.types import BOARD, PIN, USER
from pinsite.admin.pages import attempt, render_page
from sharding import ids
from sharding.hosts import schema_name
from sharding.topology import current_map

SHOWN = 20


@dataclass
class Listing:
    """One list an object heads: its exact size and its newest entries."""

    name: str
    count: int | str
    newest: list[int] = field(default_factory=list)


@dataclass
class Described:
    id: int
    parts: ids.ObjectId
    schema: str
    type_name: str
    master: str | None = None
    replica: str | None = None
    vshard: int | None = None
    graph_master: str | None = None
    stored: str | None = None
    listings: list[Listing] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def describe(text: str) -> Described:
    """Everything known about ``text`` as an ID; ``ValueError`` when it is not one."""
    object_id = ids.parse_id(text)
    parts = ids.decompose(object_id)
    type_name = ids.types.name_of(parts.type_id) or f"unknown ({parts.type_id})"
    found = Described(object_id, parts, schema_name(parts.shard), type_name)
    _place(found)
    _load(found)
    return found


def _place(found: Described) -> None:
    placed, error = attempt(lambda: current_map().range_for(found.parts.shard))
    if placed is not None:
        found.master, found.replica = placed.master, placed.replica
    else:
        found.problems.append(f"Shard {found.parts.shard}: {error}")
    if found.type_name in (USER.name, BOARD.name):
        vshard = found.vshard = vshard_of(found.id)
        master, error = attempt(lambda: graph_topology.master_for(vshard))
        found.graph_master = master
        if error:
            found.problems.append(f"Graph: {error}")


def _load(found: Described) -> None:
    object_type = {t.name: t for t in (USER, BOARD, PIN)}.get(found.type_name)
    if object_type is None or found.master is None:
        return
    stored, error = attempt(lambda: load(found.id, object_type)[1])
    if stored is None:
        found.problems.append(error or "Not stored.")
        return
    found.stored = json.dumps(stored, indent=2, sort_keys=True, ensure_ascii=False)
    found.listings = _listings(found)


def _listings(found: Described) -> list[Listing]:
    return [_listing(name, count, page, found.id) for name, count, page in
            LISTINGS[found.type_name]]


def _listing(name: str, count: Callable[[int], int], page: Callable[[int], list[int]] | None,
             object_id: int) -> Listing:
    size, error = attempt(lambda: count(object_id))
    newest, _ = attempt(lambda: page(object_id)) if page is not None else ([], None)
    return Listing(name, size if error is None and size is not None else f"({error})",
                   newest or [])


def _ids(items: list[Any]) -> list[int]:
    return [int(item.id) for item in items]


LISTINGS: dict[str, list[tuple[str, Callable[[int], int], Callable[[int], list[int]] | None]]] = {
    USER.name: [
        ("user_has_boards", content.user_board_count,
         lambda i: _ids(content.boards_of(i, limit=SHOWN).items)),
        ("user_has_pins", content.user_pin_count,
         lambda i: _ids(content.pins_of_user(i, limit=SHOWN).items)),
        ("followers (graph)", graph.follower_count,
         lambda i: graph.followers_page(i, limit=SHOWN).ids),
        ("following (graph)", graph.following_count,
         lambda i: graph.followings_page(i, limit=SHOWN).ids),
        ("boards followed explicitly (graph)", graph.followed_board_count, None),
    ],
    BOARD.name: [
        ("board_has_pins", content.board_pin_count,
         lambda i: _ids(content.pins_of_board(i, limit=SHOWN).items)),
        ("followers (graph)", graph.board_follower_count,
         lambda i: graph.board_followers_page(i, limit=SHOWN).ids),
    ],
    PIN.name: [
        ("pin_has_repins", content.repin_count,
         lambda i: _ids(content.repins_of(i, limit=SHOWN).items)),
    ],
}


def lookup(request: HttpRequest) -> HttpResponse:
    """A form for an ID, and what is known about it."""
    text = request.GET.get("id", "").strip()
    found, error = None, None
    if text:
        try:
            found = describe(text)
        except ValueError as exc:
            error = f"{text[:40]!r} is not an object ID: {exc}"
    return render_page(request, "lookup.html", "Look up an ID",
                       {"text": text, "found": found, "error": error})

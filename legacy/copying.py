"""Copying one batch of legacy rows into pinsite through its own actions, idempotently.

Every row is looked up in the legacy-ID → pinsite-ID map (:class:`~legacy.models.LegacyRecord`)
first: a row copied before with the same fingerprint is skipped, a changed one is updated in
place, a new one is created. A new row is claimed in the map before its object is made, and
the object's ID recorded after; a job killed in between leaves a claim, which the next run
resolves by finding the object by what identifies it (a user's username, a board's owner and
name, a pin's board, title and link) before making it again. So a batch can run any number
of times, and two workers on one batch make each object once.

Users are placed on random open shards (:func:`pins.actions.create_pinner`), boards and pins
with their owner, follows go through the graph's actions (edge log, then Redis), and every
user whose follows a batch copied gets their following feed rebuilt. A row that refers to one
not copied yet (a board of a user a concurrent pass has not reached) waits for the next pass;
one that pinsite's rules refuse (a follow of one's own board) is noted with the reason.

>>> copy_batch(connection, "10.0.0.9:3306/site", "boards", 1, 500)
Copied(copied=480, waiting=0, rejected=0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import IntegrityError, transaction

from feed.rebuild import rebuild
from graph.actions import follow_board, follow_user
from graph.exceptions import InvalidGraphInput
from legacy import source
from legacy.models import LegacyRecord
from pins.actions import (
    create_board,
    create_pin,
    create_pinner,
    update_board,
    update_pin,
    update_pinner,
)
from pins.exceptions import InvalidContent, NotFound
from pins.images import generate_demo_image
from pins.selectors import boards_of, get_board, pinner_by_username, pins_of_board

SEARCHED = 1000  # the newest boards of a user, or pins of a board, a claim is resolved among


@dataclass(frozen=True)
class Copied:
    copied: int
    waiting: int
    rejected: int = 0


def copy_batch(connection: Any, site: str, kind: str, first_id: int, last_id: int) -> Copied:
    """Copy ``kind``'s legacy rows ``first_id..last_id`` that are new or changed (``site``:
    the legacy site's :func:`~legacy.source.key`)."""
    rows = source.rows(connection, kind, first_id, last_id)
    records = LegacyRecord.objects.filter(source=site)
    known = {record.legacy_id: record for record in
             records.filter(kind=kind, legacy_id__in=[row["id"] for row in rows])}
    refs = _references(records, kind, rows)
    copy = Copier(site)
    copied = waiting = rejected = 0
    followers: set[int] = set()
    for row in rows:
        print_ = source.fingerprint(kind, row)
        record = known.get(int(row["id"]))
        if record is not None and record.fingerprint == print_ and (
                record.pinsite_id is not None or record.rejected):
            continue  # copied as it is, or refused as it is
        needed = [refs.get((ref_kind, row[column]))
                  for ref_kind, column in source.BY_NAME[kind].refers]
        if None in needed:
            waiting += 1
            continue
        try:
            made = getattr(copy, kind)(row, needed, record)
        except (InvalidContent, InvalidGraphInput) as exc:
            copy.reject(kind, int(row["id"]), print_, str(exc))
            rejected += 1
            continue
        copy.record(kind, int(row["id"]), made, print_)
        copied += 1
        if kind in ("user_follows", "board_follows"):
            followers.add(int(needed[0] or 0))
    for follower in followers:
        for cluster in ("primary", "standby"):
            rebuild(cluster, follower)
    return Copied(copied, waiting, rejected)


def _references(records: Any, kind: str, rows: list[source.Row]) -> dict[tuple[str, Any], int]:
    """``(kind, legacy ID) → pinsite ID`` of the rows ``rows`` refer to (copied ones only)."""
    found: dict[tuple[str, Any], int] = {}
    for ref_kind, column in source.BY_NAME[kind].refers:
        ids = {row[column] for row in rows}
        for record in records.filter(kind=ref_kind, legacy_id__in=ids,
                                     pinsite_id__isnull=False):
            found[(ref_kind, record.legacy_id)] = int(record.pinsite_id or 0)
    return found


class Copier:
    """The copy of each kind of row, for one legacy site's part of the ID map."""

    def __init__(self, site: str) -> None:
        self.site = site

    def record(self, kind: str, legacy_id: int, pinsite_id: int, print_: str) -> None:
        LegacyRecord.objects.update_or_create(
            source=self.site, kind=kind, legacy_id=legacy_id,
            defaults={"pinsite_id": pinsite_id, "fingerprint": print_, "rejected": ""})

    def reject(self, kind: str, legacy_id: int, print_: str, why: str) -> None:
        """A row pinsite refuses as it is (a follow of one's own board, an invalid
        username): noted with the reason, tried again once the row changes."""
        LegacyRecord.objects.update_or_create(
            source=self.site, kind=kind, legacy_id=legacy_id,
            defaults={"fingerprint": print_, "rejected": why[:500]})

    def claim(self, kind: str, legacy_id: int) -> bool:
        """Claim a new row before its object is made; False when it was claimed before (a
        job that died between making the object and recording it, or another worker)."""
        try:
            with transaction.atomic():
                LegacyRecord.objects.create(source=self.site, kind=kind, legacy_id=legacy_id,
                                            fingerprint="")
        except IntegrityError:
            return False
        return True

    def users(self, row: source.Row, _refs: list[Any], record: LegacyRecord | None) -> int:
        display_name = str(row["display_name"] or "")
        if record is not None and record.pinsite_id is not None:
            update_pinner(record.pinsite_id, display_name=display_name)
            return record.pinsite_id
        if not self.claim("users", int(row["id"])):
            try:
                return pinner_by_username(str(row["username"])).user_id
            except NotFound:
                pass  # claimed but not made: make it
        return create_pinner(str(row["username"]), None, display_name=display_name).user_id

    def boards(self, row: source.Row, refs: list[Any], record: LegacyRecord | None) -> int:
        owner = int(refs[0])
        name, description = str(row["name"]), str(row["description"] or "")
        if record is not None and record.pinsite_id is not None:
            update_board(owner, record.pinsite_id, name=name, description=description)
            return record.pinsite_id
        if not self.claim("boards", int(row["id"])):
            found = _find(boards_of(owner, limit=SEARCHED).items, lambda b: b.name == name)
            if found is not None:
                return found
        return create_board(owner, name, description).id

    def pins(self, row: source.Row, refs: list[Any], record: LegacyRecord | None) -> int:
        board = int(refs[0])
        owner = get_board(board).owner_id
        title, link = str(row["title"] or ""), str(row["link"] or "")
        description = str(row["description"] or "")
        if record is not None and record.pinsite_id is not None:
            update_pin(owner, record.pinsite_id, title=title, description=description,
                       link=link)
            return record.pinsite_id
        if not self.claim("pins", int(row["id"])):
            found = _find(pins_of_board(board, limit=SEARCHED).items,
                          lambda p: (p.title, p.link) == (title, link))
            if found is not None:
                return found
        return create_pin(owner, board, title, description, link, placeholder()).id

    def user_follows(self, _row: source.Row, refs: list[Any], _record: Any) -> int:
        follow_user(int(refs[0]), int(refs[1]))
        return int(refs[1])

    def board_follows(self, _row: source.Row, refs: list[Any], _record: Any) -> int:
        follow_board(int(refs[0]), int(refs[1]))
        return int(refs[1])


def _find(items: list[Any], matches: Callable[[Any], bool]) -> int | None:
    return next((int(item.id) for item in items if matches(item)), None)


@cache
def placeholder() -> bytes:
    """The picture of an imported pin (the legacy schema has none): one small picture drawn
    locally, as the demo's are."""
    return generate_demo_image(0, 64, 48)

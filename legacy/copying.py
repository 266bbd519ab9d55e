"""Copying one batch of legacy rows into pinsite through its own actions, idempotently.

Every row is looked up in the legacy-ID → pinsite-ID map (:mod:`legacy.idmap`) first: a row
copied before with the same fingerprint is skipped, a changed one is updated in place, a new
one is created. A new row is claimed in the map before its object is made, and
the object's ID recorded after; a job killed in between leaves a claim, which the next run
resolves by finding the object by what identifies it (a user's username, a board's owner and
name, a pin's board, title and link) before making it again. So a batch can run any number
of times, and two workers on one batch make each object once.

Users are placed on random open shards in groups (:func:`pins.actions.create_pinners`), boards
and pins with their owner, follows go through the graph's actions (edge log, then Redis); a batch
reports whose follows it copied, and the pass rebuilds their following feeds at its end
(:func:`rebuild_followers`). A row that refers to one not copied yet (a board of a user a
concurrent pass has not reached) waits for the next pass; one that pinsite's rules refuse (a
follow of one's own board) is noted with the reason.

>>> copy_batch(connection, "10.0.0.9:3306/site", "boards", 1, 500)
Copied(copied=480, waiting=0, rejected=0, followers=())
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from feed.rebuild import rebuild_feeds
from feed.store.pools import CLUSTERS
from graph.actions import follow_boards, follow_users
from graph.exceptions import InvalidGraphInput
from legacy import idmap, source
from legacy.idmap import Record
from pins.actions import (
    NewBoard,
    NewPin,
    NewPinner,
    create_board,
    create_boards,
    create_pin,
    create_pinner,
    create_pinners,
    create_pins,
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
    followers: tuple[int, ...] = ()  # whose follows were copied: their feeds are rebuilt


def copy_batch(connection: Any, site: str, kind: str, first_id: int, last_id: int) -> Copied:
    """Copy ``kind``'s legacy rows ``first_id..last_id`` that are new or changed (``site``:
    the legacy site's :func:`~legacy.source.key`)."""
    rows = source.rows(connection, kind, first_id, last_id)
    known = idmap.records(site, kind, [row["id"] for row in rows])
    refs = _references(site, kind, rows)
    copy = Copier(site, kind)
    waiting = 0
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
        copy.add(Row(row, needed, record, print_))
    copy.run()
    return Copied(len(copy.copied), waiting, len(copy.refused), tuple(sorted(copy.followers)))


def rebuild_followers(followers: list[int]) -> None:
    """Rebuild the following feeds of users whose follows a pass copied (on every cluster)."""
    rebuild_feeds(followers, CLUSTERS)


def _references(site: str, kind: str, rows: list[source.Row]) -> dict[tuple[str, Any], int]:
    """``(kind, legacy ID) → pinsite ID`` of the rows ``rows`` refer to (copied ones only)."""
    found: dict[tuple[str, Any], int] = {}
    for ref_kind, column in source.BY_NAME[kind].refers:
        ids = {row[column] for row in rows if row[column] is not None}
        for legacy_id, pinsite_id in idmap.copied(site, ref_kind, ids).items():
            found[(ref_kind, legacy_id)] = pinsite_id
    return found


@dataclass(frozen=True)
class Row:
    """A legacy row to copy: its values, the pinsite IDs of the rows it refers to, its entry
    in the ID map (None for a new row) and its fingerprint."""

    values: source.Row
    refs: list[Any]
    record: Record | None
    fingerprint: str

    @property
    def legacy_id(self) -> int:
        return int(self.values["id"])


class Copier:
    """The copy of one batch of one kind of row, for one legacy site's part of the ID map.

    New users, boards and pins are claimed together (one ``INSERT IGNORE``, then one read of
    which claims are this batch's) and made by the content domain's bulk actions, one
    transaction per shard host. Follows, new or changed, are made by the graph's bulk
    actions, unclaimed (a follow made twice is made once). A changed user, board or pin and a
    claim found made before (a job that died, or another worker) go one at a time. What was
    copied or refused is written to the map at the end, in one statement each, also when the
    batch fails half way; what was claimed but not recorded is found by the next run."""

    def __init__(self, site: str, kind: str) -> None:
        self.site, self.kind = site, kind
        self.new: list[Row] = []
        self.alone: list[Row] = []
        self.copied: dict[int, tuple[int, str]] = {}  # legacy ID → (pinsite ID, fingerprint)
        self.refused: dict[int, tuple[str, str]] = {}  # legacy ID → (fingerprint, why)
        self.followers: set[int] = set()

    def add(self, row: Row) -> None:
        if self.kind in FOLLOWS or row.record is None:
            self.new.append(row)
        else:
            self.alone.append(row)

    def run(self) -> None:
        try:
            if self.kind in FOLLOWS:
                self.make(self.new)  # made again harmlessly: no claims
            elif self.new:
                claimed = self.claim_all([row.legacy_id for row in self.new])
                self.alone += [row for row in self.new if row.legacy_id not in claimed]
                self.make([row for row in self.new if row.legacy_id in claimed])
            for row in self.alone:
                try:
                    made = getattr(self, self.kind)(row.values, row.refs, row.record)
                except (InvalidContent, InvalidGraphInput) as exc:
                    self.refused[row.legacy_id] = (row.fingerprint, str(exc))
                    continue
                self.done(row, made)
        finally:
            self.save()

    def done(self, row: Row, pinsite_id: int) -> None:
        self.copied[row.legacy_id] = (pinsite_id, row.fingerprint)
        if self.kind in FOLLOWS:
            self.followers.add(int(row.refs[0]))

    def make(self, rows: list[Row]) -> None:
        """Rows made together by the kind's bulk maker (:data:`BULK`)."""
        for row, made in zip(rows, BULK[self.kind](rows), strict=True):
            if isinstance(made, (InvalidContent, InvalidGraphInput)):
                self.refused[row.legacy_id] = (row.fingerprint, str(made))
            elif isinstance(made, Exception):
                raise made
            else:
                self.done(row, int(made))

    def save(self) -> None:
        """What was copied and refused, into the map (a refused row keeps its pinsite ID)."""
        idmap.write(self.site, self.kind, [(legacy_id, pinsite_id, print_, "") for legacy_id,
                                           (pinsite_id, print_) in self.copied.items()],
                    idmap.COPIED)
        idmap.write(self.site, self.kind, [(legacy_id, None, print_, why[:500]) for legacy_id,
                                           (print_, why) in self.refused.items()],
                    idmap.REFUSED)

    def claim_all(self, legacy_ids: list[int]) -> set[int]:
        """Claim new rows before their objects are made (:func:`legacy.idmap.claim`)."""
        return idmap.claim(self.site, self.kind, legacy_ids)

    def claim(self, legacy_id: int) -> bool:
        """Claim one new row (see :meth:`claim_all`); False when it was claimed before."""
        return legacy_id in self.claim_all([legacy_id])

    def users(self, row: source.Row, _refs: list[Any], record: Record | None) -> int:
        display_name = str(row["display_name"] or "")
        if record is not None and record.pinsite_id is not None:
            update_pinner(record.pinsite_id, display_name=display_name)
            return record.pinsite_id
        if not self.claim(int(row["id"])):
            try:
                return pinner_by_username(str(row["username"])).user_id
            except NotFound:
                pass  # claimed but not made: make it
        return create_pinner(str(row["username"]), None, display_name=display_name).user_id

    def boards(self, row: source.Row, refs: list[Any], record: Record | None) -> int:
        owner = int(refs[0])
        name, description = str(row["name"]), str(row["description"] or "")
        if record is not None and record.pinsite_id is not None:
            update_board(owner, record.pinsite_id, name=name, description=description)
            return record.pinsite_id
        if not self.claim(int(row["id"])):
            found = _find(boards_of(owner, limit=SEARCHED).items, lambda b: b.name == name)
            if found is not None:
                return found
        return create_board(owner, name, description).id

    def pins(self, row: source.Row, refs: list[Any], record: Record | None) -> int:
        board = int(refs[0])
        owner = get_board(board).owner_id
        title, link = str(row["title"] or ""), str(row["link"] or "")
        description = str(row["description"] or "")
        if record is not None and record.pinsite_id is not None:
            update_pin(owner, record.pinsite_id, title=title, description=description,
                       link=link)
            return record.pinsite_id
        if not self.claim(int(row["id"])):
            found = _find(pins_of_board(board, limit=SEARCHED).items,
                          lambda p: (p.title, p.link) == (title, link))
            if found is not None:
                return found
        return create_pin(owner, board, title, description, link, placeholder()).id


def _new_users(rows: list[Row]) -> list[Any]:
    return _ids(create_pinners([NewPinner(str(row.values["username"]),
                                          str(row.values["display_name"] or ""))
                                for row in rows]), "user_id")


def _new_boards(rows: list[Row]) -> list[Any]:
    return _ids(create_boards([NewBoard(int(row.refs[0]), str(row.values["name"]),
                                        str(row.values["description"] or ""))
                               for row in rows]), "id")


def _new_pins(rows: list[Row]) -> list[Any]:
    return _ids(create_pins([NewPin(int(row.refs[0]), str(row.values["title"] or ""),
                                    str(row.values["description"] or ""),
                                    str(row.values["link"] or "")) for row in rows],
                            placeholder()), "id")


def _follows(rows: list[Row], follow: Callable[[list[tuple[int, int]]], list[Any]]) -> list[Any]:
    return _ids(follow([(int(row.refs[0]), int(row.refs[1])) for row in rows]), "target_id")


def _ids(made: list[Any], attribute: str) -> list[Any]:
    """Each made object's pinsite ID (its ``attribute``), or the error that refused it."""
    return [one if isinstance(one, Exception) else getattr(one, attribute) for one in made]


BULK: dict[str, Callable[[list[Row]], list[Any]]] = {
    "users": _new_users, "boards": _new_boards, "pins": _new_pins,
    "user_follows": lambda rows: _follows(rows, follow_users),
    "board_follows": lambda rows: _follows(rows, follow_boards)}
"""How each kind's rows are made together: each maker returns, in order, each row's
pinsite ID (a follow's: the followed user or board) or the error that refused it."""
FOLLOWS = ("user_follows", "board_follows")


def _find(items: list[Any], matches: Callable[[Any], bool]) -> int | None:
    return next((int(item.id) for item in items if matches(item)), None)


@cache
def placeholder() -> bytes:
    """The picture of an imported pin (the legacy schema has none): one small picture drawn
    locally, as the demo's are."""
    return generate_demo_image(0, 64, 48)

"""``import verify``: the legacy database against what pinsite holds now, table by table, like
Vitess's VDiff: row counts, a checksum over every row's fingerprint on each side, and every
difference (a row not copied, an object gone, a value that differs, a follow missing).

The pinsite side's fingerprint is computed from pinsite's own objects and graph, read back
through the legacy-ID map, so it checks the copy itself, not the map's notes about it.

>>> verify(url).difference_count
0
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from graph.selectors import is_following_board, is_following_user
from legacy import source
from legacy.models import LegacyRecord
from pins.selectors import boards_by_id, pins_by_id, users_by_id

READ_BATCH = 1000
_READERS: dict[str, Callable[[list[int]], dict[int, Any]]] = {
    "users": users_by_id, "boards": boards_by_id, "pins": pins_by_id}
"""How the objects of each object table were copied to are read, a batch at a time."""


@dataclass
class TableReport:
    kind: str
    legacy_rows: int = 0
    copied_rows: int = 0
    legacy_checksum: str = ""
    copy_checksum: str = ""
    differences: list[str] = field(default_factory=list)


@dataclass
class VerifyReport:
    tables: list[TableReport]

    @property
    def difference_count(self) -> int:
        return sum(len(table.differences) for table in self.tables)

    def to_json(self) -> dict[str, Any]:
        return {"difference_count": self.difference_count,
                "tables": [asdict(table) for table in self.tables]}


def verify(url: str) -> VerifyReport:
    connection = source.connect(url)
    site = LegacyRecord.objects.filter(source=source.key(url))
    back = {kind: _reverse(site, kind) for kind in ("users", "boards")}
    forward = {name: {legacy: pinsite for pinsite, legacy in ids.items()}
               for name, ids in back.items()}
    try:
        return VerifyReport([_table(connection, site, kind.name, back, forward)
                             for kind in source.KINDS])
    finally:
        connection.close()


def _table(connection: Any, site: Any, kind: str, back: dict[str, dict[int, int]],
           forward: dict[str, dict[int, int]]) -> TableReport:
    """One table: every legacy row's fingerprint against its copy's, a batch of rows (and of
    pinsite objects, read together) at a time."""
    report = TableReport(kind)
    records = {record.legacy_id: record.pinsite_id for record in
               site.filter(kind=kind, pinsite_id__isnull=False)}
    refused = dict(site.filter(kind=kind).exclude(rejected="")
                   .values_list("legacy_id", "rejected"))
    legacy_prints, copy_prints = [], []
    for rows in _row_batches(connection, kind):
        held = _objects(kind, [records[row["id"]] for row in rows if row["id"] in records])
        for row in rows:
            legacy_id, wanted = int(row["id"]), source.fingerprint(kind, row)
            report.legacy_rows += 1
            legacy_prints.append(f"{legacy_id}:{wanted}")
            pinsite_id = records.get(legacy_id)
            if pinsite_id is None:
                why = refused.get(legacy_id)
                report.differences.append(f"{kind} {legacy_id}: " + (
                    f"refused by pinsite: {why}" if why else "not copied"))
                continue
            copy = _copied_row(kind, row, held.get(pinsite_id), back, forward)
            if copy is None:
                report.differences.append(f"{kind} {legacy_id}: pinsite {pinsite_id} is gone")
                continue
            found = source.fingerprint(kind, copy)
            report.copied_rows += 1
            copy_prints.append(f"{legacy_id}:{found}")
            if found != wanted:
                report.differences.append(f"{kind} {legacy_id}: pinsite {pinsite_id} differs")
    report.legacy_checksum = _checksum(legacy_prints)
    report.copy_checksum = _checksum(copy_prints)
    return report


def _objects(kind: str, pinsite_ids: list[int]) -> dict[int, Any]:
    """The pinsite objects a batch of rows was copied to, read together (follows: none)."""
    return _READERS[kind](pinsite_ids) if kind in _READERS else {}


def _copied_row(kind: str, row: source.Row, held: Any, back: dict[str, dict[int, int]],
                forward: dict[str, dict[int, int]]) -> source.Row | None:
    """The row as pinsite holds it now (``held``: its object), None when the object is gone."""
    if kind in _READERS and held is None:
        return None
    if kind == "users":
        return {"id": row["id"], "username": held.username, "display_name": held.display_name}
    if kind == "boards":
        return {"id": row["id"], "user_id": back["users"].get(held.owner_id),
                "name": held.name, "description": held.description}
    if kind == "pins":
        return {"id": row["id"], "board_id": back["boards"].get(held.board_id),
                "title": held.title, "description": held.description, "link": held.link}
    follower = forward["users"].get(row["follower_id" if kind == "user_follows" else "user_id"])
    if kind == "user_follows":
        followee = forward["users"].get(row["followee_id"])
        following = bool(follower and followee and is_following_user(follower, followee))
    else:
        followed = forward["boards"].get(row["board_id"])
        following = bool(follower and followed and is_following_board(follower, followed))
    return dict(row) if following else {**row, **{
        column: None for column in source.BY_NAME[kind].columns[1:]}}


def _reverse(site: Any, kind: str) -> dict[int, int]:
    """``pinsite ID → legacy ID`` of ``kind``'s copied rows."""
    return {int(pinsite_id or 0): int(legacy_id) for legacy_id, pinsite_id in
            site.filter(kind=kind, pinsite_id__isnull=False)
            .values_list("legacy_id", "pinsite_id")}


def _row_batches(connection: Any, kind: str) -> Iterator[list[source.Row]]:
    bounds = source.id_bounds(connection, kind)
    if bounds is not None:
        for first in range(bounds[0], bounds[1] + 1, READ_BATCH):
            yield source.rows(connection, kind, first, first + READ_BATCH - 1)


def _checksum(prints: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(prints)).encode()).hexdigest()[:16]

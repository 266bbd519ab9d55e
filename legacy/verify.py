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
from dataclasses import asdict, dataclass, field
from typing import Any

from graph.selectors import is_following_board, is_following_user
from legacy import source
from legacy.models import LegacyRecord
from pins.exceptions import NotFound
from pins.selectors import get_board, get_pin, get_user

READ_BATCH = 1000


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
    try:
        return VerifyReport([_table(connection, site, kind.name) for kind in source.KINDS])
    finally:
        connection.close()


def _table(connection: Any, site: Any, kind: str) -> TableReport:
    report = TableReport(kind)
    records = {record.legacy_id: record.pinsite_id for record in
               site.filter(kind=kind, pinsite_id__isnull=False)}
    refused = dict(site.filter(kind=kind).exclude(rejected="")
                   .values_list("legacy_id", "rejected"))
    back = {kind_name: _reverse(site, kind_name) for kind_name in ("users", "boards")}
    forward = {kind_name: {legacy: pinsite for pinsite, legacy in back[kind_name].items()}
               for kind_name in back}
    legacy_prints, copy_prints = [], []
    for row in _all_rows(connection, kind):
        legacy_id, wanted = int(row["id"]), source.fingerprint(kind, row)
        report.legacy_rows += 1
        legacy_prints.append(f"{legacy_id}:{wanted}")
        pinsite_id = records.get(legacy_id)
        if pinsite_id is None:
            why = refused.get(legacy_id)
            report.differences.append(f"{kind} {legacy_id}: " + (
                f"refused by pinsite: {why}" if why else "not copied"))
            continue
        found = _copy_print(kind, row, pinsite_id, back, forward)
        if found is None:
            report.differences.append(f"{kind} {legacy_id}: pinsite {pinsite_id} is gone")
            continue
        report.copied_rows += 1
        copy_prints.append(f"{legacy_id}:{found}")
        if found != wanted:
            report.differences.append(f"{kind} {legacy_id}: pinsite {pinsite_id} differs")
    report.legacy_checksum = _checksum(legacy_prints)
    report.copy_checksum = _checksum(copy_prints)
    return report


def _copy_print(kind: str, row: source.Row, pinsite_id: int, back: dict[str, dict[int, int]],
                forward: dict[str, dict[int, int]]) -> str | None:
    """The fingerprint of what pinsite holds for ``row`` (None: the object is gone)."""
    copy = _copied_row(kind, row, pinsite_id, back, forward)
    return None if copy is None else source.fingerprint(kind, copy)


def _copied_row(kind: str, row: source.Row, pinsite_id: int, back: dict[str, dict[int, int]],
                forward: dict[str, dict[int, int]]) -> source.Row | None:
    try:
        if kind == "users":
            user = get_user(pinsite_id)
            return {"id": row["id"], "username": user.username,
                    "display_name": user.display_name}
        if kind == "boards":
            board = get_board(pinsite_id)
            return {"id": row["id"], "user_id": back["users"].get(board.owner_id),
                    "name": board.name, "description": board.description}
        if kind == "pins":
            pin = get_pin(pinsite_id)
            return {"id": row["id"], "board_id": back["boards"].get(pin.board_id),
                    "title": pin.title, "description": pin.description, "link": pin.link}
    except NotFound:
        return None
    follower = forward["users"].get(row["follower_id" if kind == "user_follows" else "user_id"])
    if kind == "user_follows":
        followee = forward["users"].get(row["followee_id"])
        following = bool(follower and followee and is_following_user(follower, followee))
    else:
        followed = forward["boards"].get(row["board_id"])
        following = bool(follower and followed and is_following_board(follower, followed))
    return dict(row) if following else {**row, "id": row["id"], **{
        column: None for column in source.BY_NAME[kind].columns[1:]}}


def _reverse(site: Any, kind: str) -> dict[int, int]:
    """``pinsite ID → legacy ID`` of ``kind``'s copied rows."""
    return {int(pinsite_id or 0): int(legacy_id) for legacy_id, pinsite_id in
            site.filter(kind=kind, pinsite_id__isnull=False)
            .values_list("legacy_id", "pinsite_id")}


def _all_rows(connection: Any, kind: str) -> list[source.Row]:
    bounds = source.id_bounds(connection, kind)
    if bounds is None:
        return []
    return [row for first in range(bounds[0], bounds[1] + 1, READ_BATCH)
            for row in source.rows(connection, kind, first, first + READ_BATCH - 1)]


def _checksum(prints: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(prints)).encode()).hexdigest()[:16]

"""The legacy-ID → pinsite-ID map (:class:`~legacy.models.LegacyRecord`), read and written in
plain SQL.

A batch reads and writes hundreds of the map's rows at once. Built by the ORM (``__in``
lookups, ``bulk_create``), those statements cost more Python than the server spends running
them, most of it on each value of an ``IN`` list and each parameter of a multi-row
``INSERT``. Here the IDs go into a statement as numbers, the site and kind as literals
escaped once, and only the fingerprints and refusals as parameters.

>>> claim("10.0.0.9:3306/site", "pins", [7, 8])     # the rows this call claimed
{7, 8}
>>> write("10.0.0.9:3306/site", "pins", [(7, pin_id, print_, "")], COPIED)
>>> records("10.0.0.9:3306/site", "pins", [7, 8])[7].pinsite_id == pin_id
True
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connections

from legacy.models import LegacyRecord

ALIAS = "default"
COPIED = "pinsite_id = VALUES(pinsite_id), fingerprint = VALUES(fingerprint), rejected = ''"
"""How :func:`write` updates a row copied (again): its pinsite ID and fingerprint."""
REFUSED = "fingerprint = VALUES(fingerprint), rejected = VALUES(rejected)"
"""How :func:`write` updates a row refused: a refused row keeps its pinsite ID."""

Entry = tuple[int, int | None, str, str]
"""``(legacy_id, pinsite_id, fingerprint, rejected)`` of one row of the map."""


@dataclass(frozen=True)
class Record:
    """What the map holds of one legacy row: ``pinsite_id`` is None while the row is claimed
    but not made, and for a row pinsite refused (``rejected`` says why)."""

    pinsite_id: int | None
    fingerprint: str
    rejected: str


def records(site: str, kind: str, legacy_ids: Iterable[int]) -> dict[int, Record]:
    """The map's rows of ``kind``'s ``legacy_ids`` (those it has)."""
    found = _select("legacy_id, pinsite_id, fingerprint, rejected", site, kind, legacy_ids)
    return {int(legacy_id): Record(None if pinsite_id is None else int(pinsite_id), print_,
                                   rejected)
            for legacy_id, pinsite_id, print_, rejected in found}


def copied(site: str, kind: str, legacy_ids: Iterable[int]) -> dict[int, int]:
    """``legacy ID → pinsite ID`` of those of ``legacy_ids`` copied."""
    found = _select("legacy_id, pinsite_id", site, kind, legacy_ids,
                    "AND pinsite_id IS NOT NULL")
    return {int(legacy_id): int(pinsite_id) for legacy_id, pinsite_id in found}


def claim(site: str, kind: str, legacy_ids: list[int]) -> set[int]:
    """Claim new rows before their objects are made: the ones this call claimed (the
    others were claimed before: a job that died between making and recording them, or
    another worker)."""
    token = f"claim:{uuid.uuid4().hex}"
    write(site, kind, [(legacy_id, None, token, "") for legacy_id in legacy_ids], None)
    return {int(legacy_id) for (legacy_id,) in
            _select("legacy_id", site, kind, legacy_ids, "AND fingerprint = %s", [token])}


def write(site: str, kind: str, entries: list[Entry], on_duplicate: str | None) -> None:
    """Rows into the map, one multi-row ``INSERT``: a row already there is updated by
    ``on_duplicate`` (:data:`COPIED`, :data:`REFUSED`), or kept when it is None."""
    if not entries:
        return
    prefix = f"({_literal(site)}, {_literal(kind)}, "
    values = ",".join(f"{prefix}{int(legacy_id)}, "
                      f"{'NULL' if pinsite_id is None else int(pinsite_id)}, %s, %s)"
                      for legacy_id, pinsite_id, _, _ in entries)
    sql = (f"INSERT {'IGNORE ' if on_duplicate is None else ''}INTO {_table()} (source, kind, "
           f"legacy_id, pinsite_id, fingerprint, rejected) VALUES {values}"
           + ("" if on_duplicate is None else f" ON DUPLICATE KEY UPDATE {on_duplicate}"))
    with connections[ALIAS].cursor() as cursor:
        cursor.execute(sql, [text for _, _, print_, rejected in entries
                             for text in (print_, rejected)])


def _select(columns: str, site: str, kind: str, legacy_ids: Iterable[int], also: str = "",
            parameters: list[Any] | None = None) -> list[tuple[Any, ...]]:
    numbers = ",".join(str(int(legacy_id)) for legacy_id in legacy_ids)
    if not numbers:
        return []
    with connections[ALIAS].cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {_table()} WHERE source = %s AND kind = %s "
                       f"AND legacy_id IN ({numbers}) {also}", [site, kind, *(parameters or [])])
        return list(cursor.fetchall())


def _table() -> str:
    return str(connections[ALIAS].ops.quote_name(LegacyRecord._meta.db_table))


def _literal(text: str) -> str:
    """``text`` as an escaped SQL string literal, with ``%`` doubled for the parameters'
    formatting that follows."""
    connection = connections[ALIAS]
    connection.ensure_connection()
    quoted: bytes = connection.connection.literal(text)
    return quoted.decode().replace("%", "%%")

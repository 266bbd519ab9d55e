"""The outbox table of each shard host: domain events written in the transaction of the change
they announce, read back in order by the event relay, marked sent, purged after a while.

One table per physical master (``pinsite_events.outbox``), not per logical shard: a MySQL
transaction spans every schema of its server, so a row here commits or rolls back with the
shard rows beside it, and a relay polls a few tables instead of thousands. Each row names the
logical shard whose change it announces.

>>> with atomic(shard) as alias:
...     row_id = insert(alias, shard, "pin_created", {"pin_id": 1}, now_us())
>>> [row.name for row in unsent(alias, limit=100, created_before_us=now_us())]
['pin_created']
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sharding import locks
from sharding.hosts import Answer, cursor, send_for_answer

SCHEMA = "pinsite_events"
TABLE = f"{SCHEMA}.outbox"
LEASE = "pinsite.events.relay"

STATEMENTS = [
    f"CREATE DATABASE IF NOT EXISTS {SCHEMA} CHARACTER SET utf8mb4",
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
    shard INT UNSIGNED NOT NULL,
    name VARCHAR(64) NOT NULL,
    payload JSON NOT NULL,
    created_us BIGINT NOT NULL,
    sent_us BIGINT NULL,
    KEY by_sent (sent_us, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4""",
    # The journal's order (:func:`recorded_since`); tables made before it had by_created.
    f"CREATE INDEX IF NOT EXISTS by_name_created ON {TABLE} (name, created_us)",
    f"DROP INDEX IF EXISTS by_created ON {TABLE}",
]
_COLUMNS = "id, shard, name, payload, created_us"


@dataclass(frozen=True)
class Row:
    """One recorded event."""

    id: int
    shard: int
    name: str
    payload: dict[str, Any]
    created_us: int


@dataclass(frozen=True)
class HostCounts:
    """The outbox of one host at a glance."""

    unsent: int
    oldest_unsent_us: int | None
    sent_since: int


def create(alias: str) -> None:
    """Create the outbox schema and table on the master ``alias`` (idempotent)."""
    with cursor(alias) as c:
        for statement in STATEMENTS:
            c.execute(statement)


def insert(alias: str, shard: int, name: str, payload: dict[str, Any], created_us: int) -> int:
    """Add an unsent row (inside the caller's transaction on ``alias``); returns its ID."""
    return insert_many(alias, name, [(shard, payload)], created_us)[0]


def insert_many(alias: str, name: str, rows: Sequence[tuple[int, dict[str, Any]]],
                created_us: int) -> list[int]:
    """Add unsent rows of one event name, ``(shard, payload)`` each (one multi-row ``INSERT``
    in the caller's transaction on ``alias``); returns their IDs, in order."""
    with cursor(alias) as c:
        c.execute(f"INSERT INTO {TABLE} (shard, name, payload, created_us) VALUES "
                  + ",".join(["(%s, %s, %s, %s)"] * len(rows)) + " RETURNING id",
                  [value for shard, payload in rows for value in (
                      shard, name, _encoded(payload), created_us)])
        return sorted(int(row[0]) for row in c.fetchall())  # one statement: ascending


def insert_if_changed(alias: str, change: Answer, shard: int, name: str,
                      payload: dict[str, Any], created_us: int) -> Answer:
    """Add an unsent row only if the statement of ``change`` changed a row, in the same
    round trip: sent right after that statement, still unanswered, in the caller's
    transaction on ``alias`` (``ROW_COUNT()`` is that statement's count). Its answer's rows
    are the new row's ID, or none."""
    return send_for_answer(
        alias, f"INSERT INTO {TABLE} (shard, name, payload, created_us) "
               "SELECT %s, %s, %s, %s FROM DUAL WHERE ROW_COUNT() > 0 RETURNING id",
        [shard, name, _encoded(payload), created_us], after=change)


def _encoded(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))


def unsent(alias: str, limit: int, created_before_us: int, after_id: int = 0) -> list[Row]:
    """The oldest unsent rows (by ID, the order they were written in), at most ``limit``,
    written before ``created_before_us``."""
    with cursor(alias) as c:
        c.execute(f"SELECT {_COLUMNS} FROM {TABLE} "
                  "WHERE sent_us IS NULL AND id > %s AND created_us < %s ORDER BY id LIMIT %s",
                  [after_id, created_before_us, limit])
        return _rows(c)


def recorded_since(alias: str, name: str, after: tuple[int, int], limit: int) -> list[Row]:
    """Rows of event ``name``, sent or not (while the relay keeps them), in ``(created_us,
    id)`` order after the position ``after``, at most ``limit``. ``(since_us, 0)`` starts at
    the first row written at or after ``since_us``; the last row's ``(created_us, id)`` reads
    on."""
    created_us, row_id = after
    with cursor(alias) as c:
        c.execute(f"SELECT {_COLUMNS} FROM {TABLE} WHERE name = %s "
                  "AND (created_us > %s OR (created_us = %s AND id > %s)) "
                  "ORDER BY created_us, id LIMIT %s",
                  [name, created_us, created_us, row_id, limit])
        return _rows(c)


def _rows(c: Any) -> list[Row]:
    return [Row(int(i), int(s), n, json.loads(p), int(t)) for i, s, n, p, t in c.fetchall()]


def mark_sent(alias: str, ids: Sequence[int], sent_us: int) -> int:
    """Mark rows sent (those already marked keep their first time); returns how many changed."""
    if not ids:
        return 0
    with cursor(alias) as c:
        marks = ", ".join(["%s"] * len(ids))
        c.execute(f"UPDATE {TABLE} SET sent_us = %s WHERE id IN ({marks}) AND sent_us IS NULL",
                  [sent_us, *ids])
        return int(c.rowcount)


def purge(alias: str, sent_before_us: int, limit: int) -> int:
    """Delete up to ``limit`` rows sent before ``sent_before_us``; returns how many."""
    with cursor(alias) as c:
        c.execute(f"DELETE FROM {TABLE} WHERE sent_us < %s ORDER BY sent_us LIMIT %s",
                  [sent_before_us, limit])
        return int(c.rowcount)


def counts(alias: str, sent_since_us: int) -> HostCounts:
    """Unsent rows, the oldest one's time, and rows sent since ``sent_since_us``."""
    with cursor(alias) as c:
        c.execute(f"SELECT COUNT(*), MIN(created_us) FROM {TABLE} WHERE sent_us IS NULL")
        waiting, oldest = c.fetchone()
        c.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE sent_us >= %s", [sent_since_us])
        (sent,) = c.fetchone()
    return HostCounts(int(waiting), None if oldest is None else int(oldest), int(sent))


def take_lease(alias: str) -> bool:
    """Try to become this host's relay: a named lock held by this thread's connection
    (released when the connection ends, so a killed relay frees it at once)."""
    return locks.try_lock(alias, LEASE)


def holds_lease(alias: str) -> bool:
    """Whether this thread's connection to ``alias`` holds the relay lease."""
    return locks.holds_lock(alias, LEASE)


def release_lease(alias: str) -> None:
    locks.unlock(alias, LEASE)

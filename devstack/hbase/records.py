"""The changes the store applies, in the form the write-ahead log and replay use.

A record is a plain tuple whose timestamps are already resolved, so replaying the log applies
exactly what was acknowledged:

* ``(CREATE, table, created_ms, [(family, max_versions, options), ...])``
* ``(DROP, table)``, ``(ENABLE, table, flag)``, ``(COMPACT, table)``
* ``(MUTATE, table, [(row, [(kind, family, qualifier, timestamp, value), ...]), ...])`` where
  ``kind`` is :data:`PUT`, :data:`DELETE_COLUMN` or :data:`DELETE_FAMILY`; deletes carry an
  empty value, family deletes an empty qualifier
"""

from __future__ import annotations

import time
from typing import Any

CREATE, DROP, ENABLE, COMPACT, MUTATE = "create", "drop", "enable", "compact", "mutate"
PUT, DELETE_COLUMN, DELETE_FAMILY = 0, 1, 2
LATEST_TIMESTAMP = 2**63 - 1

Record = tuple[Any, ...]
Op = tuple[int, bytes, bytes, int, bytes]
RowOps = tuple[bytes, list[Op]]


def now_ms() -> int:
    """The current time in milliseconds, HBase's cell timestamp unit."""
    return time.time_ns() // 1_000_000

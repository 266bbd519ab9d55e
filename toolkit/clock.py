"""The one clock of pinsite's records: wall-clock microseconds since the epoch. Edge
sequences, feed cell timestamps, creation times and cursors all count in it.

>>> now_us()
1795780800000000
>>> iso_time(1795780800000000)
'2026-11-26T00:00:00+00:00'
"""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_us() -> int:
    """The current time in microseconds."""
    return time.time_ns() // 1000


def datetime_of(us: int) -> datetime:
    """The UTC time ``us`` microseconds after the epoch."""
    return datetime.fromtimestamp(us / 1_000_000, UTC)


def iso_time(us: int, timespec: str = "seconds") -> str:
    """``us`` as ISO 8601 text in UTC, to ``timespec`` (as :meth:`datetime.isoformat`)."""
    return datetime_of(us).isoformat(timespec=timespec)

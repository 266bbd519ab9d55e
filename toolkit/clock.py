"""The one clock of pinsite's records: wall-clock microseconds since the epoch. Edge
sequences, feed cell timestamps, creation times and cursors all count in it.

>>> now_us()
1795780800000000
"""

from __future__ import annotations

import time


def now_us() -> int:
    """The current time in microseconds."""
    return time.time_ns() // 1000

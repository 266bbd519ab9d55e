"""Waiting for a condition that another process brings about.

>>> until(lambda: replica_in_sync(), seconds=30)
True
"""

from __future__ import annotations

import time
from collections.abc import Callable


def until(condition: Callable[[], object], seconds: float, every: float = 0.05) -> bool:
    """Check ``condition`` every ``every`` seconds until it holds or ``seconds`` pass;
    whether it held."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True

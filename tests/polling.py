"""Waiting in tests for work that finishes in the background (queue workers, watches, servers).

>>> assert wait_until(lambda: pin in feed_ids(user), timeout=20)
"""

from __future__ import annotations

from collections.abc import Callable

from toolkit.waiting import until


def wait_until(check: Callable[[], bool], timeout: float = 30.0, every: float = 0.05) -> bool:
    """Poll ``check`` every ``every`` seconds until it holds or ``timeout`` seconds pass;
    whether it held."""
    return until(check, timeout, every)

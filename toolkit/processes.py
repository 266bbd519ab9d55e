"""Values of one process: made on first use, made again in a forked child (which cannot use
its parent's sockets or threads). Clients, connection pools and thread pools are kept this way.

>>> executor = ProcessLocal(lambda: ThreadPoolExecutor(max_workers=4))
>>> executor.get().submit(work)
>>> clients = PerProcess(new_client)          # by key: one client per instance name
>>> clients.get("redis001a")
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class PerProcess(Generic[K, V]):
    """``make(key)`` once per key in each process; :meth:`clear` forgets them."""

    def __init__(self, make: Callable[[K], V]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._values: dict[K, V] = {}
        self._pid = 0

    def get(self, key: K) -> V:
        """This process's value for ``key`` (made now if it has none)."""
        if self._pid == os.getpid():
            found = self._values.get(key)
            if found is not None:
                return found
        with self._lock:
            if self._pid != os.getpid():
                self._values, self._pid = {}, os.getpid()
            if key not in self._values:
                self._values[key] = self._make(key)
            return self._values[key]

    def mine(self) -> list[V]:
        """The values this process made (none after a fork)."""
        with self._lock:
            return list(self._values.values()) if self._pid == os.getpid() else []

    def clear(self) -> None:
        """Forget every value; the next :meth:`get` makes new ones."""
        with self._lock:
            self._values = {}


class ProcessLocal(Generic[V]):
    """``make()`` once in each process; :meth:`clear` forgets it."""

    def __init__(self, make: Callable[[], V]) -> None:
        self._one: PerProcess[None, V] = PerProcess(lambda _: make())

    def get(self) -> V:
        """This process's value (made now if it has none)."""
        return self._one.get(None)

    def clear(self) -> None:
        self._one.clear()

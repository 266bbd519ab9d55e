"""A background thread of this process: started on first use, and started again in a child
after a fork (a forked child has none of its parent's threads).

>>> sender = ProcessThread(run_forever, "events-publisher")
>>> sender.ensure()          # cheap when it is running already
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable


class ProcessThread:
    """One daemon thread running ``target`` in each process that calls :meth:`ensure`."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        self._target = target
        self._name = name
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def ensure(self) -> None:
        """Start the thread unless it runs in this process already."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive() and \
                    self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._target, name=self._name, daemon=True)
            self._thread.start()

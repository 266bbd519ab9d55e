"""Background threads: one per process, started on first use and started again in a child
after a fork (a forked child has none of its parent's threads); and one per queue worker, from
its boot to its shutdown.

>>> sender = ProcessThread(run_forever, "events-publisher")
>>> sender.ensure()          # cheap when it is running already
>>> broker.add_middleware(Sampler())   # class Sampler(WorkerThread): def run(...)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import dramatiq


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


class WorkerThread(dramatiq.Middleware):
    """A Dramatiq middleware that runs :meth:`run` in a thread of each worker, from the
    worker's boot until ``stop`` is set at its shutdown."""

    name = "worker-thread"

    def __init__(self) -> None:
        self.stops: dict[int, threading.Event] = {}

    def run(self, worker: dramatiq.Worker, stop: threading.Event) -> None:
        raise NotImplementedError

    def after_worker_boot(self, broker: dramatiq.Broker, worker: Any) -> None:
        stop = self.stops[id(worker)] = threading.Event()
        threading.Thread(target=self.run, args=(worker, stop), daemon=True,
                         name=self.name).start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: Any) -> None:
        stop = self.stops.pop(id(worker), None)
        if stop is not None:
            stop.set()

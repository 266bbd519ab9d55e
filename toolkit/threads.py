"""Background threads: one per process, started on first use and started again in a child
after a fork (a forked child has none of its parent's threads); one per queue worker, from its
boot to its shutdown; and a process's thread that handles what callers hand over in batches.

>>> sender = ProcessThread(run_forever, "events-publisher")
>>> sender.ensure()          # cheap when it is running already
>>> broker.add_middleware(Sampler())   # class Sampler(WorkerThread): def run(...)
>>> Batcher(publish, "events-publisher", linger=..., limit=...).submit(events)
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import dramatiq

log = logging.getLogger("pinsite")
T = TypeVar("T")


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


class Batcher(Generic[T]):
    """Items handed over from any thread, handled in batches by one :class:`ProcessThread`:
    the first item and whatever follows within ``linger()`` seconds, up to ``limit()`` items,
    go to ``handle`` together (concurrent callers share one round trip, one disk sync). The
    thread sleeps through the linger rather than waking for each item handed over meanwhile:
    under load those wake-ups cost more than the rest of the hand-over. ``handle`` must log
    its own failures; anything it raises is logged here, and the batch counts as done.

    >>> sender = Batcher(send_all, "visits", linger=lambda: 0.005, limit=lambda: 500)
    >>> sender.submit(messages)   # returns at once
    >>> sender.flush(5.0)         # tests, benchmarks and exit: wait until all is handled
    True
    """

    def __init__(self, handle: Callable[[list[T]], object], name: str,
                 linger: Callable[[], float], limit: Callable[[], int]) -> None:
        self._handle = handle
        self._name = name
        self._linger = linger
        self._limit = limit
        self._queue: queue.SimpleQueue[T] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._handed = self._done = 0
        self._thread = ProcessThread(self._run, name)

    def submit(self, items: Sequence[T]) -> None:
        if not items:
            return
        with self._idle:
            self._handed += len(items)
        for item in items:
            self._queue.put(item)
        self._thread.ensure()

    def flush(self, timeout: float) -> bool:
        """Wait until everything handed over so far is handled; False if that took longer
        than ``timeout`` seconds."""
        with self._idle:
            target = self._handed
            return self._idle.wait_for(lambda: self._done >= target, timeout)

    def _run(self) -> None:
        while True:
            batch = [self._queue.get()]
            time.sleep(self._linger())  # asleep, not woken by every item handed over meanwhile
            limit = self._limit()
            while len(batch) < limit:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._handle(batch)
            except Exception:  # the thread must outlive any bug in one batch
                log.exception("%s: handling %d item(s) failed", self._name, len(batch))
            finally:
                with self._idle:
                    self._done += len(batch)
                    self._idle.notify_all()

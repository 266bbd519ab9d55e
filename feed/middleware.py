"""Samples the queue depths for the fanout dashboard in every queue worker process
(``dramatiq pinsite.worker``, and so ``manage.py runsite``), once per bucket across all of
them (:func:`feed.observe.sample_depths`)."""

from __future__ import annotations

import threading
import time
from typing import Any

import dramatiq

from feed import observe, tasks
from feed.deadletters import queue_depths


class DepthSamplerMiddleware(dramatiq.Middleware):
    """Starts a sampling thread when a worker boots, stops it at shutdown."""

    def __init__(self) -> None:
        self.stops: dict[int, threading.Event] = {}

    def after_worker_boot(self, broker: dramatiq.Broker, worker: Any) -> None:
        stop = self.stops[id(worker)] = threading.Event()
        threading.Thread(target=_sample_until, args=(stop,), daemon=True,
                         name="feed-depth-sampler").start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: Any) -> None:
        stop = self.stops.pop(id(worker), None)
        if stop is not None:
            stop.set()


def _sample_until(stop: threading.Event) -> None:
    while not stop.is_set():
        observe.sample_depths(lambda: queue_depths(tasks.every_queue()))
        stop.wait(observe.BUCKET_SECONDS - time.time() % observe.BUCKET_SECONDS + 0.5)

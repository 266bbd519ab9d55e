"""Samples the queue depths for the fanout dashboard in every queue worker process
(``dramatiq pinsite.worker``, and so ``manage.py runsite``): RabbitMQ's counts once per bucket
across all of them (:func:`feed.observe.sample_depths`), and each process's held retries
(:func:`held_retries`, :func:`feed.observe.record_held`) once per bucket from every one."""

from __future__ import annotations

import threading
import time
from typing import Any

import dramatiq
from dramatiq.common import dq_name, q_name

from feed import observe, queues


class DepthSamplerMiddleware(dramatiq.Middleware):
    """Starts a sampling thread when a worker boots, stops it at shutdown."""

    def __init__(self) -> None:
        self.stops: dict[int, threading.Event] = {}

    def after_worker_boot(self, broker: dramatiq.Broker, worker: Any) -> None:
        stop = self.stops[id(worker)] = threading.Event()
        threading.Thread(target=_sample_until, args=(worker, stop), daemon=True,
                         name="feed-depth-sampler").start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: Any) -> None:
        stop = self.stops.pop(id(worker), None)
        if stop is not None:
            stop.set()


def held_retries(worker: dramatiq.Worker) -> dict[str, int]:
    """Queue → retries ``worker`` holds: messages its consumers took off the queue's delay
    queue (``<queue>.DQ``), kept in memory until their time comes. RabbitMQ counts them
    nowhere meanwhile (they are unacknowledged), so without them an outage's retries would be
    missing from the depths."""
    return {q_name(name): consumer.delay_queue.qsize()
            for name, consumer in list(worker.consumers.items()) if name == dq_name(name)}


def _sample_until(worker: dramatiq.Worker, stop: threading.Event) -> None:
    while not stop.is_set():
        observe.sample_depths(queues.every_queue_depth)
        observe.record_held(held_retries(worker))
        stop.wait(observe.BUCKET_SECONDS - time.time() % observe.BUCKET_SECONDS + 0.5)

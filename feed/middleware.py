"""Work the queue worker processes do besides their messages (``dramatiq pinsite.worker``, and
so ``manage.py runsite``): the auditor's rounds (:mod:`feed.audit_rounds`), and the sampling
below.

Samples the queue depths for the fanout dashboard in every queue worker process
(``dramatiq pinsite.worker``, and so ``manage.py runsite``): RabbitMQ's counts once per bucket
across all of them (:func:`feed.observe.sample_depths`), and each process's held retries
(:func:`held_retries`, :func:`feed.observe.record_held`) once per bucket from every one."""

from __future__ import annotations

import threading
import time
from typing import Any

import dramatiq
from dramatiq.common import dq_name, q_name

from feed import audit_rounds, observe, queues


class WorkerThread(dramatiq.Middleware):
    """Runs :meth:`run` in a thread of each worker from its boot to its shutdown."""

    name = "feed-worker-thread"

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


class DepthSamplerMiddleware(WorkerThread):
    """Samples the queue depths and the worker's held retries once per bucket."""

    name = "feed-depth-sampler"

    def run(self, worker: dramatiq.Worker, stop: threading.Event) -> None:
        while not stop.is_set():
            observe.sample_depths(queues.every_queue_depth)
            observe.record_held(held_retries(worker))
            stop.wait(observe.BUCKET_SECONDS - time.time() % observe.BUCKET_SECONDS + 0.5)


class AuditMiddleware(WorkerThread):
    """The feed auditor's rounds (one process of the site runs each,
    :func:`feed.audit_rounds.run_round`)."""

    name = "feed-auditor"

    def run(self, worker: dramatiq.Worker, stop: threading.Event) -> None:
        audit_rounds.run_forever(stop)


def held_retries(worker: dramatiq.Worker) -> dict[str, int]:
    """Queue → retries ``worker`` holds: messages its consumers took off the queue's delay
    queue (``<queue>.DQ``), kept in memory until their time comes. RabbitMQ counts them
    nowhere meanwhile (they are unacknowledged), so without them an outage's retries would be
    missing from the depths."""
    return {q_name(name): consumer.delay_queue.qsize()
            for name, consumer in list(worker.consumers.items()) if name == dq_name(name)}

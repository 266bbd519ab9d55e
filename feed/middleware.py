"""What the feed's queue worker processes do besides their messages (``dramatiq
pinsite.worker``, and so ``manage.py runsite``), each in a thread of its own
(:class:`toolkit.threads.WorkerThread`): the auditor's rounds (:mod:`feed.audit_rounds`), and
the queue depths for the fanout dashboard, RabbitMQ's counts once per bucket across all
processes (:func:`feed.observe.sample_depths`) and each process's held retries
(:func:`held_retries`, :func:`feed.observe.record_held`) once per bucket from every one."""

from __future__ import annotations

import threading
import time

import dramatiq
from dramatiq.common import dq_name, q_name

from feed import audit_rounds, observe, queues
from toolkit.threads import WorkerThread


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

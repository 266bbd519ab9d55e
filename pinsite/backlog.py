"""Working off the queues' backlog in this process, before the site serves.

A bulk step that goes through the ordinary actions (``seed_demo``: a few hundred pins and
follows) leaves a couple of thousand messages behind it: fan-outs, feed writes on both
clusters, pool inserts. Left to the site's queue worker, they stand in front of the first
pinner's follow for half a minute, and the demo's feeds fill while it is looked at.
:func:`work_off` runs a worker of every queue here until no queue holds a message (ready,
delayed or in progress) and this process has nothing left to publish.

>>> work_off()
WorkedOff(found=1480, worked=4515)
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass

import dramatiq
from django.apps import apps

from events import publisher
from feed import queues as feed_queues
from toolkit.queue import in_hand, queue_depths

POLL_SECONDS = 0.2
QUIET_POLLS = 5
"""Polls in a row that must find nothing left. A poll reads RabbitMQ's counts, then the
worker's: an actor that sends a message after the first read and finishes before the second
is missed by both, once."""


@dataclass(frozen=True)
class Backlog:
    """Messages waiting in the queues and in this process's worker."""

    queued: int
    in_worker: int

    @property
    def left(self) -> int:
        return self.queued + self.in_worker


class BacklogNotWorkedOff(Exception):
    """The queues still held messages when the time allowed ran out."""

    def __init__(self, backlog: Backlog, seconds: float) -> None:
        super().__init__(f"{backlog.left:,} message(s) still queued after {seconds:g}s "
                         "(the queue workers deliver them once the site runs)")
        self.backlog = backlog


def import_actors() -> None:
    """Import the ``tasks`` module of every installed app: the actors and their queues."""
    for app in apps.get_app_configs():
        module = f"{app.name}.tasks"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)


@dataclass(frozen=True)
class WorkedOff:
    """What :func:`work_off` found at its first poll, and what it saw worked off in all (a
    lower bound: messages sent and worked between two polls are not seen)."""

    found: int
    worked: int


def work_off(tick: Callable[[WorkedOff], object] = lambda so_far: None, seconds: float = 600,
             threads: int = 4) -> WorkedOff:
    """Work every queue here until nothing is left; ``tick`` is told the progress at each
    poll. :class:`BacklogNotWorkedOff` after ``seconds``: what is left stays queued."""
    import_actors()
    publisher.flush()
    names = feed_queues.every_queue()
    _queued(names)  # RabbitMQ down is one QueueUnavailable here, not a worker retrying
    worker = dramatiq.Worker(dramatiq.get_broker(), queues=set(names), worker_threads=threads)
    deadline = time.monotonic() + seconds
    worker.start()
    try:
        return _worked_off(worker, names, tick, deadline, seconds)
    finally:
        worker.stop()
        publisher.flush_and_mark()


def _worked_off(worker: dramatiq.Worker, names: list[str],
                tick: Callable[[WorkedOff], object], deadline: float, seconds: float,
                ) -> WorkedOff:
    quiet = 0
    backlog = _backlog(worker, names)
    progress = WorkedOff(backlog.left, 0)
    while True:
        tick(progress)
        quiet = quiet + 1 if backlog.left == 0 and publisher.flush(0) else 0
        if quiet >= QUIET_POLLS:
            return progress
        if time.monotonic() >= deadline:
            raise BacklogNotWorkedOff(backlog, seconds)
        time.sleep(POLL_SECONDS)
        left = backlog.left
        backlog = _backlog(worker, names)
        progress = WorkedOff(progress.found, progress.worked + max(0, left - backlog.left))


def _queued(names: list[str]) -> int:
    return sum(depth.waiting for depth in queue_depths(names))


def _backlog(worker: dramatiq.Worker, names: list[str]) -> Backlog:
    return Backlog(_queued(names), in_hand(worker))

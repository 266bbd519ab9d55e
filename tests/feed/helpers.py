"""Helpers for feed tests: users, boards and pins made through the real actions, the worker's
queues, captured queue messages for the few tests about what is sent, reading feeds back from
HBase."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import dramatiq
from dramatiq import Message

from accounts import tasks as accounts_tasks
from devstack import Stack
from devstack.hbase import admin as hbase_admin
from events import publisher
from feed import observe, queues, storage
from feed.smart import tasks as smart_tasks
from feed.store.pools import CLUSTERS, Cluster, feed_table
from graph import tasks as graph_tasks
from graph.actions import follow_board
from pins import tasks as pins_tasks
from pins.actions import create_board, create_pin, create_pinner
from tests.feed.running import RunningQueue
from tests.pins.helpers import image_bytes, unique_username


def new_user(prefix: str = "f") -> int:
    return create_pinner(unique_username(prefix), None).user_id


def new_board(owner: int, name: str = "Quiche") -> int:
    return create_board(owner, name).id


def new_pin(owner: int, board: int, title: str = "Leek quiche") -> int:
    return create_pin(owner, board, title, "", "", image_bytes(4, 4)).id


def board_with_followers(count: int) -> tuple[int, int, list[int]]:
    """A new owner, a board of theirs and ``count`` new users following that board."""
    owner = new_user()
    board = new_board(owner)
    followers = [new_user() for _ in range(count)]
    for follower in followers:
        follow_board(follower, board)
    return owner, board, followers


def followed_pins(running: RunningQueue, count: int = 3) -> tuple[int, int, int, list[int]]:
    """A board's owner, a follower of the board, the board and ``count`` pins of it, delivered
    by the real queue and worker: ``owner, follower, board, pins``."""
    owner, follower = new_user(), new_user()
    board = new_board(owner)
    follow_board(follower, board)
    pins = [new_pin(owner, board) for _ in range(count)]
    running.settle()
    return owner, follower, board, pins


def feed_ids(user: int, cluster: Cluster = "primary") -> list[int]:
    """The pin IDs stored in a user's feed on ``cluster``, newest first."""
    return [entry.pin_id for entry in storage.read_entries(cluster, user)]


def feed_ids_on_both(user: int) -> list[int]:
    """The pin IDs stored in a user's feed, newest first, once both clusters are found to hold
    the same ones."""
    primary, standby = (feed_ids(user, cluster) for cluster in CLUSTERS)
    assert primary == standby, (primary, standby)
    return primary


@dataclass
class CapturedQueue:
    """Messages sent to the broker, kept instead of published; run them in any order.

    Only for tests about *what* is sent (which actors, arguments, batches), or that need one
    exact schedule no worker would produce on purpose. A test about what happens runs its
    messages through RabbitMQ and a worker (``running`` in ``tests/feed/conftest.py``).

    >>> queue.run_all(random.Random(3), duplicates=0.3)   # shuffled, some run twice
    """

    broker: dramatiq.Broker
    sent: list[Message[Any]] = field(default_factory=list)
    batches: list[int] = field(default_factory=list)  # sizes of the batches sent together

    @property
    def pending(self) -> list[Message[Any]]:
        """What was sent and not run yet, once the graph's publisher thread has published
        what was handed to it (a follow returns before its event is published)."""
        publisher.flush()
        return self.sent

    def enqueue(self, message: Message[Any], *, delay: int | None = None) -> Message[Any]:
        """Keep ``message``; its delay is not kept, a captured message runs when run."""
        self.sent.append(message)
        return message

    def enqueue_all(self, messages: list[Message[Any]]) -> list[Message[Any]]:
        self.sent.extend(messages)
        self.batches.append(len(messages))
        return messages

    @contextmanager
    def capturing(self) -> Iterator[CapturedQueue]:
        """Capture the broker's sends, one at a time and in batches, within the block."""
        with mock.patch.object(self.broker, "enqueue", self.enqueue), \
                mock.patch.object(self.broker, "enqueue_all", self.enqueue_all):
            yield self
            publisher.flush()  # what the block's follows handed over is captured too

    def clear(self) -> None:
        self.pending.clear()
        self.batches.clear()

    def run(self, message: Message[Any]) -> None:
        self.broker.get_actor(message.actor_name).fn(*message.args, **message.kwargs)

    def run_some(self, rng: random.Random, count: int, duplicates: float = 0.0) -> None:
        """Run up to ``count`` randomly chosen pending messages; each one stays pending for
        another run with probability ``duplicates``."""
        for _ in range(min(count, len(self.pending))):
            message = self.pending.pop(rng.randrange(len(self.pending)))
            if rng.random() < duplicates:
                self.pending.append(message)
            self.run(message)

    def run_all(self, rng: random.Random | None = None, duplicates: float = 0.0) -> None:
        rng = rng or random.Random(0)
        while self.pending:
            self.run_some(rng, len(self.pending), duplicates)

    def actors(self) -> list[str]:
        return [message.actor_name for message in self.pending]


def worker_queues() -> list[str]:
    """The queues a test worker consumes: the feed's, the graph's, the content's and account
    deletion's."""
    return [*queues.names(), *smart_tasks.queues(), graph_tasks.QUEUE, pins_tasks.QUEUE,
            accounts_tasks.QUEUE]


def flush_feed_queues() -> None:
    """Empty the worker's queues (and their delay and dead-letter queues) of what other tests
    left, before a test starts workers; what the publisher thread holds is published first."""
    publisher.flush()
    broker: Any = dramatiq.get_broker()
    # This thread's connection may have idled past the broker's heartbeat timeout (a blocking
    # connection sends no heartbeats between calls) and been closed: purge on a fresh one.
    del broker.connection
    for name in worker_queues():
        broker.declare_queue(name, ensure=True)
        broker.flush(name)


def queued_messages() -> int:
    """Messages waiting (ready or delayed) in every queue of the site."""
    return sum(depth.waiting for depth in queues.every_queue_depth())


def clear_of_a_bucket_edge() -> None:
    """Wait until the current observation bucket has at least 2 s left, so what a test
    records and reads back lands in one bucket."""
    left = observe.BUCKET_SECONDS - time.time() % observe.BUCKET_SECONDS
    if left < 2:
        time.sleep(left + 0.1)


def major_compact_feed() -> None:
    """Flush and major-compact the feed table on the primary cluster (hbase1), and wait until
    it is done: what purges delete markers."""
    hbase_admin.run(Stack().services["hbase1"], "major-compact", feed_table())

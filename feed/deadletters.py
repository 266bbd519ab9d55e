"""Inspecting the queues without consuming them: depths, and the dead letters (``<queue>.XQ``).

Dramatiq moves a message there once its retries are exhausted; RabbitMQ keeps it for the
broker's dead-message TTL (7 days by default). Listing takes messages with ``basic_get`` and
never acknowledges them: closing the channel puts every one back, in order.

>>> [letter.actor for letter in dead_letters(["feed_standby"])]
['feed_deliver_pin_standby']
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dramatiq
import pika
import pika.exceptions
from django.conf import settings
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.common import xq_name

from feed.exceptions import FeedError

CONNECT_TIMEOUT_SECONDS = 5


class QueueUnavailable(FeedError):
    """RabbitMQ cannot be reached to list the dead letters or count the messages."""


@dataclass(frozen=True)
class QueueDepth:
    """Messages waiting in a queue: ready, delayed (retries) and dead."""

    name: str
    ready: int
    delayed: int
    dead: int


def queue_depths(names: Sequence[str]) -> list[QueueDepth]:
    """Ready, delayed and dead messages of each queue (declaring any that are missing)."""
    broker = dramatiq.get_broker()
    if not isinstance(broker, RabbitmqBroker):
        raise QueueUnavailable(f"{type(broker).__name__} cannot report queue depths")
    try:
        return [QueueDepth(name, *broker.get_queue_message_counts(name)) for name in names]
    except Exception as exc:  # the broker lets its AMQP client's errors through unwrapped
        raise QueueUnavailable(f"RabbitMQ cannot report queue depths: {exc!r}") from exc


@dataclass(frozen=True)
class DeadLetter:
    """One message that exhausted its retries."""

    queue: str
    message_id: str
    actor: str
    args: list[Any]
    kwargs: dict[str, Any]
    retries: int
    failed_at_ms: int | None
    error: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def dead_letters(queues: Sequence[str], limit: int = 1000) -> list[DeadLetter]:
    """Up to ``limit`` dead letters of each of ``queues`` (their ``.XQ`` queues), oldest first;
    queues that were never declared have none."""
    found: list[DeadLetter] = []
    with _connection() as connection:
        for queue in queues:
            try:
                found += _peek(connection, queue, limit)
            except pika.exceptions.AMQPError as exc:
                raise QueueUnavailable(f"RabbitMQ failed while reading {queue}: {exc!r}") from exc
    return found


def _peek(connection: Any, queue: str, limit: int) -> list[DeadLetter]:
    """Read without acknowledging; closing the channel returns the messages to the queue."""
    channel = connection.channel()
    letters = []
    try:
        for _ in range(limit):
            method, _properties, body = channel.basic_get(xq_name(queue),
                                                          auto_ack=False)
            if method is None:
                break
            letters.append(_decode(queue, body))
    except pika.exceptions.ChannelClosedByBroker:
        return letters
    channel.close()
    return letters


def _decode(queue: str, body: bytes) -> DeadLetter:
    message = json.loads(body)
    options = message.get("options", {})
    trace = (options.get("traceback") or "").strip().splitlines()
    return DeadLetter(queue=queue, message_id=str(message.get("message_id", "")),
                      actor=str(message.get("actor_name", "")), args=message.get("args", []),
                      kwargs=message.get("kwargs", {}), retries=int(options.get("retries", 0)),
                      failed_at_ms=options.get("requeue_timestamp"),
                      error=trace[-1] if trace else "")


@contextmanager
def _connection() -> Iterator[Any]:
    parameters = pika.URLParameters(settings.AMQP_URL)
    parameters.socket_timeout = CONNECT_TIMEOUT_SECONDS
    parameters.blocked_connection_timeout = CONNECT_TIMEOUT_SECONDS
    try:
        connection = pika.BlockingConnection(parameters)
    except pika.exceptions.AMQPError as exc:
        raise QueueUnavailable(f"RabbitMQ cannot be reached: {exc!r}") from exc
    try:
        yield connection
    finally:
        if connection.is_open:
            connection.close()

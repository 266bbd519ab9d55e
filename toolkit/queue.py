"""The task queue: Dramatiq on RabbitMQ.

Actors receive IDs and timestamps, never objects, and are idempotent. Retries back off
exponentially; a message that exhausts its retries lands in the queue's dead-letter queue
(``<queue>.XQ``), where operators can see it. The broker is configured once Django's settings
are loaded (``PinsiteConfig.ready``), never at import time, and connects lazily.

Every send is confirmed by RabbitMQ (the message is on disk) before it returns. An actor that
sends several messages sends them together with :func:`send_all`: one transaction, one wait.

Queues are inspected here too, without consuming them: depths (:func:`queue_depths`) and the
dead letters (:func:`dead_letters`). Dramatiq moves a message to ``<queue>.XQ`` once its
retries are exhausted; RabbitMQ keeps it for the broker's dead-message TTL (7 days by default).
Listing takes messages with ``basic_get`` and never acknowledges them: closing the channel
puts every one back, in order.

>>> send_all(deliver.message(pin, chunk) for chunk in chunks)
>>> [letter.actor for letter in dead_letters(["feed_standby"])]
['feed_deliver_pin_standby']
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, cast

import dramatiq
import orjson
import pika
import pika.exceptions
from django.conf import settings
from dramatiq import Message
from dramatiq.brokers.rabbitmq import MAX_ENQUEUE_ATTEMPTS, RabbitmqBroker
from dramatiq.common import q_name, xq_name
from dramatiq.encoder import Encoder, MessageData
from dramatiq.errors import ConnectionClosed
from dramatiq.middleware import Middleware, MiddlewareError, default_middleware
from dramatiq.worker import _WorkerMiddleware

from toolkit.errors import StoreUnavailable

# Dramatiq's Prometheus middleware runs only where the site's metrics directory is shared
# (``manage.py runsite`` sets ``dramatiq_prom_db`` and a loopback ``dramatiq_prom_host``);
# anywhere else its exporter would listen on a fixed port of every address.
PROMETHEUS_ENV = ("dramatiq_prom_db", "dramatiq_prom_host")
# What a send raises when RabbitMQ cannot be reached or drops the connection.
BROKER_ERRORS = (dramatiq.errors.ConnectionError, pika.exceptions.AMQPError)
# Messages per transaction in :func:`send_all` (a feed chunk's message is about 20 kB).
BATCH = 100


class BodyEncoder(Encoder):
    """Message bodies in JSON, by orjson: the bytes Dramatiq's own encoder makes of the
    messages' IDs, times and names (keys that are not strings become strings, as there),
    in a fifth of its time, and read back in a sixth."""

    def encode(self, data: MessageData) -> bytes:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)

    def decode(self, data: bytes) -> MessageData:
        return cast(MessageData, orjson.loads(data))


class Broker(RabbitmqBroker):
    """RabbitMQ with batches: :meth:`enqueue_all` publishes many messages in one AMQP
    transaction on a channel of its own (per thread), so a batch costs one round trip and one
    disk sync instead of a confirm per message, and lands whole or not at all.

    A signal is sent only to the middleware that handles it: of the ten a worker has, none
    handles an enqueue and at most five any step of processing, and calling the others'
    empty methods cost a send a fifth of its CPU."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._handlers: dict[str, tuple[Middleware, ...]] = {}
        self._handlers_among: list[Middleware] = []  # what ``_handlers`` was found among
        super().__init__(*args, **kwargs)

    def emit_before(self, signal: str, *args: Any, **kwargs: Any) -> None:
        signal = "before_" + signal
        for middleware in self._handlers_of(signal):
            try:
                getattr(middleware, signal)(self, *args, **kwargs)
            except MiddlewareError:
                raise
            except Exception:
                self.logger.critical("Unexpected failure in %s of %r.", signal, middleware,
                                     exc_info=True)

    def emit_after(self, signal: str, *args: Any, **kwargs: Any) -> None:
        signal = "after_" + signal
        for middleware in reversed(self._handlers_of(signal)):
            try:
                getattr(middleware, signal)(self, *args, **kwargs)
            except Exception:
                self.logger.critical("Unexpected failure in %s of %r.", signal, middleware,
                                     exc_info=True)
        if signal == "after_worker_shutdown":
            self._forget_worker(args[0])

    def _forget_worker(self, worker: dramatiq.Worker) -> None:
        """Take a stopped worker's own middleware off the broker. Dramatiq adds one each time
        a worker starts and never removes it: every worker started in a process (``queues
        work-off``, the tests') would leave its own behind, to add consumers to that stopped
        worker whenever a queue is declared later."""
        self.middleware[:] = [middleware for middleware in self.middleware
                              if not (isinstance(middleware, _WorkerMiddleware)
                                      and middleware.worker is worker)]

    def _handlers_of(self, signal: str) -> tuple[Middleware, ...]:
        """The middleware (in order) whose ``signal`` method is not Dramatiq's empty one,
        found again whenever the list of middleware changed (Dramatiq adds a worker's when it
        starts, the broker takes it off when the worker stops, tests remove theirs)."""
        if self._handlers_among != self.middleware:
            self._handlers, self._handlers_among = {}, list(self.middleware)
        found = self._handlers.get(signal)
        if found is None:
            empty = getattr(Middleware, signal, None)
            found = self._handlers[signal] = tuple(
                middleware for middleware in self.middleware
                if getattr(type(middleware), signal, None) is not empty
                or signal in getattr(middleware, "__dict__", {}))
        return found

    def consume(self, queue_name: str, prefetch: int = 1, timeout: int = 5000) -> Any:
        """Dramatiq's consumer, once the queue's family (queue, ``.DQ``, ``.XQ``) exists: a
        worker's delay-queue consumer may start before its queue's consumer has declared
        them, and would fail its first connection on a new broker."""
        self.declare_queue(q_name(queue_name), ensure=True)
        return super().consume(queue_name, prefetch, timeout)

    def _batch_channel(self) -> Any:
        channel = getattr(self.state, "batch_channel", None)
        if channel is None or not channel.is_open:
            channel = self.state.batch_channel = self.connection.channel()
            channel.tx_select()
            self.channels.add(channel)
        return channel

    def enqueue_all(self, messages: list[Message[Any]]) -> list[Message[Any]]:
        """Publish ``messages`` (none of them delayed) in one transaction; a dropped
        connection is reopened and the whole batch published again, as :meth:`enqueue` does
        for one message (actors are idempotent, so a batch that did land twice is harmless)."""
        attempts = 0
        while True:
            try:
                for name in dict.fromkeys(message.queue_name for message in messages):
                    self.declare_queue(name, ensure=True)
                self._publish(self._batch_channel(), messages)
                for message in messages:
                    self.emit_after("enqueue", message, None)
                return messages
            except (pika.exceptions.AMQPConnectionError, pika.exceptions.AMQPChannelError) as exc:
                self._drop_batch_channel()
                del self.connection
                if getattr(exc, "reply_code", None) == 404:
                    declared = cast(set[str], self.queues)  # a set in RabbitmqBroker
                    declared.difference_update(q_name(message.queue_name)
                                               for message in messages)
                attempts += 1
                if attempts > MAX_ENQUEUE_ATTEMPTS:
                    raise ConnectionClosed(exc) from None

    def _publish(self, channel: Any, messages: list[Message[Any]]) -> None:
        """Publish and commit. If anything fails on the way (an unencodable message, a
        middleware, the connection), the channel is closed, which drops the open transaction:
        no part of this batch rides along with the next one.

        The messages are written to the channel under pika's blocking one (``_impl``), whose
        ``basic_publish`` buffers the frames: the blocking channel's would run the I/O loop
        after every message, which cost most of a batch's CPU. Inside a transaction nothing
        has to reach RabbitMQ before the commit, whose wait for ``Tx.CommitOk`` sends them all
        (in one write: :func:`_join_frames`)."""
        try:
            buffered = channel._impl
            for message in messages:
                self.emit_before("enqueue", message, None)
                buffered.basic_publish(
                    exchange="", routing_key=message.queue_name, body=message.encode(),
                    properties=pika.BasicProperties(
                        delivery_mode=2, priority=message.options.get("broker_priority")))
            _join_frames(buffered.connection)
            channel.tx_commit()
        except Exception:
            self._drop_batch_channel()
            raise

    def _drop_batch_channel(self) -> None:
        channel = getattr(self.state, "batch_channel", None)
        self.state.batch_channel = None
        if channel is not None:
            self.channels.discard(channel)
            with suppress(pika.exceptions.AMQPError):
                channel.close()


def _join_frames(connection: Any) -> None:
    """Join the frames pika has buffered on ``connection`` (three a message) into one chunk,
    which its transport then sends with one ``send`` where it made one a frame: a batch of a
    hundred messages costs half the CPU. A transport not shaped as pika 1.x's is left as it
    is."""
    frames = getattr(getattr(connection, "_transport", None), "_tx_buffers", None)
    if isinstance(frames, deque) and len(frames) > 1:
        joined = b"".join(frames)
        frames.clear()
        frames.append(joined)


_configured: Broker | None = None


def configure_broker() -> dramatiq.Broker:
    """Install the RabbitMQ broker for this process (idempotent). Must run before any actor
    module is imported: actors bind to the broker installed when they are declared."""
    global _configured
    if _configured is None:
        excluded = set() if all(os.environ.get(name) for name in PROMETHEUS_ENV) \
            else {"Prometheus"}
        middleware = [m() for m in default_middleware if m.__name__ not in excluded]
        _configured = Broker(url=settings.AMQP_URL, confirm_delivery=True,
                             middleware=middleware)
        dramatiq.set_encoder(BodyEncoder())
        dramatiq.set_broker(_configured)
    return _configured


def ensure_middleware(middleware: type[dramatiq.Middleware]) -> None:
    """Add an instance of ``middleware`` to the broker unless it has one (apps add theirs when
    Django starts, and Django may start more than once in a process)."""
    broker = dramatiq.get_broker()
    if not any(isinstance(found, middleware) for found in broker.middleware):
        broker.add_middleware(middleware())


def declared_queues() -> list[str]:
    """The queues of every actor declared in this process, sorted."""
    return sorted(dramatiq.get_broker().get_declared_queues())


def send_all(messages: Iterable[Message[Any]]) -> None:
    """Send ``messages`` together, built with ``actor.message(...)``: a transaction per
    ``BATCH`` of them (see :class:`Broker`), so a long stream is never held whole. If it
    fails part way, the batches already sent stay sent: the caller's retry sends them again."""
    send_groups([message] for message in messages)


def send_groups(groups: Iterable[Sequence[Message[Any]]]) -> None:
    """Send groups of messages, each group whole in one transaction: the groups together, up
    to ``BATCH`` messages a transaction (a larger group in one of its own). If it fails part
    way, the transactions already sent stay sent."""
    broker = cast(Broker, dramatiq.get_broker())
    together: list[Message[Any]] = []
    for group in groups:
        if together and len(together) + len(group) > BATCH:
            broker.enqueue_all(together)
            together = []
        together += group
    if together:
        broker.enqueue_all(together)


def raw_publish(queue: str, bodies: list[bytes], batch: int = BATCH) -> None:
    """Publish ``bodies`` to ``queue`` straight through pika, ``batch`` per AMQP transaction
    (the ceiling the benchmarks compare the relay with); the queue must exist."""
    connection = pika.BlockingConnection(pika.URLParameters(settings.AMQP_URL))
    try:
        channel = connection.channel()
        channel.tx_select()
        properties = pika.BasicProperties(delivery_mode=2)
        for start in range(0, len(bodies), batch):
            for body in bodies[start:start + batch]:
                channel.basic_publish(exchange="", routing_key=queue, body=body,
                                      properties=properties)
            channel.tx_commit()
    finally:
        connection.close()


# --- Inspecting queues ------------------------------------------------------------------

CONNECT_TIMEOUT_SECONDS = 5


class QueueUnavailable(StoreUnavailable):
    """RabbitMQ cannot be reached to list the dead letters or count the messages."""


@dataclass(frozen=True)
class QueueDepth:
    """Messages waiting in a queue: ready, delayed (retries) and dead."""

    name: str
    ready: int
    delayed: int
    dead: int

    @property
    def waiting(self) -> int:
        """Messages still to be worked: ready now, or delayed until their time."""
        return self.ready + self.delayed


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


def in_hand(worker: dramatiq.Worker) -> int:
    """Messages a worker of this process has taken and not finished: in its work queue (being
    worked or prefetched) or in its consumers' delay queues. RabbitMQ counts none of them as
    ready or delayed."""
    return worker.work_queue.unfinished_tasks + sum(
        consumer.delay_queue.unfinished_tasks for consumer in worker.consumers.values())


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


def consumers(queue: str) -> int:
    """How many consumers (worker processes) take messages from ``queue`` now."""
    with _connection() as connection:
        declared = connection.channel().queue_declare(queue=queue, passive=True)
        return int(declared.method.consumer_count)


def ping(timeout: float) -> None:
    """Open one AMQP connection to the broker and close it (``/readyz``); one attempt, at most
    ``timeout`` seconds. :class:`QueueUnavailable` when RabbitMQ does not answer."""
    with _connection(timeout, attempts=1):
        pass


@contextmanager
def _connection(timeout: float = CONNECT_TIMEOUT_SECONDS, attempts: int | None = None,
                ) -> Iterator[Any]:
    parameters = pika.URLParameters(settings.AMQP_URL)
    parameters.socket_timeout = parameters.blocked_connection_timeout = timeout
    if attempts is not None:
        parameters.connection_attempts = attempts
    try:
        connection = pika.BlockingConnection(parameters)
    except pika.exceptions.AMQPError as exc:
        raise QueueUnavailable(f"RabbitMQ cannot be reached: {exc!r}") from exc
    try:
        yield connection
    finally:
        if connection.is_open:
            connection.close()

"""Sending messages together (``toolkit.queue.send_all``) on the real RabbitMQ, the bodies'
encoder, and the broker's signals to its middleware."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import dramatiq
import pytest
from django.conf import settings
from dramatiq import Message
from dramatiq.encoder import JSONEncoder
from dramatiq.middleware import Middleware, MiddlewareError

from toolkit import queue
from toolkit.queue import BodyEncoder, Broker, send_all, send_groups

SCRATCH = "pinsite_test_batches"


def _record(number: int) -> None:
    """Never runs: the tests read the messages straight from the queue."""


scratch_actor = dramatiq.actor(_record, actor_name="pinsite_test_batch", queue_name=SCRATCH)


@pytest.fixture
def broker() -> Iterator[Broker]:
    broker = cast(Broker, dramatiq.get_broker())
    broker.declare_queue(SCRATCH, ensure=True)
    broker.flush(SCRATCH)
    yield broker
    for name in (SCRATCH, f"{SCRATCH}.DQ", f"{SCRATCH}.XQ"):
        broker.channel.queue_delete(name)
    broker.queues.discard(SCRATCH)  # type: ignore[attr-defined]


def _landed(broker: Broker) -> list[int]:
    """The numbers of the messages in the scratch queue, in queue order (taken off it)."""
    numbers: list[int] = []
    while True:
        method, _, body = broker.channel.basic_get(SCRATCH, auto_ack=True)
        if method is None:
            return numbers
        numbers.append(json.loads(body)["args"][0])


def _messages(numbers: range) -> Iterator[Message[Any]]:
    return (scratch_actor.message(number) for number in numbers)


def test_messages_sent_together_all_land_in_order(broker: Broker) -> None:
    send_all(_messages(range(25)))
    assert _landed(broker) == list(range(25))


def _transactions(broker: Broker, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the transactions ``broker`` publishes from now on, as they go."""
    batches: list[int] = []
    publish = broker.enqueue_all

    def counted(messages: list[Message[Any]]) -> list[Message[Any]]:
        batches.append(len(messages))
        return publish(messages)

    monkeypatch.setattr(broker, "enqueue_all", counted)
    return batches


def test_a_long_stream_goes_out_one_transaction_per_batch(
        broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue, "BATCH", 4)
    batches = _transactions(broker, monkeypatch)
    send_all(_messages(range(10)))
    assert batches == [4, 4, 2]
    assert _landed(broker) == list(range(10))


def test_groups_go_whole_into_transactions_of_a_batch_at_most(
        broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue, "BATCH", 5)
    batches = _transactions(broker, monkeypatch)
    sizes = [3, 2, 2, 7, 1, 1]
    starts = [sum(sizes[:index]) for index in range(len(sizes))]
    send_groups([list(_messages(range(start, start + size)))
                 for start, size in zip(starts, sizes, strict=True)])
    assert batches == [5, 2, 7, 2]  # 3+2, 2 (another 7 would pass 5), 7 alone, 1+1
    assert _landed(broker) == list(range(sum(sizes)))


def test_a_batch_runs_the_io_loop_for_its_commit_only(
        broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    send_all(_messages(range(1)))  # the batch channel is open
    channel = broker._batch_channel()
    flushes: list[int] = []
    flush = channel._flush_output

    def counted(*waiters: Any) -> None:
        flushes.append(len(waiters))
        flush(*waiters)

    monkeypatch.setattr(channel, "_flush_output", counted)
    send_all(_messages(range(1, 31)))
    assert len(flushes) == 1  # the commit's: the messages were buffered until then
    assert _landed(broker) == list(range(31))


def test_nothing_is_sent_for_an_empty_stream(
        broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(broker, "enqueue_all", lambda messages: pytest.fail("sent"))
    send_all(iter([]))


def test_a_batch_that_fails_part_way_lands_not_at_all(broker: Broker) -> None:
    class Unencodable(Message[Any]):
        def encode(self) -> bytes:
            raise ValueError("cannot encode")

    good = list(_messages(range(3)))
    bad = Unencodable(**{**good[0].asdict(), "args": (99,)})
    with pytest.raises(ValueError, match="cannot encode"):
        send_all([*good, bad])
    send_all(_messages(range(10, 12)))
    assert _landed(broker) == [10, 11]


def test_a_dropped_connection_is_reopened_and_the_batch_sent_once(broker: Broker) -> None:
    send_all(_messages(range(2)))
    broker.connection.close()
    send_all(_messages(range(2, 5)))
    assert _landed(broker) == [0, 1, 2, 3, 4]


def test_a_delay_queue_consumer_declares_its_queues_first() -> None:
    """A worker's consumer of ``<queue>.DQ`` may start before the one of ``<queue>``: on a
    broker that has never seen the queue it must not fail with 404."""
    broker = cast(Broker, dramatiq.get_broker())
    name = "pinsite_test_fresh_family"
    for each in (name, f"{name}.DQ", f"{name}.XQ"):
        broker.channel.queue_delete(each)
    broker.queues.discard(name)  # type: ignore[attr-defined]
    broker.declare_queue(name)  # known to this process, not yet on the server
    consumer = broker.consume(f"{name}.DQ", timeout=100)
    try:
        assert next(consumer) is None  # nothing within the timeout, and no error
    finally:
        consumer.close()
        for each in (name, f"{name}.DQ", f"{name}.XQ"):
            broker.channel.queue_delete(each)
        broker.queues.discard(name)  # type: ignore[attr-defined]


def test_a_batch_goes_to_the_socket_in_one_write_and_its_commit_in_another(
        broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    send_all(_messages(range(1)))  # the batch channel and its connection are open
    transport = broker._batch_channel()._impl.connection._transport
    writes: list[int] = []
    send = transport._sigint_safe_send

    def counted(sock: Any, data: bytes) -> int:
        writes.append(len(data))
        return cast(int, send(sock, data))

    monkeypatch.setattr(transport, "_sigint_safe_send", counted)
    send_all(_messages(range(1, 41)))
    assert len(writes) == 2  # forty messages' 120 frames, then Tx.Commit
    assert writes[0] > 40 * len(scratch_actor.message(1).encode())
    assert _landed(broker) == list(range(41))


def test_bodies_are_the_json_dramatiqs_encoder_writes() -> None:
    message = scratch_actor.message_with_options(
        args=(2**62 + 7, [1, 2], None, "é"), kwargs={"times": {17: 1.5}, "flag": True},
        delay=None).asdict()
    ours, dramatiqs = BodyEncoder(), JSONEncoder()
    assert json.loads(ours.encode(message)) == json.loads(dramatiqs.encode(message))
    assert ours.decode(dramatiqs.encode(message)) == dramatiqs.decode(ours.encode(message))
    assert ours.decode(ours.encode(message))["kwargs"] == {"times": {"17": 1.5}, "flag": True}
    assert isinstance(dramatiq.get_encoder(), BodyEncoder)  # the site's broker uses it
    body = scratch_actor.message(2**62 + 7).encode()
    assert Message.decode(body).args == (2**62 + 7,)


class _Heard(Middleware):
    """Records the enqueue signals it receives, under its name."""

    def __init__(self, name: str, heard: list[str]) -> None:
        self.name, self.heard = name, heard

    def before_enqueue(self, broker: Any, message: Any, delay: Any) -> None:
        self.heard.append(f"before {self.name}")

    def after_enqueue(self, broker: Any, message: Any, delay: Any) -> None:
        self.heard.append(f"after {self.name}")


class _Refuses(Middleware):
    def before_enqueue(self, broker: Any, message: Any, delay: Any) -> None:
        raise MiddlewareError("refused")


def test_a_signal_reaches_only_the_middleware_that_handles_it_in_order() -> None:
    heard: list[str] = []
    deaf = Middleware()
    broker = Broker(url=settings.AMQP_URL, middleware=[_Heard("a", heard), deaf])
    message = scratch_actor.message(1)
    broker.emit_before("enqueue", message, None)
    broker.emit_after("enqueue", message, None)
    assert heard == ["before a", "after a"]
    assert broker._handlers_of("before_enqueue") == (broker.middleware[0],)
    broker.add_middleware(_Heard("b", heard))  # one added later is heard too
    heard.clear()
    broker.emit_before("enqueue", message, None)
    broker.emit_after("enqueue", message, None)
    assert heard == ["before a", "before b", "after b", "after a"]
    broker.middleware.remove(broker.middleware[0])  # one taken out of the list is not
    heard.clear()
    broker.emit_before("enqueue", message, None)
    assert heard == ["before b"]
    broker.add_middleware(_Refuses())
    with pytest.raises(MiddlewareError, match="refused"):
        broker.emit_before("enqueue", message, None)

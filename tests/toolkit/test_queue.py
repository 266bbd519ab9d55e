"""Sending messages together (``toolkit.queue.send_all``) on the real RabbitMQ."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import dramatiq
import pytest
from dramatiq import Message

from toolkit import queue
from toolkit.queue import Broker, send_all, send_groups

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

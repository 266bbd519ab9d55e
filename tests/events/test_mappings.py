"""Cross-shard mapping writes: recorded with their change, applied at once, or queued and
applied by a real worker."""

from __future__ import annotations

from collections.abc import Iterator

import dramatiq
import pytest

from events import mappings as mapping_events
from events.record import Event
from pins.types import BOARD, BOARD_HAS_PINS, PIN
from sharding import mappings, objects, outbox, tasks
from sharding.exceptions import ShardUnavailable
from sharding.hosts import atomic, cursor
from tests.events.helpers import is_sent
from tests.polling import wait_until

ORIGIN = 50


@pytest.fixture
def worker() -> Iterator[dramatiq.Worker]:
    """A Dramatiq worker on the real RabbitMQ broker, consuming the ``mappings`` queue."""
    running = dramatiq.Worker(dramatiq.get_broker(), queues={"mappings"}, worker_threads=1,
                              worker_timeout=100)
    running.start()
    yield running
    running.stop()


def _edge() -> tuple[int, int]:
    return objects.create(BOARD, 11, {}), objects.create(PIN, ORIGIN, {})


def _write(board_id: int, pin_id: int, sequence: int) -> Event:
    with atomic(ORIGIN):
        return mapping_events.write_after_commit(ORIGIN, "add", BOARD_HAS_PINS, board_id,
                                                 pin_id, sequence=sequence)


def test_a_cross_shard_write_that_succeeds_is_applied_at_once_and_marked_sent() -> None:
    board_id, pin_id = _edge()
    event = _write(board_id, pin_id, 5)
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, pin_id) == 5
    assert is_sent(event)


def test_a_rolled_back_transaction_neither_writes_nor_records() -> None:
    board_id, pin_id = _edge()
    with pytest.raises(RuntimeError), atomic(ORIGIN):
        event = mapping_events.write_after_commit(ORIGIN, "add", BOARD_HAS_PINS, board_id,
                                                  pin_id, sequence=3)
        raise RuntimeError("rolled back")
    assert not mappings.contains(BOARD_HAS_PINS, board_id, pin_id)
    with cursor(event.alias) as c:
        c.execute(f"SELECT COUNT(*) FROM {outbox.TABLE} WHERE id = %s", [event.id])
        assert c.fetchone()[0] == 0


def test_a_failed_cross_shard_write_is_retried_by_a_worker_until_it_lands(
        worker: dramatiq.Worker, monkeypatch: pytest.MonkeyPatch) -> None:
    board_id, pin_id = _edge()
    real_apply, failures = tasks.apply_write, list[tuple[object, ...]]()

    def host_down_twice(*args: object) -> None:
        if len(failures) < 2:
            failures.append(args)
            raise ShardUnavailable("shard host down (injected)")
        real_apply(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tasks, "apply_write", host_down_twice)
    monkeypatch.setattr(mapping_events, "apply_write", host_down_twice)
    event = _write(board_id, pin_id, 7)
    assert wait_until(lambda: mappings.contains(BOARD_HAS_PINS, board_id, pin_id), timeout=30)
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, pin_id) == 7
    assert len(failures) == 2
    assert is_sent(event)


def test_applying_the_same_queued_write_twice_keeps_one_edge() -> None:
    board_id, pin_id = _edge()
    for _ in range(2):
        tasks.apply_mapping.fn("add", BOARD_HAS_PINS.name, board_id, pin_id, 9)
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1
    for _ in range(2):
        tasks.apply_mapping.fn("remove", BOARD_HAS_PINS.name, board_id, pin_id)
    assert mappings.count(BOARD_HAS_PINS, board_id) == 0

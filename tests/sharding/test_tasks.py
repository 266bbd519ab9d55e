"""Cross-shard mapping writes: applied at once, or queued and applied by a real worker."""

import time
from collections.abc import Iterator

import dramatiq
import pytest

from pins.types import BOARD, BOARD_HAS_PINS, PIN
from sharding import mappings, objects, tasks
from sharding.exceptions import ShardUnavailable


@pytest.fixture
def worker() -> Iterator[dramatiq.Worker]:
    """A Dramatiq worker on the real RabbitMQ broker, consuming the ``mappings`` queue."""
    running = dramatiq.Worker(dramatiq.get_broker(), queues={"mappings"}, worker_threads=1,
                              worker_timeout=100)
    running.start()
    yield running
    running.stop()


def _edge() -> tuple[int, int]:
    return objects.create(BOARD, 11, {}), objects.create(PIN, 50, {})


def test_a_cross_shard_write_that_succeeds_is_applied_at_once() -> None:
    board_id, pin_id = _edge()
    assert tasks.write_or_enqueue("add", BOARD_HAS_PINS, board_id, pin_id, sequence=5)
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, pin_id) == 5


def test_a_failed_cross_shard_write_is_retried_by_a_worker_until_it_lands(
        worker: dramatiq.Worker, monkeypatch: pytest.MonkeyPatch) -> None:
    board_id, pin_id = _edge()
    real_apply, failures = tasks._apply, list[tuple[object, ...]]()

    def host_down_twice(*args: object) -> None:
        if len(failures) < 2:
            failures.append(args)
            raise ShardUnavailable("shard host down (injected)")
        real_apply(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tasks, "_apply", host_down_twice)
    assert tasks.write_or_enqueue("add", BOARD_HAS_PINS, board_id, pin_id, sequence=7) is False
    deadline = time.monotonic() + 30
    while not mappings.contains(BOARD_HAS_PINS, board_id, pin_id) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, pin_id) == 7
    assert len(failures) == 2


def test_applying_the_same_queued_write_twice_keeps_one_edge() -> None:
    board_id, pin_id = _edge()
    for _ in range(2):
        tasks.apply_mapping.fn("add", BOARD_HAS_PINS.name, board_id, pin_id, 9)
    assert mappings.count(BOARD_HAS_PINS, board_id) == 1
    for _ in range(2):
        tasks.apply_mapping.fn("remove", BOARD_HAS_PINS.name, board_id, pin_id)
    assert mappings.count(BOARD_HAS_PINS, board_id) == 0

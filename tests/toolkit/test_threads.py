"""A batcher's thread handles what callers hand over in batches: what came while it was busy
goes in the next batch (up to its limit), flush waits for all of it, and a batch that fails
leaves the thread running."""

from __future__ import annotations

import threading

from toolkit.threads import Batcher

WAIT = 10.0  # seconds: a deadline for the thread, never a bound the test measures


class Recorder:
    """A handler that keeps each batch, holds the first until released, and fails the batches
    named in ``failing``."""

    def __init__(self, failing: tuple[int, ...] = ()) -> None:
        self.batches: list[list[int]] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.failing = failing

    def __call__(self, batch: list[int]) -> None:
        self.batches.append(batch)
        if len(self.batches) == 1:
            self.started.set()
            assert self.release.wait(WAIT)
        if len(self.batches) in self.failing:
            raise RuntimeError("a bug in one batch")


def batcher(handle: Recorder, limit: int = 100) -> Batcher[int]:
    return Batcher(handle, "test-batcher", linger=lambda: 0.0, limit=lambda: limit)


def test_what_comes_while_a_batch_is_handled_goes_in_the_next_one() -> None:
    handle = Recorder()
    sender = batcher(handle)
    sender.submit([1])
    assert handle.started.wait(WAIT)
    callers = [threading.Thread(target=sender.submit, args=([item],)) for item in (2, 3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    sender.submit([4, 5])
    assert not sender.flush(0.0)  # the first batch is still being handled
    handle.release.set()
    assert sender.flush(WAIT)
    assert handle.batches[0] == [1]
    assert sorted(handle.batches[1]) == [2, 3, 4, 5] and handle.batches[1][-2:] == [4, 5]
    assert len(handle.batches) == 2


def test_a_batch_holds_at_most_the_limit() -> None:
    handle = Recorder()
    sender = batcher(handle, limit=2)
    sender.submit([1])
    assert handle.started.wait(WAIT)
    sender.submit([2, 3, 4])
    handle.release.set()
    assert sender.flush(WAIT)
    assert handle.batches == [[1], [2, 3], [4]]


def test_a_failing_batch_counts_as_handled_and_the_thread_goes_on() -> None:
    handle = Recorder(failing=(1,))
    sender = batcher(handle)
    handle.release.set()
    sender.submit([1])
    assert sender.flush(WAIT)
    sender.submit([2])
    assert sender.flush(WAIT)
    assert handle.batches == [[1], [2]]


def test_nothing_to_hand_over_starts_nothing() -> None:
    handle = Recorder()
    sender = batcher(handle)
    sender.submit([])
    assert sender.flush(0.0)
    assert handle.batches == []

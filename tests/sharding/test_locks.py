"""Named locks on the real shard hosts: held for a block, refused while another session holds
them, a refusal sent ahead failing the block's transaction, and the relay's kind of lease."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks.shards import raw_connection
from pins.types import BOARD, BOARD_HAS_PINS, PIN
from sharding import locks, mappings, objects
from sharding.hosts import alias_for_shard, atomic
from sharding.locks import LockNotGranted, named_lock, named_locks
from tests.polling import wait_until

SHARD = 5


@pytest.fixture
def name() -> str:
    return f"pinsite.test.{uuid.uuid4().hex[:12]}"


@pytest.fixture
def other_session() -> Iterator[Any]:
    """A session of its own on the shard's host: another process, as far as locks go."""
    session = raw_connection(alias_for_shard(SHARD))
    try:
        yield session
    finally:
        session.close()


def free_for(session: Any, name: str) -> bool:
    """Whether ``session`` can take ``name`` now (it gives it back at once)."""
    with session.cursor() as c:
        c.execute("SELECT GET_LOCK(%s, 0)", [name])
        taken = c.fetchone()[0] == 1
        if taken:
            c.execute("DO RELEASE_LOCK(%s)", [name])
    return bool(taken)


def hold(session: Any, name: str) -> None:
    with session.cursor() as c:
        c.execute("SELECT GET_LOCK(%s, 0)", [name])
        assert c.fetchone()[0] == 1


@pytest.mark.parametrize("ahead", [False, True])
def test_a_named_lock_is_held_for_the_block_and_released_after_it(
        name: str, other_session: Any, ahead: bool) -> None:
    with named_lock(SHARD, name, seconds=5, ahead=ahead), atomic(SHARD):
        board = objects.create(BOARD, SHARD, {})  # reads the lock's answer when sent ahead
        assert not free_for(other_session, name)
    assert wait_until(lambda: free_for(other_session, name), timeout=10)  # released unanswered
    assert objects.get(board) == {}


def test_a_lock_held_elsewhere_is_refused_after_the_wait(name: str, other_session: Any) -> None:
    hold(other_session, name)
    with pytest.raises(LockNotGranted, match=name), named_lock(SHARD, name, seconds=0.2):
        pytest.fail("the block ran without the lock")


def test_a_refusal_sent_ahead_fails_the_blocks_transaction(name: str,
                                                           other_session: Any) -> None:
    board = objects.create(BOARD, SHARD, {})
    pin = objects.create(PIN, SHARD, {})
    hold(other_session, name)
    with pytest.raises(LockNotGranted), named_lock(SHARD, name, seconds=0.2, ahead=True), \
            atomic(SHARD):
        mappings.add(BOARD_HAS_PINS, board, pin)
    assert not mappings.contains(BOARD_HAS_PINS, board, pin)
    with named_lock(SHARD, f"{name}.after", seconds=1, ahead=True), atomic(SHARD):
        assert mappings.add(BOARD_HAS_PINS, board, pin)  # the same connection serves again


@pytest.mark.parametrize("ahead", [False, True])
def test_many_locks_are_held_together_and_refused_together(
        name: str, other_session: Any, ahead: bool) -> None:
    names = [f"{name}.{n}" for n in range(3)]
    with named_locks(SHARD, names, seconds=5, ahead=ahead), atomic(SHARD):
        objects.create(BOARD, SHARD, {})  # reads the locks' answer when sent ahead
        assert not any(free_for(other_session, each) for each in names)
    assert wait_until(lambda: all(free_for(other_session, each) for each in names), timeout=10)
    hold(other_session, names[1])
    with pytest.raises(LockNotGranted, match=names[0]), \
            named_locks(SHARD, names, seconds=0.2, ahead=ahead), atomic(SHARD):
        objects.create(BOARD, SHARD, {})
        pytest.fail("the block ran without every lock")
    with other_session.cursor() as c:
        c.execute("DO RELEASE_LOCK(%s)", [names[1]])
    # the locks granted before the refusal were given back with it
    assert wait_until(lambda: all(free_for(other_session, each) for each in names), timeout=10)


@pytest.mark.parametrize("bad", ["", "x'); DO SLEEP(5); --", "a" * 65, "name with spaces"])
def test_a_name_that_is_not_a_plain_word_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a lock name"), named_lock(SHARD, bad, 1):
        pytest.fail("the block ran")


def test_a_lease_is_taken_once_kept_and_given_back(name: str, other_session: Any) -> None:
    alias = alias_for_shard(SHARD)
    assert locks.try_lock(alias, name) and locks.holds_lock(alias, name)
    assert not free_for(other_session, name)
    locks.unlock(alias, name)
    assert not locks.holds_lock(alias, name) and free_for(other_session, name)
    hold(other_session, name)
    assert not locks.try_lock(alias, name)

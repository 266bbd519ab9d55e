"""Random schedules against a reference: whatever the order and repetition of queue tasks,
once the queue drains every feed holds the newest ``CAP`` pins of the boards its user follows.

Each example makes three users (two of them own boards), runs a random schedule of follows,
unfollows, board unfollows, new pins, repins and pin deletions through the real actions, their
messages published to RabbitMQ and run by a worker's four threads as they come, with a third
of the handled messages published again after a random delay (through the delay queues). A
``run`` step waits for the queue to drain; so does the end of the example. The reference is
computed from the final graph and the boards' pins only.
"""

from __future__ import annotations

import os
import random
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import override_settings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from feed import storage
from feed.store.pools import CLUSTERS
from graph import actions as graph_actions
from graph import selectors as graph_selectors
from graph.exceptions import GraphError
from pins.actions import delete_pin, repin
from pins.exceptions import ContentError
from pins.selectors import pins_of_board
from tests.feed.helpers import new_board, new_pin, new_user
from tests.feed.running import RunningQueue

CAP, SLACK = 3, 2
EXAMPLES = int(os.environ.get("FEED_PROPERTY_EXAMPLES", "6"))  # more: set it (it runs long)
DUPLICATES = 0.3
USERS = 3
BOARD_OWNERS = (0, 0, 1)

Step = tuple[Any, ...]
user_index = st.integers(0, USERS - 1)
other = st.integers(1, USERS - 1)  # offset to another user, so nobody follows themselves
board_index = st.integers(0, len(BOARD_OWNERS) - 1)
follows = st.sampled_from(["follow_user", "follow_board"])
unfollows = st.sampled_from(["unfollow_user", "unfollow_board"])
steps = st.one_of(
    st.tuples(follows, user_index, other), st.tuples(follows, user_index, other),
    st.tuples(unfollows, user_index, other),
    st.tuples(st.just("pin"), board_index, st.integers(1, 4)),
    st.tuples(st.just("pin"), board_index, st.integers(1, 4)),
    st.tuples(st.just("repin"), st.integers(0, 50), board_index),
    st.tuples(st.just("delete"), st.integers(0, 50)),
    st.tuples(st.just("run")),
)
setup = st.lists(st.tuples(follows, user_index, other), max_size=4)
schedules = st.tuples(setup, st.lists(steps, min_size=6, max_size=36)).map(lambda p: p[0] + p[1])
UNFOLLOW_EMPTIES_A_TRIMMED_FEED = [
    ("pin", 0, 4), ("pin", 1, 4), ("pin", 1, 4), ("follow_board", 0, 1),
    ("follow_board", 1, 1), ("run",), ("unfollow_board", 1, 1)]
DELETIONS_EMPTY_A_TRIMMED_FEED = [
    ("follow_user", 0, 1), ("pin", 0, 3), ("pin", 1, 4), ("run",),
    ("delete", 6), ("delete", 5), ("delete", 4), ("delete", 3)]


@dataclass
class World:
    """The users, boards and pins of one example."""

    users: list[int]
    boards: list[int]
    pins: list[tuple[int, int]] = field(default_factory=list)  # (pin, owner)

    @classmethod
    def create(cls) -> World:
        users = [new_user("p") for _ in range(USERS)]
        return cls(users, [new_board(users[owner]) for owner in BOARD_OWNERS])

    def owner_of_board(self, index: int) -> int:
        return self.users[BOARD_OWNERS[index]]

    def apply(self, step: Step, running: RunningQueue) -> None:
        kind, *args = step
        if kind == "run":
            running.settle()
            return
        with suppress(GraphError, ContentError):
            getattr(self, f"_{kind}")(*args)

    def _follow_user(self, followee: int, offset: int) -> None:
        graph_actions.follow_user(self._other(followee, offset), self.users[followee])

    def _unfollow_user(self, followee: int, offset: int) -> None:
        graph_actions.unfollow_user(self._other(followee, offset), self.users[followee])

    def _follow_board(self, board: int, offset: int) -> None:
        board %= len(self.boards)
        graph_actions.follow_board(self._other(BOARD_OWNERS[board], offset), self.boards[board])

    def _unfollow_board(self, board: int, offset: int) -> None:
        board %= len(self.boards)
        graph_actions.unfollow_board(self._other(BOARD_OWNERS[board], offset),
                                     self.boards[board])

    def _other(self, user: int, offset: int) -> int:
        return self.users[(user + offset) % USERS]

    def _pin(self, board: int, count: int) -> None:
        owner = self.owner_of_board(board)
        self.pins += [(new_pin(owner, self.boards[board]), owner) for _ in range(count)]

    def _repin(self, source: int, board: int) -> None:
        if self.pins:
            pin, _ = self.pins[source % len(self.pins)]
            owner = self.owner_of_board(board)
            self.pins.append((repin(owner, pin, self.boards[board]).id, owner))

    def _delete(self, index: int) -> None:
        if self.pins:
            pin, owner = self.pins.pop(index % len(self.pins))
            delete_pin(owner, pin)

    def reference(self, user: int) -> list[int]:
        """The newest ``CAP`` pins of the boards ``user`` follows, from the final state."""
        followed = graph_selectors.which_boards_followed(user, self.boards)
        pins = [pin for board in followed for pin in pins_of_board(board, limit=100).items]
        pins.sort(key=lambda pin: (-pin.created_us, pin.id))
        return [pin.id for pin in pins[:CAP]]


# The worker's threads (and its relay) draw from ``random`` between examples too.
@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(schedule=schedules, seed=st.integers(0, 2**16))
@example(schedule=UNFOLLOW_EMPTIES_A_TRIMMED_FEED, seed=1)
@example(schedule=DELETIONS_EMPTY_A_TRIMMED_FEED, seed=2)
def test_feeds_converge_to_the_reference_whatever_the_task_order(
        running: RunningQueue, schedule: list[Step], seed: int) -> None:
    running.in_flight.rng = random.Random(seed)
    small = {**django_settings.PINSITE_FEED, "CAP": CAP, "SLACK": SLACK}
    with override_settings(PINSITE_FEED=small):
        world = World.create()
        running.in_flight.duplicates = DUPLICATES
        try:
            for step in schedule:
                world.apply(step, running)
            running.settle()
        finally:
            running.in_flight.duplicates = 0.0
        for user in world.users:
            expected = world.reference(user)
            for cluster in CLUSTERS:
                stored = storage.read_entries(cluster, user)
                assert len(stored) < CAP + SLACK, (cluster, user)
                assert [entry.pin_id for entry in stored[:CAP]] == expected, (cluster, user)

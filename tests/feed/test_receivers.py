"""Domain events become queue messages carrying IDs and times only."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from dramatiq import Message

from feed import receivers
from graph.actions import follow_board, follow_user, unfollow_board
from pins.actions import delete_pin, repin
from pins.selectors import get_pin
from tests.feed.helpers import CapturedQueue, new_board, new_pin, new_user


def feed_messages(queue: CapturedQueue) -> list[Message[Any]]:
    """The following feed's messages (the smart feed subscribes to the same events)."""
    return [m for m in queue.pending if m.actor_name.startswith("feed_")]


def test_a_new_pin_queues_its_fanout(queue: CapturedQueue) -> None:
    owner = new_user()
    board = new_board(owner)
    pin = new_pin(owner, board)
    [message] = feed_messages(queue)
    assert message.actor_name == "feed_fan_out_pin" and message.queue_name == "feed"
    assert message.args == (pin, board, get_pin(pin).created_us)


def test_a_repin_is_fanned_out_from_its_own_board(queue: CapturedQueue) -> None:
    owner, saver = new_user(), new_user()
    source = new_pin(owner, new_board(owner))
    saved_to = new_board(saver)
    saved = repin(saver, source, saved_to)
    assert feed_messages(queue)[-1].args[:2] == (saved.id, saved_to)


def test_a_deleted_pin_queues_its_removal_after_its_creation_time(queue: CapturedQueue) -> None:
    owner = new_user()
    board = new_board(owner)
    pin = new_pin(owner, board)
    created = get_pin(pin).created_us
    delete_pin(owner, pin)
    [message] = [m for m in queue.pending if m.actor_name == "feed_fan_out_removal"]
    assert message.args[:3] == (pin, board, created) and message.args[3] > created


def test_a_follow_queues_one_message_per_cluster(queue: CapturedQueue) -> None:
    fan, owner = new_user(), new_user()
    change = follow_user(fan, owner)
    assert [(m.actor_name, m.queue_name) for m in feed_messages(queue)] == [
        ("feed_follow_primary", "feed_primary"), ("feed_follow_standby", "feed_standby")]
    assert feed_messages(queue)[0].args == (fan, "user", owner, change.action_time_us)


def test_an_unfollow_of_a_board_queues_its_removal_per_cluster(queue: CapturedQueue) -> None:
    fan, owner = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    queue.pending.clear()
    change = unfollow_board(fan, board)
    assert {m.actor_name for m in feed_messages(queue)} == {"feed_unfollow_primary",
                                                            "feed_unfollow_standby"}
    assert feed_messages(queue)[0].args == (fan, "board", board, change.action_time_us)


def test_a_deletion_without_its_creation_time_is_logged_not_queued(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="pinsite.feed"):
        messages = receivers.on_pin_deleted({"pin_id": 5, "board_id": 6, "pinner_id": 7,
                                             "created_at_us": None})
    assert messages == [] and "without created_at_us" in caplog.text

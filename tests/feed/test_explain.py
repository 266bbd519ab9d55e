""""Why is this pin in my feed?" on the real stack: a present pin and who wrote it, and a pin
absent for each reason the records can give (not followed, unfollowed, deleted, trimmed past
the cap, fanout still under way or failed, present on the standby only)."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import dramatiq
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from feed import storage, writers
from feed.explain import Explanation, explain
from feed.schema import Entry
from graph.actions import follow_board, follow_user, unfollow_board, unfollow_user
from pins.actions import delete_pin
from pins.selectors import get_pin, get_user
from tests.feed.helpers import CapturedQueue, followed_pins, new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from tests.polling import wait_until
from toolkit.clock import now_us
from toolkit.queue import dead_letters


def _codes(found: Explanation) -> list[tuple[str, str]]:
    return [(reason.source, reason.code) for reason in found.reasons]


def _reason(found: Explanation, code: str, source: str | None = None) -> Any:
    return next(r for r in found.reasons if r.code == code and source in (None, r.source))


def _entry(pin_id: int) -> Entry:
    return Entry(get_pin(pin_id).created_us, pin_id)


def test_a_delivered_pin_is_present_with_its_follow_event_and_delivery(
        running: RunningQueue) -> None:
    _owner, reader, _board, [pin] = followed_pins(running, 1)
    found = explain(reader, pin)
    assert found.present is True
    assert _codes(found) == [("pins", "pin"), ("edge_log", "followed_board"),
                             ("outbox", "pin_created"), ("feed:primary", "delivered"),
                             ("feed:standby", "delivered")]
    delivered = _reason(found, "delivered", "feed:primary")
    assert delivered.text == "in the feed on primary, written by the fanout of the pin"
    assert delivered.time_us == get_pin(pin).created_us
    assert found.as_json()["reasons"][1]["time"] is not None


def test_a_pin_backfilled_by_a_user_follow_names_the_follow(running: RunningQueue) -> None:
    owner, reader = new_user(), new_user()
    pin = new_pin(owner, new_board(owner))
    follow_user(reader, owner)
    running.settle()
    found = explain(reader, pin)
    follow = _reason(found, "followed_through_owner")
    assert found.present and follow.text.startswith(f"follows user {owner}, and so their board")
    assert _reason(found, "delivered", "feed:standby").text.endswith("the follow's backfill")
    assert _reason(found, "delivered").time_us == follow.time_us


def test_a_pin_of_a_board_not_followed_is_absent(running: RunningQueue) -> None:
    owner, reader = new_user(), new_user()
    pin = new_pin(owner, new_board(owner))
    running.settle()
    found = explain(reader, pin)
    assert found.present is False
    assert ("edge_log", "not_followed") in _codes(found)
    assert ("feed:primary", "absent") in _codes(found)


def test_an_unfollow_is_named_with_its_time(running: RunningQueue) -> None:
    owner, reader = new_user(), new_user()
    pin = new_pin(owner, new_board(owner))
    follow_user(reader, owner)
    running.settle()
    before = now_us()
    unfollow_user(reader, owner)
    running.settle()
    found = explain(reader, pin)
    assert found.present is False
    unfollowed = _reason(found, "unfollowed")
    assert unfollowed.source == "outbox" and unfollowed.time_us >= before
    assert unfollowed.text == f"unfollowed user {owner}"


def test_an_unfollowed_board_of_a_followed_user_is_named(running: RunningQueue) -> None:
    owner, reader = new_user(), new_user()
    board = new_board(owner)
    pin = new_pin(owner, board)
    follow_user(reader, owner)
    running.settle()
    unfollow_board(reader, board)
    running.settle()
    found = explain(reader, pin)
    assert not found.present
    assert _reason(found, "unfollowed_board").text == (
        f"follows user {owner} but unfollowed their board {board}")


def test_a_deleted_pin_is_named_with_its_deletion(running: RunningQueue) -> None:
    owner, reader, _board, [pin] = followed_pins(running, 1)
    before = now_us()
    delete_pin(owner, pin)
    running.settle()
    found = explain(reader, pin)
    assert not found.present
    assert _codes(found) == [("pins", "pin_missing"), ("outbox", "pin_deleted")]
    assert _reason(found, "pin_deleted").time_us >= before


def test_a_pin_trimmed_past_the_cap_is_read_from_its_board(running: RunningQueue,
                                                           small_feed: dict[str, Any]) -> None:
    _owner, reader, _board, pins = followed_pins(running, 11)
    found = explain(reader, pins[0])
    assert found.present is True
    assert ("feed:primary", "trimmed") in _codes(found)
    assert ("feed:primary", "delivered") not in _codes(found)


def test_a_fanout_still_under_way_is_named(queue: CapturedQueue) -> None:
    owner, reader = new_user(), new_user()
    board = new_board(owner)
    follow_board(reader, board)
    queue.run_all()
    pin = new_pin(owner, board)
    [planner] = [m for m in queue.pending if m.actor_name == "feed_fan_out_pin"]
    queue.pending.remove(planner)
    queue.run(planner)  # the fanout is planned; its deliveries wait in the queue
    assert "feed_deliver_pin_primary" in queue.actors()
    found = explain(reader, pin)
    assert found.present is False
    queued = _reason(found, "fanout_queued")
    assert queued.text == "its fanout to primary is still under way: 1 delivery message " \
                          "outstanding"
    assert ("fanout", "fanout_queued") in _codes(found)


def test_a_delivery_that_failed_is_named_with_its_error(running: RunningQueue) -> None:
    _owner, reader, board, [pin] = followed_pins(running, 1)
    storage.change_feed("standby", reader, now_us(), remove=[_entry(pin)])
    poisoned = writers.deliver_pin["standby"].message_with_options(
        args=(pin, board, "not a time", [reader]), max_retries=0)
    dramatiq.get_broker().enqueue(poisoned)
    assert wait_until(lambda: any(letter.message_id == poisoned.message_id
                                  for letter in dead_letters(["feed_standby"])))
    found = explain(reader, pin)
    failed = _reason(found, "fanout_failed")
    assert failed.source == "dead_letters" and failed.text.startswith(
        "its delivery to standby failed 0 times: ")


def test_a_pin_on_the_standby_only_is_named(running: RunningQueue) -> None:
    _owner, reader, _board, [pin] = followed_pins(running, 1)
    storage.change_feed("primary", reader, now_us(), remove=[_entry(pin)])
    found = explain(reader, pin)
    assert found.present is False  # reads go to the primary
    assert ("feed:primary", "absent") in _codes(found)
    assert ("feed:standby", "delivered") in _codes(found)
    assert ("feed:standby", "standby_only") in _codes(found)


def _command(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_the_commands_explain_a_pin_as_text_and_json(running: RunningQueue) -> None:
    _owner, reader, board, [pin] = followed_pins(running, 1)
    name = get_user(reader).username
    text = _command("feed", "explain", name, str(pin))
    assert text.startswith(f"pin {pin} is in the following feed of user {reader}:")
    assert f"edge_log      followed_board         follows board {board} one by one" in text
    found = json.loads(_command("feed", "explain", str(reader), str(pin), "--json"))
    assert found["present"] is True and found["pin_id"] == str(pin)
    assert [r["code"] for r in found["reasons"]][-2:] == ["delivered", "delivered"]
    home = json.loads(_command("smartfeed", "explain", name, str(pin), "--json"))
    assert set(home) == {"user_id", "pin_id", "present", "reasons"}
    assert _command("smartfeed", "explain", name, str(pin)).startswith(
        f"pin {pin} is") and "home feed" in _command("smartfeed", "explain", name, str(pin))


@pytest.mark.parametrize("args", [("feed", "explain", "nobody-at-all", "1"),
                                  ("feed", "explain", "1", "not-a-pin"),
                                  ("smartfeed", "explain", "1", "-5")])
def test_bad_explain_input_is_a_command_error(args: tuple[str, ...]) -> None:
    with pytest.raises(CommandError):
        _command(*args)

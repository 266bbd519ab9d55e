"""``manage.py queues work-off``: every queue worked off in the command's own process, on the
real RabbitMQ and stores; what is left when its time runs out stays queued."""

from __future__ import annotations

import re
from io import StringIO

import dramatiq
import pytest
from django.core.management import CommandError, call_command

from graph.actions import follow_board
from pinsite.backlog import BacklogNotWorkedOff, work_off
from tests.feed.helpers import (
    feed_ids_on_both,
    flush_feed_queues,
    new_board,
    new_pin,
    new_user,
    queued_messages,
)


def _followed_pins(count: int = 1) -> tuple[int, list[int]]:
    """A follower of a board and ``count`` pins made on it since, all still queued."""
    flush_feed_queues()
    owner = new_user()
    board = new_board(owner)
    fan = new_user()
    follow_board(fan, board)
    return fan, [new_pin(owner, board) for _ in range(count)]


def test_work_off_delivers_what_was_queued_and_leaves_nothing() -> None:
    fan, pins = _followed_pins()
    out = StringIO()
    call_command("queues", "work-off", "--quiet", stdout=out)
    assert re.search(r"Worked off [\d,]+ queued messages \([\d,]+ at the start", out.getvalue())
    assert queued_messages() == 0
    assert feed_ids_on_both(fan) == pins


def test_what_is_left_when_the_time_runs_out_stays_queued() -> None:
    """The worker stops at the first poll past the time; the messages it had not taken (or
    had taken and not finished) are in the queues again."""
    _followed_pins(10)
    with pytest.raises(BacklogNotWorkedOff, match=r"still queued after 0s") as refused:
        work_off(seconds=0)
    assert refused.value.backlog.left > 0 and queued_messages() > 0
    flush_feed_queues()


def test_work_off_says_when_nothing_was_queued() -> None:
    flush_feed_queues()
    out = StringIO()
    call_command("queues", "work-off", "--quiet", stdout=out)
    assert out.getvalue() == "Nothing was queued.\n"


@pytest.mark.parametrize("seconds", ["0", "-1", "100000"])
def test_a_time_out_of_range_is_a_command_error(seconds: str) -> None:
    with pytest.raises(CommandError, match="--seconds must be"):
        call_command("queues", "work-off", "--seconds", seconds)


def test_a_second_work_off_in_a_process_leaves_no_worker_behind_on_the_broker() -> None:
    """Each work-off's worker takes its own middleware off the broker when it stops, so a
    queue declared later adds no consumer to a stopped worker."""
    def workers_on_the_broker() -> int:  # other tests' workers may have left theirs
        return sum(type(m).__name__ == "_WorkerMiddleware"
                   for m in dramatiq.get_broker().middleware)

    flush_feed_queues()
    before = workers_on_the_broker()
    for _ in range(2):
        work_off()
        assert workers_on_the_broker() == before

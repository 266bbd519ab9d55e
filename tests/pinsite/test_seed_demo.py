"""``manage.py seed_demo``: demo content and follows through the ordinary actions."""

from __future__ import annotations

import random
import re
from datetime import datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from graph.demo import seed_follows
from graph.interests import followed_interests
from graph.selectors import which_boards_followed
from pins.demo import DemoPlan, seed_demo
from pins.models import Pinner
from pins.selectors import boards_of, get_board, pinner_by_username, pins_of_board
from tests.feed.helpers import feed_ids, feed_ids_on_both, flush_feed_queues, queued_messages
from tests.pins.helpers import new_pinner


def _seed(*args: str, worked_off: bool = False) -> str:
    """The command's output; what it queued is left queued unless ``worked_off``."""
    out = StringIO()
    call_command("seed_demo", *args, "--quiet", "--seed", str(random.randrange(1 << 30)),
                 *([] if worked_off else ["--leave-queued"]), stdout=out)
    return out.getvalue()


SMALL = ("--users", "3", "--boards-per-user", "1", "--pins-per-board", "2",
         "--repins-per-user", "0", "--follows-per-user", "1")


def _seeded_since(started: datetime) -> dict[int, list[int]]:
    """The pinners seeded since ``started``, each with the boards it follows of theirs
    (pinners that other sessions create meanwhile follow none of them)."""
    users = [pinner.user_id for pinner in Pinner.objects.filter(created__gte=started)]
    boards = [board.id for user in users for board in boards_of(user).items]
    followed = {user: which_boards_followed(user, boards) for user in users}
    return {user: boards for user, boards in followed.items() if boards}


def test_seed_demo_works_off_what_it_queued_before_it_returns() -> None:
    """The demo's feeds are whole when the command returns (no worker runs beside it), so the
    site starts with no backlog in front of a pinner's first follow."""
    flush_feed_queues()
    started = timezone.now()
    output = _seed(*SMALL, worked_off=True)
    assert re.search(r"Worked off [\d,]+ queued messages", output)
    assert queued_messages() == 0
    seeded = _seeded_since(started)
    assert len(seeded) == 3
    for user, followed in seeded.items():
        pins = {pin.id for board in followed for pin in pins_of_board(board).items}
        assert len(followed) == 2 and len(pins) == 4
        assert set(feed_ids_on_both(user)) == pins


def test_seed_demo_leaves_its_messages_queued_when_asked() -> None:
    flush_feed_queues()
    started = timezone.now()
    output = _seed(*SMALL)
    assert "Worked off" not in output and queued_messages() > 0
    seeded = _seeded_since(started)
    assert len(seeded) == 3 and all(feed_ids(user) == [] for user in seeded)
    flush_feed_queues()


def test_seed_demo_creates_the_planned_content() -> None:
    output = _seed("--users", "2", "--boards-per-user", "2", "--pins-per-board", "2",
                   "--repins-per-user", "1")
    assert "Seeded 2 pinners, 4 boards, 8 pins, 2 repins and 2 follows" in output


def test_seed_demo_creates_the_demo_login_with_content() -> None:
    output = _seed("--users", "1", "--boards-per-user", "1", "--pins-per-board", "1")
    assert "Log in as demo / pinsite-demo" in output
    demo = pinner_by_username("demo")
    board = boards_of(demo.user_id).items[0]
    assert pins_of_board(board.id).items


def test_seed_demo_pinners_follow_pinners_and_one_board_each() -> None:
    output = _seed("--users", "4", "--boards-per-user", "1", "--pins-per-board", "1",
                   "--repins-per-user", "0", "--follows-per-user", "2")
    assert "and 12 follows" in output


def test_seed_demo_if_empty_does_nothing_when_pinners_exist() -> None:
    new_pinner()
    before = Pinner.objects.count()
    output = _seed("--users", "2", "--if-empty")
    assert "nothing seeded" in output and Pinner.objects.count() == before


def test_seed_demo_rejects_negative_sizes() -> None:
    with pytest.raises(CommandError, match=re.escape("--users")):
        _seed("--users", "-1")


def test_demo_boards_have_interests_and_demo_pinners_follow_two() -> None:
    report = seed_demo(DemoPlan(users=3, boards_per_user=1, pins_per_board=1,
                                repins_per_user=0, seed=random.randrange(1 << 30)))
    fresh = {user: boards for user, boards in report.boards_of.items() if boards}
    for boards in fresh.values():
        board = get_board(boards[0])
        assert board.interest is not None
        assert pins_of_board(board.id).items[0].interest == board.interest
    seed_follows(fresh, per_user=1, seed=1)
    assert all(len(followed_interests(user)) == 2 for user in fresh)

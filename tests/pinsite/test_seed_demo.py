"""``manage.py seed_demo``: demo content and follows through the ordinary actions."""

from __future__ import annotations

import random
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from graph.demo import seed_follows
from graph.interests import followed_interests
from pins.demo import DemoPlan, seed_demo
from pins.models import Pinner
from pins.selectors import boards_of, get_board, pinner_by_username, pins_of_board
from tests.pins.helpers import new_pinner


def _seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, "--quiet", "--seed", str(random.randrange(1 << 30)),
                 stdout=out)
    return out.getvalue()


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

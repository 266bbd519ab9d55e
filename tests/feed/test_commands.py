"""``manage.py feed init|show|rebuild|deadletters``."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from graph.actions import follow_board
from pins.selectors import get_user
from tests.feed.helpers import feed_ids, new_board, new_pin, new_user
from tests.feed.running import RunningQueue


def _run(*args: str) -> str:
    out = StringIO()
    call_command("feed", *args, stdout=out)
    return out.getvalue()


def _followed_feed(running: RunningQueue) -> tuple[int, list[int]]:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    pins = [new_pin(owner, board, title=f"Tart {i}") for i in range(3)]
    running.settle()
    return fan, pins[::-1]


def test_init_creates_nothing_twice() -> None:
    assert _run("init").splitlines() == ["primary: exists", "standby: exists",
                                         "pulled boards: exists"]


def test_show_prints_the_head_of_a_feed(running: RunningQueue) -> None:
    fan, pins = _followed_feed(running)
    text = _run("show", str(fan), "--limit", "2")
    assert "3 entries" in text and f"pin {pins[0]}  Tart 2" in text and str(pins[2]) not in text


def test_show_as_json_reads_the_chosen_cluster(running: RunningQueue) -> None:
    fan, pins = _followed_feed(running)
    shown = json.loads(_run("show", str(fan), "--cluster", "standby", "--json"))
    assert [item["pin_id"] for item in shown["head"]] == [str(pin) for pin in pins]
    assert shown["horizon"] is None and shown["entries"] == 3


def test_rebuild_rewrites_the_feed_on_both_clusters(running: RunningQueue) -> None:
    fan, pins = _followed_feed(running)
    outcome = json.loads(_run("rebuild", str(fan), "--json"))
    assert outcome == {"primary": {"entries": 3, "removed": 0},
                       "standby": {"entries": 3, "removed": 0}}
    assert feed_ids(fan) == pins


@pytest.mark.parametrize("args", [("show", "nobody"), ("show", "12"), ("rebuild", "x"),
                                  ("rebuild",), ("rebuild", "1", "--all"),
                                  ("show", "1", "--limit", "0")])
def test_bad_input_is_a_command_error(args: tuple[str, ...]) -> None:
    with pytest.raises(CommandError):
        _run(*args)


def test_dead_letters_print_as_json() -> None:
    assert isinstance(json.loads(_run("deadletters", "--json")), list)


def test_show_takes_a_username_as_the_readme_says(running: RunningQueue) -> None:
    fan, _ = _followed_feed(running)
    username = get_user(fan).username
    # One cluster for both: a speculative read goes to the standby now and then, whose
    # write counter need not match the primary's.
    by_name = _run("show", username, "--limit", "1", "--cluster", "primary")
    by_id = _run("show", str(fan), "--limit", "1", "--cluster", "primary")
    assert by_name == by_id.replace(f"user {fan}:", f"user {username}:")

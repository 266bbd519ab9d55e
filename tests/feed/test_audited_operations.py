"""A feed rebuild (``feed.writers.rebuild_everywhere``, what ``manage.py feed rebuild`` runs)
is recorded in the operator audit log with what each cluster got; ``--all`` is one entry."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from feed import writers
from feed.management.commands import feed as feed_command
from graph.actions import follow_board
from tests.auditlog.helpers import recorded, the_entry
from tests.feed.helpers import new_board, new_pin, new_user
from toolkit import acting


def test_a_feed_rebuild_is_recorded_with_what_each_cluster_got() -> None:
    owner, follower = new_user(), new_user()
    board = new_board(owner)
    new_pin(owner, board)
    follow_board(follower, board)
    since = timezone.now()
    with acting.acting_as(acting.command_line(["manage.py", "feed", "rebuild", "ada"])):
        outcome = writers.rebuild_everywhere(follower)
    entry = the_entry("feed.rebuild", f"user {follower}", since)
    assert (entry.outcome, entry.actor_kind) == ("ok", "command")
    assert entry.actor_detail == "manage.py feed rebuild ada"
    assert entry.result == outcome == {"primary": {"entries": 1, "removed": 0},
                                       "standby": {"entries": 1, "removed": 0}}


def test_a_rebuild_of_every_pinner_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    readers = [new_user(), new_user()]
    monkeypatch.setattr(feed_command, "pinner_ids", lambda: readers)
    since = timezone.now()
    call_command("feed", "rebuild", "--all", stdout=io.StringIO())
    entry = the_entry("feed.rebuild", "every pinner", since)
    assert (entry.outcome, entry.arguments) == ("ok", {"pinners": 2})
    assert recorded("feed.rebuild", f"user {readers[1]}", since) == []

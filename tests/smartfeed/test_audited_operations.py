"""A rebuild of a pinner's smart feed pools (``manage.py smartfeed rebuild``) is recorded in
the operator audit log with each pool's size; one queued from the admin is recorded as the
operator's (``tests/admin/test_audit_log``)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from feed.smart.management.commands import smartfeed as smartfeed_command
from graph.actions import follow_board
from tests.auditlog.helpers import recorded, the_entry
from tests.feed.helpers import new_board, new_pin, new_user


def test_a_pool_rebuild_is_recorded_with_the_command_line_and_the_pools_sizes() -> None:
    owner, reader = new_user("sfa"), new_user("sfa")
    board = new_board(owner)
    new_pin(owner, board)
    follow_board(reader, board)
    since = timezone.now()
    call_command("smartfeed", "rebuild", str(reader), "--quiet", stdout=io.StringIO())
    entry = the_entry("smartfeed.rebuild", f"user {reader}", since)
    assert (entry.outcome, entry.actor_kind) == ("ok", "command")
    assert entry.actor_detail == "manage.py smartfeed rebuild"
    assert entry.result == {"following": 1, "repins": 0, "interests": 0, "related": 0}


def test_a_rebuild_of_every_pinner_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    readers = [new_user("sfa"), new_user("sfa")]
    monkeypatch.setattr(smartfeed_command, "pinner_ids", lambda: readers)
    since = timezone.now()
    call_command("smartfeed", "rebuild", "--all", "--empty-only", "--quiet",
                 stdout=io.StringIO())
    entry = the_entry("smartfeed.rebuild", "every pinner never filled", since)
    assert (entry.outcome, entry.arguments) == ("ok", {"pinners": 2})
    assert recorded("smartfeed.rebuild", f"user {readers[0]}", since) == []

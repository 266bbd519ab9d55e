"""The graph's operations in the operator audit log: a user's rebuild by the command line, and
refused moves, promotions and hosts recorded as failed. Promotions that happen are shown in
``tests/admin/test_actions`` (through the admin) and ``test_sentinel`` (by the orchestrator),
a split and a host added in ``test_hosts``, a move in ``test_moves``."""

from __future__ import annotations

import io
import random
import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from graph import topology
from graph.actions import follow_user
from tests.addresses import CLOSED
from tests.auditlog.helpers import the_entry
from tests.graph.helpers import new_user
from toolkit import acting


def _run(*args: str) -> None:
    call_command("graph", *args, stdout=io.StringIO())


def _instance() -> str:
    return f"redist{uuid.uuid4().hex[:10]}"


def test_a_users_rebuild_is_recorded_with_the_command_line_and_what_it_did() -> None:
    user, since = new_user(), timezone.now()
    follow_user(user, new_user())
    _run("rebuild", "--user", str(user), "--quiet")
    entry = the_entry("graph.rebuild", f"user {user}", since)
    assert (entry.outcome, entry.actor_kind, entry.actor) == ("ok", "command", acting.os_user())
    assert entry.actor_detail == "manage.py graph rebuild"
    assert entry.result == {"scope": f"user {user}", "keys_rewritten": 0, "members_fixed": 0,
                            "overlaps_recounted": 0, "differences_found": 0}


def test_a_move_to_a_replica_is_recorded_as_failed() -> None:
    current = topology.current_map()
    replica = current.replica_of(current.masters()[0])
    first, since = random.randrange(4096, 8000), timezone.now()
    with pytest.raises(CommandError, match="replica"):
        _run("vshards", "move", f"{first}-{first + 1}", str(replica))
    entry = the_entry("graph.move", f"{first}-{first + 1}", since)
    assert entry.outcome == "failed" and "MoveError" in entry.error
    assert entry.arguments == {"to": replica, "grace_seconds": 1.0}
    assert entry.actor_detail == "manage.py graph vshards"


def test_promoting_an_unknown_instance_is_recorded_as_failed() -> None:
    instance, since = _instance(), timezone.now()
    with pytest.raises(CommandError, match="neither a master nor a replica"):
        _run("promote", instance)
    entry = the_entry("graph.promote", instance, since)
    assert entry.outcome == "failed" and "PromotionError" in entry.error


def test_adding_an_instance_that_does_not_answer_is_recorded_as_failed() -> None:
    name, since = _instance(), timezone.now()
    with pytest.raises(CommandError, match="does not answer"):
        _run("hosts", "add", name, f"{CLOSED[0]}:{CLOSED[1]}")
    entry = the_entry("graph.hosts.add", name, since)
    assert entry.outcome == "failed" and entry.actor_detail == "manage.py graph hosts"

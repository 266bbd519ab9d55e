"""The shard layer's operations refused on the shared stack, each recorded once in the operator
audit log as failed, with the command line as its actor. Their successes are shown where they
run: ``open`` and ``attach-replica`` in ``test_commands``, ``hosts add``, ``split`` and
``cleanup`` in ``test_split``, the orchestrator's promotion and fence in ``test_orchestrator``,
a promotion through the admin in ``tests/admin/test_actions``."""

from __future__ import annotations

import io
import random
import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from sharding.topology import current_map
from tests.addresses import CLOSED
from tests.auditlog.helpers import recorded, the_entry
from toolkit import acting


def _run(*args: str) -> None:
    call_command("shards", *args, stdout=io.StringIO())


def _host() -> str:
    return f"mysqlt{uuid.uuid4().hex[:10]}"


def test_a_refused_promotion_is_recorded_as_failed_with_the_command_line() -> None:
    master, since = _host(), timezone.now()
    with pytest.raises(CommandError, match="not a master"):
        _run("promote", master)
    entry = the_entry("shards.promote", master, since)
    assert entry.outcome == "failed" and entry.seconds is not None
    assert entry.error.startswith(f"PromotionError: {master} is not a master in the shard map")
    assert (entry.actor_kind, entry.actor) == ("command", acting.os_user())
    assert entry.actor_detail == "manage.py shards promote"
    assert entry.arguments == {"wait_seconds": None}


def test_opening_a_range_on_an_unknown_host_is_recorded_as_failed() -> None:
    first, since = random.randrange(61_000, 65_000), timezone.now()
    host = _host()
    with pytest.raises(CommandError, match="neither configured"):
        _run("open", f"{first}-{first + 1}", host)
    entry = the_entry("shards.open", f"{first}-{first + 1}", since)
    assert entry.outcome == "failed" and "neither configured" in entry.error
    assert entry.arguments == {"range": [first, first + 1], "master": host, "replica": None}


def test_attaching_a_server_that_is_no_replica_is_recorded_as_failed() -> None:
    first, second = current_map().ranges[0], current_map().ranges[-1]
    since = timezone.now()
    with pytest.raises(CommandError, match="is not a replica"):
        _run("attach-replica", first.master, second.master)
    [*_, entry] = [entry for entry in recorded("shards.attach_replica", first.master, since)
                   if entry.arguments == {"replica": second.master}]
    assert entry.outcome == "failed" and "ShardMapError" in entry.error


def test_adding_a_host_that_does_not_answer_is_recorded_as_failed() -> None:
    name, since = _host(), timezone.now()
    with pytest.raises(CommandError, match="does not answer"):
        _run("hosts", "add", name, f"{CLOSED[0]}:{CLOSED[1]}")
    entry = the_entry("shards.hosts.add", name, since)
    assert entry.outcome == "failed" and "nothing was registered" in entry.error
    assert entry.arguments == {"address": f"{CLOSED[0]}:{CLOSED[1]}"}
    assert entry.actor_detail == "manage.py shards hosts"


def test_removing_a_host_that_is_not_registered_is_recorded_as_failed() -> None:
    name, since = _host(), timezone.now()
    with pytest.raises(CommandError, match="not a registered mysql host"):
        _run("hosts", "remove", name)
    entry = the_entry("shards.hosts.remove", name, since)
    assert entry.outcome == "failed" and "RegistryError" in entry.error

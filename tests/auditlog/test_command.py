"""``manage.py audit show``: the newest entries as text or JSON, filtered by action and time,
and clear errors for bad input."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from auditlog.management.commands.audit import parse_since
from auditlog.models import AuditEntry
from auditlog.operations import operation
from sharding.exceptions import PromotionError
from toolkit import acting


def _show(*args: str) -> str:
    out = io.StringIO()
    call_command("audit", "show", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def family() -> str:
    """An action family of the test's own with two entries: ``<family>.promote`` on
    mysql001a (ok, by an admin), then ``<family>.split`` on mysql002a (failed)."""
    name = f"tests{uuid.uuid4().hex[:10]}"
    with acting.acting_as(acting.admin("ops-ada", "POST /admin/")), \
            operation(f"{name}.promote", "mysql001a", {"wait_seconds": 5}) as done:
        done.result = {"map_version": 3}
    with pytest.raises(PromotionError), operation(f"{name}.split", "mysql002a"):
        raise PromotionError("mysql003a is in the shard map already")
    return name


def test_show_prints_an_action_familys_entries_newest_first(family: str) -> None:
    lines = _show("--action", family).splitlines()
    assert len(lines) == 2
    assert f"  {family}.split  mysql002a  failed " in lines[0]
    assert ": PromotionError: mysql003a is in the shard map already  process " in lines[0]
    assert f"  {family}.promote  mysql001a  ok " in lines[1]
    assert lines[1].endswith("  admin ops-ada (POST /admin/)")


def test_show_filters_one_action_and_limits_the_count(family: str) -> None:
    assert f"{family}.promote" in _show("--action", f"{family}.promote")
    assert f"{family}.split" not in _show("--action", f"{family}.promote")
    [line] = _show("--action", family, "--limit", "1").splitlines()
    assert f"{family}.split" in line


def test_show_json_gives_every_field(family: str) -> None:
    first, second = json.loads(_show("--action", family, "--json"))
    assert (first["action"], first["outcome"]) == (f"{family}.split", "failed")
    assert second["action"] == f"{family}.promote" and second["target"] == "mysql001a"
    assert second["arguments"] == {"wait_seconds": 5}
    assert second["actor"] == {"kind": "admin", "name": "ops-ada", "detail": "POST /admin/"}
    assert second["result"] == {"map_version": 3} and second["error"] == ""
    assert second["seconds"] >= 0 and second["finished"] >= second["started"]
    assert datetime.fromisoformat(second["started"]).tzinfo is not None


def test_show_since_leaves_out_older_entries(family: str) -> None:
    assert len(_show("--action", family, "--since", "1h").splitlines()) == 2
    entry = AuditEntry.objects.get(action=f"{family}.promote")
    entry.started -= timedelta(hours=2)
    entry.save(update_fields=["started"])
    assert len(_show("--action", family, "--since", "90m").splitlines()) == 1
    since = (timezone.now() - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    assert len(_show("--action", family, "--since", since).splitlines()) == 2


def test_show_says_so_when_nothing_matches() -> None:
    assert _show("--action", "tests.never", "--since", "5m") == \
        "no operations recorded since 5m\n"


def test_since_takes_a_time_ago_or_a_utc_date_and_time() -> None:
    now = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    assert parse_since("1h", now) == datetime(2026, 11, 28, 11, 0, tzinfo=UTC)
    assert parse_since("90s", now) == datetime(2026, 11, 28, 11, 58, 30, tzinfo=UTC)
    assert parse_since("2d", now) == datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    assert parse_since("2026-11-28T10:00", now) == datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
    assert parse_since("2026-11-28", now) == datetime(2026, 11, 28, tzinfo=UTC)


@pytest.mark.parametrize("since", ["yesterday", "1y", "-1h", "2026-13-01", ""])
def test_a_bad_since_is_a_command_error(since: str) -> None:
    with pytest.raises(CommandError, match=r"--since takes a time ago \(90s, 30m, 1h, 2d\)"):
        _show(f"--since={since}")


@pytest.mark.parametrize(("limit", "message"), [("0", "--limit must be at least 1"),
                                                ("10001", "--limit must be at most 10,000")])
def test_a_limit_out_of_range_is_a_command_error(limit: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        _show("--limit", limit)


def test_show_needs_a_subcommand() -> None:
    with pytest.raises(CommandError, match="SUBCOMMAND"):
        call_command("audit")

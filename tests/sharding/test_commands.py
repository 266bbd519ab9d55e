"""``manage.py shards``: decode, init, show, open, attach-replica (only a real replica) — and
clear errors."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from sharding.topology import change_map, current_map
from tests.auditlog.helpers import recorded


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("shards", *args, stdout=out)
    return out.getvalue()


def test_decode_prints_shard_type_and_local_id_of_the_golden_id() -> None:
    assert _run("decode", "241294492511762325") == \
        "241294492511762325: shard 3429 (db03429), type 1 (pin), local 7075733\n"


def test_decode_json_gives_ids_as_strings() -> None:
    [row] = json.loads(_run("decode", "--json", "241294492511762325"))
    assert row == {"id": "241294492511762325", "shard": 3429, "schema": "db03429",
                   "type_id": 1, "type": "pin", "local_id": 7075733}


@pytest.mark.parametrize("bad", ["hello", "0", "-1", str(2**64)])
def test_decode_rejects_bad_ids_with_a_command_error(bad: str) -> None:
    with pytest.raises(CommandError):
        _run("decode", bad)


def test_init_is_idempotent() -> None:
    output = _run("init", "--quiet")
    assert "shard map exists" in output
    assert "host registry: 0 configured host(s) registered" in output
    assert all(" 0 schemas and 0 tables created" in line
               for line in output.splitlines()[2:])


def test_show_lists_every_range_with_master_and_replica_health() -> None:
    shown = json.loads(_run("show", "--json"))
    assert [(r["range"], r["master"]) for r in shown["ranges"]] == [
        ([r.first, r.last], r.master) for r in current_map().ranges]
    for row in shown["ranges"]:
        assert row["master_health"]["reachable"] is True
        assert row["master_health"]["read_only"] is False
        assert row["replica_health"]["replicating"] is True
        assert row["replica_health"]["lag_seconds"] is not None


def test_promoting_an_unknown_host_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="not a master"):
        _run("promote", "mysql999a")


def test_opening_an_overlapping_range_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="overlaps"):
        _run("open", "0-3", current_map().masters()[0])


def test_opening_a_range_on_an_unconfigured_host_is_a_command_error() -> None:
    with pytest.raises(CommandError, match=r"neither configured .* nor registered"):
        _run("open", "60000-60001", "mysql999a")


def test_a_malformed_range_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="FIRST-LAST"):
        _run("open", "a-b", "mysql001a")


def test_an_opened_range_is_created_and_routed() -> None:
    before, since = current_map(), timezone.now()
    master = before.masters()[-1]
    first = 60000
    try:
        output = _run("open", f"{first}-{first + 1}", master)
        assert "opened shards 60000-60001" in output
        assert current_map().master_for(first + 1) == master
    finally:
        change_map(lambda m: type(m)(before.ranges, m.version))
    [entry] = recorded("shards.open", "60000-60001", since, actor_kind="command",
                       actor_detail="manage.py shards open")
    assert entry.outcome == "ok" and entry.arguments["master"] == master
    assert entry.result is not None and entry.result["schemas_created"] in (0, 2)


def test_attaching_a_replica_records_it_in_the_map() -> None:
    shard_range, since = current_map().ranges[0], timezone.now()
    try:
        _run("attach-replica", shard_range.master)
        assert current_map().range_for(shard_range.first).replica is None
    finally:
        _run("attach-replica", shard_range.master, shard_range.replica or "")
    assert current_map().range_for(shard_range.first).replica == shard_range.replica
    detached, attached = recorded("shards.attach_replica", shard_range.master, since,
                                  actor_detail="manage.py shards attach-replica")[-2:]
    assert (detached.outcome, detached.arguments) == ("ok", {"replica": None})
    assert (attached.outcome, attached.arguments) == ("ok", {"replica": shard_range.replica})


def test_attaching_an_unconfigured_replica_is_a_command_error() -> None:
    with pytest.raises(CommandError, match=r"neither configured .* nor registered"):
        _run("attach-replica", current_map().masters()[0], "mysql999b")


def test_attaching_a_server_that_does_not_replicate_the_master_is_refused() -> None:
    first, second = current_map().ranges[0], current_map().ranges[-1]
    assert first.master != second.master and second.replica is not None
    before = current_map()
    with pytest.raises(CommandError) as writable:  # another master: writable, no source
        _run("attach-replica", first.master, second.master)
    assert "is writable" in str(writable.value) and "replicates from nothing" in str(writable.value)
    assert "devstack reclone" in str(writable.value)
    with pytest.raises(CommandError, match=f"not from {first.master}"):  # another's replica
        _run("attach-replica", first.master, second.replica)
    assert current_map() == before


def test_orchestrator_options_are_checked_and_history_starts_empty() -> None:
    with pytest.raises(CommandError, match="--failures must be at least 1"):
        call_command("orchestrator", "run", "--failures", "0")
    with pytest.raises(CommandError, match="--interval must be more than 0"):
        call_command("orchestrator", "run", "--interval", "0")
    out = io.StringIO()
    call_command("orchestrator", "history", stdout=out)
    assert out.getvalue() == "no failovers yet\n"


def test_a_deposed_master_promoted_back_later_is_not_fenced() -> None:
    from sharding.orchestrator import deposed

    history = [{"kind": "promoted", "master": "mysqlz1a", "replica": "mysqlz1b", "fenced": False},
               {"kind": "promoted", "master": "mysqlz1b", "replica": "mysqlz1a", "fenced": False}]
    assert deposed(history, masters=[]) == ["mysqlz1b"]  # mysqlz1a serves again
    assert deposed(history[:1], masters=[]) == ["mysqlz1a"]
    assert deposed([*history[:1], {"kind": "fenced", "master": "mysqlz1a"}], masters=[]) == []

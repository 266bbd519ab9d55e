"""``manage.py graph``: idempotent init, the map for scripts, clear errors for bad input."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from graph import topology
from tests.graph.helpers import new_board, new_user


def _run(*args: str) -> str:
    out = StringIO()
    call_command("graph", *args, stdout=out)
    return out.getvalue()


def test_init_keeps_an_existing_map() -> None:
    before = topology.read_fresh()
    assert "vshard map exists" in _run("init")
    assert topology.read_fresh() == before


def test_vshards_show_lists_every_range_and_instance() -> None:
    shown = json.loads(_run("vshards", "show", "--json"))
    assert sum(r["vshards"] for r in shown["ranges"]) == 8192
    assert all(shown["instances"][name]["up"] for name in topology.current_map().masters())


def test_vshards_show_prints_a_table() -> None:
    assert "vshard map version" in _run("vshards", "show")


@pytest.mark.parametrize("text", ["a-b", "9000", "5-2"])
def test_a_bad_vshard_range_is_a_command_error(text: str) -> None:
    with pytest.raises(CommandError, match="vshard"):
        _run("verify", "--vshard", text)


def test_moving_to_an_unknown_instance_is_a_command_error() -> None:
    with pytest.raises(CommandError, match=r"neither configured .* nor registered"):
        _run("vshards", "move", "0-1", "redis999a")


def test_moving_to_a_replica_is_refused() -> None:
    replica = topology.current_map().replica_of(topology.current_map().masters()[0])
    assert replica is not None
    with pytest.raises(CommandError, match="replica"):
        _run("vshards", "move", "0-1", replica)


def test_promoting_an_unknown_instance_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="neither a master nor a replica"):
        _run("promote", "redis999a")


def test_verify_of_a_board_id_as_user_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="not a user ID"):
        _run("verify", "--user", str(new_board(new_user())))


def test_verify_needs_a_scope() -> None:
    with pytest.raises(CommandError):
        _run("verify")

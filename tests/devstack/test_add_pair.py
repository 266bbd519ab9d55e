"""``python3 -m devstack add-pair KIND NAME``: a pair added to a stack for good, started, and
watched by the stack's sentinels (Redis)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from devstack.__main__ import main
from devstack.errors import DevstackError
from devstack.profile import resolve_profile
from devstack.sentinel import Sentinel
from devstack.services import build_services, extra_pair, record_extra_pair
from devstack.stack import Stack

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

PROFILE = "addpair"


def test_added_pairs_have_names_and_ports_of_their_own() -> None:
    assert extra_pair("mysql", "mysql003") == ("mysql003a", 731, "mysql003b", 732)
    assert extra_pair("redis", "redis009") == ("redis009a", 591, "redis009b", 592)
    for kind, name in (("mysql", "mysql001"), ("mysql", "redis003"), ("redis", "redis010")):
        with pytest.raises(DevstackError, match="is named"):
            extra_pair(kind, name)


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """A stack of its own (profile ``addpair``) whose only running services are three
    sentinels and what the test adds."""
    monkeypatch.setenv("PINSITE_PORT_BASE", "9000")  # below the ephemeral ports
    profile = resolve_profile(PROFILE)
    shutil.rmtree(profile.var_dir, ignore_errors=True)
    made = Stack(PROFILE)
    try:
        yield made
    finally:
        Stack(PROFILE).down()
        shutil.rmtree(profile.var_dir, ignore_errors=True)


def test_a_redis_pair_is_added_started_kept_and_watched(stack: Stack,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    sentinels = [s for s in stack.services.values() if isinstance(s, Sentinel)]
    stack.up([s.name for s in sentinels])

    assert main(["--profile", PROFILE, "add-pair", "redis", "redis003"]) == 0

    shown = capsys.readouterr().out
    assert "graph hosts add redis003a" in shown and "graph hosts add redis003b" in shown
    again = Stack(PROFILE)  # a later command knows the pair from the profile's record
    assert {"redis003a", "redis003b"} <= set(again.services)
    rows = {row["name"]: row for row in again.status(["redis003a", "redis003b"])}
    assert rows["redis003a"]["healthy"] and rows["redis003b"]["healthy"]
    assert rows["redis003b"]["replication"]["master_link_status"] == "up"
    master = again.services["redis003a"]
    for sentinel in (s for s in again.services.values() if isinstance(s, Sentinel)):
        assert sentinel.masters()["redis003"] == f"{master.host}:{master.port}"
    assert record_extra_pair(stack.profile, "redis", "redis003") is False  # recorded once
    assert [name for name in build_services(stack.profile) if name.startswith("redis003")] == [
        "redis003a", "redis003b"]

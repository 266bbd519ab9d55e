"""Moving a vshard online: follows keep coming while ``graph vshards move`` copies, verifies,
switches the map and drops the old keys in another process; none is lost, then it moves back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import timezone

from graph import actions, repair, selectors, topology
from graph.exceptions import GraphError
from graph.vshards import vshard_of
from tests.auditlog.helpers import recorded
from tests.graph.helpers import masters, new_user, user_on

REPO = Path(__file__).resolve().parents[2]


def _manage(*args: str) -> str:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings"}
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=environment,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


class Writer(threading.Thread):
    """Follows from users of the moving vshard until stopped; records what was acknowledged."""

    def __init__(self, followers: list[int], targets: list[int]) -> None:
        super().__init__(daemon=True)
        self.pairs = [(f, t) for f in followers for t in targets]
        self.acknowledged: list[tuple[int, int]] = []
        self.errors: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        for follower, target in self.pairs:
            if self.stop.is_set():
                return
            try:
                actions.follow_user(follower, target)
                actions.follow_user(target, follower)
                self.acknowledged += [(follower, target), (target, follower)]
            except GraphError as exc:
                self.errors.append(repr(exc))


@pytest.fixture
def moving_user() -> Iterator[tuple[int, str, str]]:
    """A user on the first master, that master and the one the user's vshard moves to; the
    vshard is moved back afterwards if the test did not."""
    source, target = masters()[:2]
    user = user_on(source)
    yield user, source, target
    vshard = vshard_of(user)
    if topology.refresh().master_for(vshard) != source:
        _manage("graph", "vshards", "move", f"{vshard}-{vshard}", source, "--grace", "0")


@pytest.mark.alone
@pytest.mark.slow
def test_a_vshard_moves_online_without_losing_a_follow(
        moving_user: tuple[int, str, str]) -> None:
    user, source, target = moving_user
    vshard, since = vshard_of(user), timezone.now()
    already = repair.verify({vshard}).differences
    writer = Writer([user], [new_user() for _ in range(150)])
    writer.start()
    report = json.loads(_manage("graph", "vshards", "move", f"{vshard}-{vshard}", target,
                                "--grace", "0.2", "--json"))
    writer.stop.set()
    writer.join(timeout=60)
    assert report["vshards_moved"] == 1 and report["sources"] == [source]
    assert writer.errors == []
    assert topology.refresh().master_for(vshard) == target
    for follower, followee in writer.acknowledged:
        assert selectors.is_following_user(follower, followee)
    assert repair.verify({vshard}).differences == already
    _manage("graph", "vshards", "move", f"{vshard}-{vshard}", source, "--grace", "0")
    assert topology.refresh().ranges == topology.initial_map().ranges
    assert repair.verify({vshard}).differences == already
    there, back = recorded("graph.move", f"{vshard}-{vshard}", since, actor_kind="command")
    assert (there.outcome, there.arguments, there.result) == (
        "ok", {"to": target, "grace_seconds": 0.2}, report)
    assert there.actor_detail == f"manage.py graph vshards move {vshard}-{vshard} {target} " \
                                 "--grace 0.2 --json"
    assert (back.outcome, back.arguments["to"]) == ("ok", source)

"""A Redis instance registered in ZooKeeper after the writers started (``graph hosts add``) is
reached by them without a restart once half of a master's vshards move to it (``graph
split``), and no write made meanwhile is lost."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
import redis
from django.utils import timezone

from devstack.pairs import destroy
from devstack.ports import free_loopback_ports
from devstack.redis import Redis
from devstack.service import MASTER, REPLICA, SINGLE
from graph.vshards import vshard_of
from tests.auditlog.helpers import recorded, the_entry
from tests.graph.test_failover import REPO, Writer, pair_environment, users

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

__all__ = ["users"]  # the fixture, shared with the failover tests


@pytest.fixture
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Redis]]:
    """A pair that the environment routes every vshard to, and a third instance it does not
    name."""
    root = tmp_path_factory.mktemp("graph-hosts")
    ports = free_loopback_ports(3)
    master = Redis("redish1a", ports[0], root / "redish1a", role=MASTER, persistent=True)
    replica = Redis("redish1b", ports[1], root / "redish1b", role=REPLICA, master=master,
                    persistent=True)
    extra = Redis("redish2a", ports[2], root / "redish2a", role=SINGLE, persistent=True)
    try:
        for service in (master, replica, extra):
            service.up()
        yield pair_environment("redish1a", "redish1b", ports[0], ports[1], root), extra
    finally:
        destroy(master, replica, extra)


def _manage(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_a_running_writer_follows_vshards_moved_to_an_instance_registered_after_it_started(
        instances: tuple[dict[str, str], Redis], users: list[int]) -> None:
    (environment, extra), since = instances, timezone.now()
    assert _manage(environment, "shards", "init", "--quiet").returncode == 0
    assert _manage(environment, "graph", "init").returncode == 0
    writer = Writer(environment, users, pause=0.01)
    writer.wait_for(lambda: len(writer.acknowledged) >= 20)

    refused = _manage(environment, "graph", "split", "redish1a", "redish2a")
    assert refused.returncode != 0 and "graph hosts add" in refused.stderr
    added = _manage(environment, "graph", "hosts", "add", "redish2a", f"127.0.0.1:{extra.port}")
    assert added.returncode == 0, added.stderr
    moved = _manage(environment, "graph", "split", "redish1a", "redish2a", "--json")
    assert moved.returncode == 0, moved.stderr
    # the 64 shards' vshards 0-63 are halved; the empty ones above go along
    assert [(r["first"], r["last"]) for r in json.loads(moved.stdout)["moves"]] == [(32, 8191)]
    assert any(vshard_of(user) >= 32 for user in users)  # some of the writer's follows moved
    before = len(writer.acknowledged)
    writer.wait_for(lambda: len(writer.acknowledged) >= before + 30)
    writer.process.terminate()
    writer.process.wait(timeout=30)

    assert not writer.errors, writer.errors[:3]
    with redis.Redis(port=extra.port) as client:
        assert client.info("keyspace"), "nothing was moved to the new instance"
    checked = _manage(environment, "shell", "-c", (  # the writer's users' keys against the log
        "from graph import repair; print(sum(len(repair.verify_user(u).differences) "
        f"for u in {users!r}))"))
    assert checked.stdout.strip().splitlines()[-1] == "0", checked.stderr
    in_use = _manage(environment, "graph", "hosts", "remove", "redish2a")
    assert in_use.returncode != 0 and "is a master in the vshard map" in in_use.stderr

    # the operator audit log: the host added, one split (its move a part of it), the refusal
    assert the_entry("graph.hosts.add", "redish2a", since).outcome == "ok"
    split = the_entry("graph.split", "redish1a", since)
    assert (split.outcome, split.actor_kind, split.arguments) == ("ok", "command",
                                                                  {"new": "redish2a"})
    assert split.result == {"moves": json.loads(moved.stdout)["moves"]}
    assert recorded("graph.move", "32-8191", since) == []
    assert the_entry("graph.hosts.remove", "redish2a", since).outcome == "failed"

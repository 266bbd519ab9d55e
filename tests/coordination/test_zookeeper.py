"""Small JSON nodes and elections on the real ZooKeeper, and what a command says when
ZooKeeper cannot be reached."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from coordination import election
from coordination.zookeeper import append_json, delete_tree, read_json, root_path, write_json
from tests.addresses import CLOSED
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def name() -> Iterator[str]:
    """A node of the test's own under the root, deleted afterwards with what lies below."""
    node = f"test-coordination-{uuid.uuid4().hex[:8]}"
    yield node
    delete_tree(root_path(node))


def test_a_json_node_is_written_read_and_missing_gives_the_default(name: str) -> None:
    assert read_json(f"{name}/status", default={"rounds": None}) == {"rounds": None}
    write_json(f"{name}/status", {"leader": "a", "rounds": 1})
    write_json(f"{name}/status", {"leader": "a", "rounds": 2})
    assert read_json(f"{name}/status") == {"leader": "a", "rounds": 2}


def test_appending_keeps_the_newest_entries_and_loses_none_to_a_race(name: str) -> None:
    start = threading.Barrier(4)

    def append(writer: int) -> None:
        start.wait()
        for n in range(5):
            append_json(f"{name}/history", {"writer": writer, "n": n}, keep=100)

    threads = [threading.Thread(target=append, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = read_json(f"{name}/history")
    assert sorted((e["writer"], e["n"]) for e in entries) == [(w, n) for w in range(4)
                                                              for n in range(5)]
    append_json(f"{name}/history", {"writer": 9, "n": 0}, keep=3)
    assert [e["writer"] for e in read_json(f"{name}/history")][-1] == 9
    assert len(read_json(f"{name}/history")) == 3


def test_one_candidate_leads_and_the_next_takes_over_when_it_stops(name: str) -> None:
    leading: list[str] = []
    stops = {who: threading.Event() for who in ("first", "second")}

    def candidate(who: str) -> threading.Thread:
        def lead() -> None:
            leading.append(who)
            stops[who].wait()

        thread = threading.Thread(target=election.stand, daemon=True,
                                  args=(f"{name}/election", who, lead, stops[who], 0.1))
        thread.start()
        return thread

    first = candidate("first")
    assert wait_until(lambda: leading == ["first"], 10)
    second = candidate("second")
    assert wait_until(lambda: election.contenders(f"{name}/election") == ["first", "second"],
                      10)
    assert leading == ["first"]
    stops["first"].set()
    first.join(10)
    assert wait_until(lambda: leading == ["first", "second"], 10)
    assert election.contenders(f"{name}/election") == ["second"]
    stops["second"].set()
    second.join(10)
    assert not first.is_alive() and not second.is_alive()


def test_a_command_reading_zookeeper_it_cannot_reach_says_so_in_one_line() -> None:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PINSITE_ZK_HOSTS": f"{CLOSED[0]}:{CLOSED[1]}", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "manage.py", "orchestrator", "status"], cwd=REPO,
                            env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"ZooKeeper at {CLOSED[0]}:{CLOSED[1]} is unreachable" in result.stderr
    assert "Traceback" not in result.stderr

"""Operator views of the graph's instances: roles and replication lag against the master."""

from __future__ import annotations

from graph import topology
from graph.health import instance_health
from tests.polling import wait_until


def test_a_replicas_lag_is_measured_against_its_master() -> None:
    current = topology.current_map()
    master = current.masters()[0]
    replica = current.replica_of(master)
    assert replica is not None
    assert instance_health(master).role == "master"
    assert instance_health(replica).lag_bytes is None  # no master given: nothing to compare
    assert wait_until(lambda: instance_health(replica, master).lag_bytes == 0, timeout=10)


def test_the_lag_is_unknown_when_the_master_does_not_answer() -> None:
    current = topology.current_map()
    replica = current.replica_of(current.masters()[0])
    assert replica is not None
    assert instance_health(replica, "no-such-instance").lag_bytes is None

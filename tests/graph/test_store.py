"""The Redis store: pools per process, idempotent steps, one round trip per instance, fences
and dual writes."""

from __future__ import annotations

import logging
import os

import pytest
from prometheus_client import REGISTRY
from pytest_django import Settings

from graph import actions, edgelog, keys, repair, selectors, topology, updates
from graph.conf import graph_settings
from graph.edgelog import LogChange
from graph.exceptions import GraphUnavailable
from graph.store import admin
from graph.store.connections import Pools
from graph.store.writes import apply
from graph.vshards import vshard_of
from tests.graph.helpers import masters, new_user, user_on


def test_a_forked_process_gets_its_own_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    pools = Pools()
    instance = masters()[0]
    parent = pools.client(instance)
    assert pools.client(instance) is parent
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert pools.client(instance) is not parent


def test_applying_the_same_steps_twice_changes_nothing() -> None:
    ann, bob = new_user(), new_user()
    change = actions.follow_user(ann, bob)
    names = [keys.user_key(ann, keys.FOLLOWING), keys.user_key(bob, keys.FOLLOWERS)]
    before = _values(names)
    apply(updates.follow_user(ann, bob, LogChange(True, change.action_time_us + 5)))
    assert _values(names) == before


def test_a_fenced_vshard_refuses_the_step_until_the_fence_lifts() -> None:
    ann, bob = new_user(), new_user()
    instance = topology.master_for(vshard_of(ann))
    admin.set_fences(instance, [vshard_of(ann)], "fenced", 0.3)
    actions.follow_user(ann, bob)
    assert selectors.is_following_user(ann, bob)


def test_a_write_waits_out_a_reconcile_that_outlasts_its_retries(
        settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    """The retries back off for about 1.6 s in all; a promoted instance's rebuild from the edge
    log may take longer, and a write it fences waits for it (``RECONCILE_WAIT_SECONDS``): the
    fence's refusals do not use up the write's attempts. Here the retries would be spent in a
    tenth of the fence's time."""
    settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "RETRY_DELAY": 0.01,
                              "RETRY_MAX_DELAY": 0.02, "RECONCILE_WAIT_SECONDS": 60}
    caplog.set_level(logging.INFO, logger="pinsite.graph")
    ann, bob = new_user(), new_user()
    instance = topology.master_for(vshard_of(ann))
    admin.set_fences(instance, [vshard_of(ann)], keys.RECONCILING, 2.5)
    actions.follow_user(ann, bob)
    refusals = [record for record in caplog.records
                if keys.RECONCILING in record.getMessage() and "retrying" in record.getMessage()]
    assert len(refusals) > graph_settings.number("WRITE_ATTEMPTS")
    assert selectors.is_following_user(ann, bob)


def test_a_write_gives_up_on_a_reconcile_that_never_ends(settings: Settings) -> None:
    settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "RECONCILE_WAIT_SECONDS": 0.5}
    ann, bob = new_user(), new_user()
    instance = topology.master_for(vshard_of(ann))
    admin.set_fences(instance, [vshard_of(ann)], keys.RECONCILING, 30)
    try:
        with pytest.raises(GraphUnavailable, match="gave up after 6 failed attempts"):
            actions.follow_user(ann, bob)
    finally:
        admin.clear_fences(instance, [vshard_of(ann)])
    assert not selectors.is_following_user(ann, bob)
    repair.rebuild_user(ann)  # the edge log has the follow
    assert selectors.is_following_user(ann, bob)
    assert repair.verify_user(ann).differences == []


def test_steps_on_one_instance_take_one_round_trip() -> None:
    instance = masters()[0]
    ann, bob = user_on(instance), user_on(instance)
    calls = _redis_calls(instance)
    actions.follow_user(ann, bob)
    assert _redis_calls(instance) == calls + 1
    assert selectors.is_following_user(ann, bob)
    assert selectors.follower_count(bob) == 1


def test_steps_of_many_writes_take_one_round_trip_per_instance_whatever_their_order() -> None:
    first, second = masters()[:2]
    pairs = [(user_on(first), user_on(second)), (user_on(second), user_on(first)),
             (user_on(first), user_on(first))]  # the steps alternate between the instances
    # the edge log first, as a follow writes it: the graph stays as the log has it
    changes = [edgelog.record_user_follow(follower, followee) for follower, followee in pairs]
    steps = [step for (follower, followee), change in zip(pairs, changes, strict=True)
             for step in updates.follow_user(follower, followee, change)]
    calls = {instance: _redis_calls(instance) for instance in (first, second)}
    apply(steps)
    assert {instance: _redis_calls(instance) - before for instance, before in calls.items()} \
        == {first: 1, second: 1}
    for follower, followee in pairs:
        assert selectors.is_following_user(follower, followee)
        assert selectors.followers_page(followee).ids == [follower]
        assert repair.verify_user(follower).differences == []  # Redis as the log has it


@pytest.mark.parametrize("followee_on_source", [False, True])
def test_a_moving_vshard_applies_each_step_on_both_instances(followee_on_source: bool) -> None:
    source, target = masters()[:2]
    ann, bob = user_on(source), (user_on(source) if followee_on_source else new_user())
    vshard = vshard_of(ann)
    admin.clear_fences(target, [vshard])
    admin.set_fences(source, [vshard], f"moving:{target}", None)
    try:
        actions.follow_user(ann, bob)
        key = keys.user_key(ann, keys.FOLLOWING)
        assert admin.read_values(target, [key]) == admin.read_values(source, [key])
    finally:
        admin.clear_fences(source, [vshard])
        admin.delete_keys(target, [keys.user_key(ann, kind) for kind in keys.USER_KINDS])


def _redis_calls(instance: str) -> float:
    return REGISTRY.get_sample_value("pinsite_store_call_seconds_count",
                                     {"backend": "redis", "instance": instance}) or 0.0


def _values(names: list[str]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name in names:
        vshard = keys.vshard_of_key(name)
        assert vshard is not None
        found.update(admin.read_values(topology.master_for(vshard), [name]))
    return found

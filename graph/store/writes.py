"""Applying graph updates: one Lua script per step, on the master of the step's vshard.

The steps that one instance serves (an action's two sides, when the follower's and the
followee's vshards share a master; a bulk write's steps on it) go to it in one round trip, in
the order given. Steps on different vshards touch different keys, so the order between
instances does not matter; a vshard's steps keep theirs, since one instance serves it. A failed
step is retried with exponential backoff, reading the vshard map from ZooKeeper again before
each retry (a promotion or a move may have changed the master). A step that finds its vshard
being moved is applied to the target instance as well.

>>> apply([Step("follow_user_out", 17, ("g:{17}:u:1:fwe", "g:{17}:u:1:fwi"), (2, 1700))])
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from graph import topology
from graph.conf import graph_settings
from graph.exceptions import GraphError, GraphFenced, GraphUnavailable
from graph.keys import RECONCILING, fence_key
from graph.store.connections import client
from graph.store.errors import translated
from graph.store.scripts import scripts

log = logging.getLogger("pinsite.graph")

MOVING = "moving:"


@dataclass(frozen=True)
class Step:
    """One atomic update on one vshard: a named script with its data keys and arguments."""

    script: str
    vshard: int
    keys: tuple[str, ...]
    args: tuple[str | int, ...]


def apply(steps: Sequence[Step]) -> None:
    """Apply ``steps``, those of each instance in one round trip and in their order, each
    retried until it succeeds or the attempts run out."""
    for instance, batch in _by_master(steps).items():
        if len(batch) == 1 or not _applied_together(instance, batch):
            for step in batch:  # one by one, with retries (a step applied twice is harmless)
                apply_step(step)


def _by_master(steps: Sequence[Step]) -> dict[str, list[Step]]:
    """``steps`` grouped by the master of their vshard (in first-seen order), each group in
    the order given."""
    vshard_map = topology.current_map()
    groups: dict[str, list[Step]] = {}
    for step in steps:
        groups.setdefault(vshard_map.master_for(step.vshard), []).append(step)
    return groups


def _applied_together(instance: str, batch: Sequence[Step]) -> bool:
    """Run ``batch`` on ``instance`` in one round trip; False unless every step ran there
    and no vshard of theirs is being moved (the caller then applies each step on its own)."""
    calls = [(step.script, [fence_key(step.vshard), *step.keys], list(step.args))
             for step in batch]
    try:
        with translated(instance):
            results = scripts.run_together(client(instance), calls)
    except GraphError:
        return False
    return all(isinstance(result, str) and not result.startswith(MOVING) for result in results)


def apply_step(step: Step) -> None:
    """Apply one step, retrying failures (``WRITE_ATTEMPTS`` in all). Refusals by a
    ``reconciling`` fence (a promoted instance being rebuilt from the edge log, which takes
    longer than the retries) are not counted for the first ``RECONCILE_WAIT_SECONDS``."""
    attempts = graph_settings.number("WRITE_ATTEMPTS")
    delay = graph_settings.decimal("RETRY_DELAY")
    waits_until = time.monotonic() + graph_settings.decimal("RECONCILE_WAIT_SECONDS")
    failures = 0
    while True:
        try:
            _apply_once(step)
            return
        except GraphUnavailable as exc:
            if not (_reconciling(exc) and time.monotonic() < waits_until):
                failures += 1
            if failures == attempts:
                raise GraphUnavailable(
                    f"{exc} (gave up after {attempts} failed attempts; the edge log holds the "
                    "change, `manage.py graph verify` finds it and `graph rebuild` applies it)"
                ) from exc
            log.info("graph step %s on vshard %s failed (%s); retrying", step.script,
                     step.vshard, exc)
        time.sleep(delay)
        delay = min(delay * 2, graph_settings.decimal("RETRY_MAX_DELAY"))
        topology.refresh()


def _reconciling(exc: GraphUnavailable) -> bool:
    return isinstance(exc, GraphFenced) and exc.mark == RECONCILING


def _apply_once(step: Step) -> None:
    mark = run_on(topology.master_for(step.vshard), step)
    if mark.startswith(MOVING):
        run_on(mark.removeprefix(MOVING), step)


def run_on(instance: str, step: Step) -> str:
    """Run ``step``'s script on ``instance``; returns the vshard's fence mark (or '')."""
    keys = [fence_key(step.vshard), *step.keys]
    with translated(instance):
        return str(scripts.run(step.script, client(instance), keys, list(step.args)))

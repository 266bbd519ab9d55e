"""Queue actors of the smart feed: thin wrappers over :mod:`feed.smart.intake` and the pools.

Pool work runs on queue ``smartfeed`` (the pools cluster); the materialized feed is written on
the feed's per-cluster queues (``feed_primary``, ``feed_standby``), so a cluster that is down
only delays its own queue. Every actor takes IDs, is idempotent or harmless twice, and retries
with backoff like the feed's.

>>> fan_out_pin.send(pin_id)
>>> send_visit(chunk, shown)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dramatiq

from feed.queues import RETRIES, per_cluster
from feed.smart import generator, intake, materialized, pools
from feed.smart.schema import Shown, Source
from feed.store.pools import CLUSTERS, Cluster
from toolkit import acting
from toolkit.queue import send_all

QUEUE = "smartfeed"
MAINTENANCE = 10


def queues() -> list[str]:
    return [QUEUE]


def _trims(due: list[tuple[int, Source]]) -> None:
    send_all(trim_pool.message(user, source) for user, source in due)


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_fan_out_pin", **RETRIES)
def fan_out_pin(pin_id: int) -> None:
    """Plan a new pin's pool inserts: one message per source and chunk of receivers; for a
    repin, the repinner's affinity and related pins."""
    pin = intake.load_pin(pin_id)
    if pin is None:
        return
    send_all(_insert_messages(pin_id, intake.receivers(pin)))
    if pin.is_repin:
        _trims(intake.record_repin(pin_id))


def _insert_messages(pin_id: int, chunks: Iterator[tuple[Source, list[int]]],
                     ) -> Iterator[dramatiq.Message[Any]]:
    for source, users in chunks:
        yield insert_pin.message(pin_id, source, users)


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_insert_pin", **RETRIES)
def insert_pin(pin_id: int, source: Source, user_ids: list[int]) -> None:
    _trims(intake.insert_pin(pin_id, source, user_ids))


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_follow", **RETRIES)
def follow(follower_id: int, target_kind: str, target_id: int, action: str) -> None:
    _trims(intake.follow(follower_id, target_kind, target_id, action))


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_interest_follow", **RETRIES)
def interest_follow(follower_id: int, interest_id: int, action: str) -> None:
    _trims(intake.interest_follow(follower_id, interest_id, action))


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_trim_pool", priority=MAINTENANCE,
                **RETRIES)
def trim_pool(user_id: int, source: Source) -> None:
    pools.trim(user_id, source)


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_take", **RETRIES)
def take(user_id: int, keys: list[str], at_us: int, size: int,
         composition: dict[str, int]) -> None:
    """After a chunk was shown: remove what it took (and dropped) from the pools and record
    the delivered visit in the user's state (three calls: the state read, one batch, the
    counters)."""
    state = generator.delivered(pools.read_state(user_id), at_us, size, composition)
    pools.take(user_id, (bytes.fromhex(key) for key in keys), state)


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_keep_pulled", **RETRIES)
def keep_pulled(user_id: int, pin_ids: list[int], mark_us: int) -> None:
    """After a chunk was shown: the celebrity pins it pulled and did not use go into the
    ``following`` pool, and the user's pull mark moves on."""
    _trims(intake.keep_celebrities(user_id, pin_ids, mark_us))


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_missed", **RETRIES)
def missed(user_id: int, at_us: int) -> None:
    """A visit showed no chunk: the next one must be at least as large as the last."""
    pools.write_state(user_id, generator.missed(pools.read_state(user_id), at_us))


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_rebuild", priority=MAINTENANCE,
                **RETRIES)
def rebuild(user_id: int, actor: dict[str, str] | None = None) -> None:
    """``actor``: who queued the rebuild (:meth:`toolkit.acting.Actor.to_json`), its actor
    in the operator audit log."""
    with acting.carried(actor):
        intake.rebuild(user_id)


@dramatiq.actor(queue_name=QUEUE, actor_name="smartfeed_forget_user", priority=MAINTENANCE,
                **RETRIES)
def forget_user(user_id: int) -> None:
    pools.forget(user_id)


def _materialize(cluster: Cluster, user_id: int, entries: list[list[int]],
                 trimmed: list[list[int]] | None = None) -> None:
    """``trimmed``: the entries the visit found the chunk pushes out (None: the write reads
    the row for them)."""
    def shown(items: list[list[int]]) -> list[Shown]:
        return [Shown.from_message(item) for item in items]

    materialized.write(cluster, user_id, shown(entries),
                       None if trimmed is None else shown(trimmed))


def _forget_home(cluster: Cluster, user_id: int) -> None:
    materialized.forget(cluster, user_id)


materialize = per_cluster("smartfeed_materialize", _materialize)
forget_home = per_cluster("smartfeed_forget_home", _forget_home, MAINTENANCE)


def visit_messages(user_id: int, chunk: generator.Chunk, shown: list[Shown],
                   trimmed: list[Shown] | None = None) -> list[dramatiq.Message[Any]]:
    """What a shown chunk leaves to the queue: the materialized feed on each cluster (with
    the entries ``trimmed`` the chunk pushes out, when the visit read them), then the pool
    removals and the state, then the pulled pins it did not use."""
    entries = [item.as_message() for item in shown]
    trims = None if trimmed is None else [item.as_message() for item in trimmed]
    kept = ([] if chunk.pulled_mark_us is None else
            [keep_pulled.message(user_id, chunk.pulled_to_keep(), chunk.pulled_mark_us)])
    return [*(materialize[cluster].message(user_id, entries, trims) for cluster in CLUSTERS),
            take.message(user_id, [key.hex() for key in chunk.removals()], chunk.at_us,
                         chunk.size, chunk.composition()),
            *kept]


def forget_messages(user_id: int) -> list[dramatiq.Message[Any]]:
    return [forget_user.message(user_id),
            *(forget_home[cluster].message(user_id) for cluster in CLUSTERS)]

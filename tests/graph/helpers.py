"""Helpers for graph tests: fresh users and boards, users on chosen vshards, Redis snapshots."""

from __future__ import annotations

import contextlib
import io
import json
import uuid
from collections.abc import Iterator

from django.core.management import call_command
from django.core.management.base import CommandError

from benchmarks.shards import raw_connection
from graph import edgelog, keys, topology
from graph.keys import Value
from graph.store import admin
from graph.vshards import vshard_of
from pins.actions import create_board, create_pinner
from sharding.hosts import alias_for_shard
from sharding.ids import shard_of


def new_user() -> int:
    return create_pinner(f"g{uuid.uuid4().hex[:16]}", None).user_id


def new_board(owner: int, name: str = "Recipes") -> int:
    return create_board(owner, name).id


def user_on(instance: str, attempts: int = 200) -> int:
    """A new user whose vshard lives on ``instance`` (placement is random)."""
    for _ in range(attempts):
        user = new_user()
        if topology.master_for(vshard_of(user)) == instance:
            return user
    raise AssertionError(f"no new user landed on {instance}")


def snapshot(instance: str) -> dict[str, Value]:
    """Every graph data key of ``instance`` with its value (fences left out)."""
    names = sorted(name for name in admin.scan_keys(instance, keys.vshard_pattern())
                   if keys.parse(name) is not None)
    return admin.read_values(instance, names)


def masters() -> list[str]:
    return topology.current_map().masters()


def verify_all() -> dict[str, object]:
    """The report of ``graph verify --all --json``."""
    out = io.StringIO()
    with contextlib.suppress(CommandError):  # differences: the report says which
        call_command("graph", "verify", "--all", "--json", stdout=out)
    report: dict[str, object] = json.loads(out.getvalue())
    return report


class HeldLock:
    """Another writer's session holding a follower's graph lock (:func:`held_follower_lock`)."""

    def __init__(self, user: int) -> None:
        self.name = edgelog.lock_name(user)
        self.session = raw_connection(alias_for_shard(shard_of(user)))

    def take(self) -> None:
        with self.session.cursor() as c:
            c.execute("SELECT GET_LOCK(%s, 5)", [self.name])
            assert c.fetchone()[0] == 1

    def release(self) -> None:
        with self.session.cursor() as c:
            c.execute("DO RELEASE_LOCK(%s)", [self.name])

    def awaited(self) -> bool:
        """Whether a session of the same server is waiting in ``GET_LOCK`` for it."""
        with self.session.cursor() as c:
            c.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE %s",
                      [f"SELECT GET_LOCK('{self.name}'%"])
            return bool(c.fetchone()[0])


@contextlib.contextmanager
def held_follower_lock(user: int) -> Iterator[HeldLock]:
    """The user's graph lock held by another session until released (or the block ends)."""
    held = HeldLock(user)
    try:
        held.take()
        yield held
    finally:
        held.session.close()

"""``manage.py bench graph``: the graph's reads and writes beside raw redis-py on the same instance.

A graph of ``edges`` user follows is seeded straight into Redis (pipelined whole-key writes
through the store) on bench-only IDs: users on MySQL shards ``8192 + v`` that no shard map
opens, whose vshards ``v`` hold no real user, all homed on one master. Both sides of every
edge are written (``fwe`` and ``fre``), as a follow writes them. Those keys have no edge-log
rows, so they are deleted at the end (``--keep`` leaves them; ``graph verify`` then reports
them). Measured in one run, store and raw calls interleaved in rounds:

* point check ``is_following_user`` vs one raw ``ZSCORE``;
* 25-ID ``which_users_followed`` vs one raw ``ZMSCORE``;
* a 50-row ``followers_page`` vs one raw ``ZRANGE ... REV LIMIT 0 51``;
* ``follow_user`` writes per second (edge log + both Redis sides) between real bench pinners,
  beside two raw ``ZADD`` calls per follow;
* Redis bytes per edge: ``used_memory`` after seeding minus before, over ``edges``;
* concurrent follows from 4 and 16 clients (:mod:`benchmarks.graph_clients`): follows per second,
  p50/p99 and CPU per operation by process, beside the raw writes a follow is made of from the
  same clients.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from django.core.management.base import CommandParser

from benchmarks import graph_clients
from benchmarks.measure import Latency, rate, ratio, wait_until_quiet
from graph import actions, selectors, topology
from graph.keys import FOLLOWERS, FOLLOWING, Value, user_key, vshard_of_key, vshard_pattern
from graph.managers import Followers
from graph.store import admin
from graph.vshards import vshard_count, vshard_of_shard
from pins.actions import create_pinner
from pins.types import USER
from sharding.ids import compose
from sharding.topology import current_map as current_shard_map
from toolkit.commands import Bounded

FOLLOWS_PER_USER = 20
POPULAR_USERS = 100
POPULAR_SHARE = 0.1
BENCH_VSHARDS = 64
ROUNDS = 10

NAME = "graph"
HELP = "follower graph vs raw redis-py on the same instance"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--edges", type=int, action=Bounded, default=1_000_000)
    parser.add_argument("--samples", type=int, action=Bounded, default=10_000)
    parser.add_argument("--writes", type=int, action=Bounded, default=500)
    parser.add_argument("--keep", action="store_true", help="leave the seeded bench keys in Redis")
    parser.add_argument("--clients", type=int, nargs="+", action=Bounded, maximum=64,
                        default=[4, 16],
                        help="concurrent follow clients, one figure per count (default 4 16)")
    parser.add_argument("--processes", type=int, action=Bounded, default=1,
                        help="processes the concurrent clients (threads) are spread over "
                             "(default 1)")
    parser.add_argument("--per-client", type=int, action=Bounded, maximum=130, default=100,
                        help="follows per concurrent client (default 100, at most 130)")


def run(edges: int = 1_000_000, samples: int = 10_000, writes: int = 500, seed: int = 7,
        keep: bool = False, clients: Sequence[int] = (4, 16), processes: int = 1,
        per_client: int = 100, progress: Callable[[str], object] = lambda _: None,
        ) -> dict[str, Any]:
    """Seed, measure and clean up; returns the figures ``--json`` prints."""
    progress(f"follows from {', '.join(map(str, clients))} concurrent clients")
    concurrent = {f"clients_{count}": _concurrent(count, processes, per_client)
                  for count in clients}
    randomly = random.Random(seed)
    instance, vshards = _bench_home()
    graph = BenchGraph(vshards, edges, randomly)
    before = admin.used_memory(instance)
    seeded = time.perf_counter()
    admin.write_values(instance, graph.values())
    seconds = time.perf_counter() - seeded
    after = admin.used_memory(instance)
    raw = admin.raw_client(instance)
    try:
        return {
            "instance": instance, "edges": edges, "users": len(graph.users),
            "seed_seconds": round(seconds, 1),
            "bytes_per_edge": round((after - before) / edges, 1),
            "point_check": _point(graph, raw, samples, randomly),
            "batch_check_25": _batch(graph, raw, samples // 4, randomly),
            "follower_page_50": _page(graph, raw, samples // 10),
            "follow_writes": _writes(raw, writes, randomly, graph),
            "concurrent_follows": concurrent,
        }
    finally:
        if not keep:
            _drop(instance, vshards)


def _bench_home() -> tuple[str, list[int]]:
    """A master and vshards of it that no open MySQL shard maps to."""
    vshard_map = topology.current_map()
    instance = vshard_map.masters()[0]
    open_shards = set(current_shard_map().open_shards())
    used = {vshard_of_shard(shard) for shard in open_shards}
    free = [v for v in vshard_map.vshards_of(instance)
            if v not in used and v + vshard_count() not in open_shards]
    if len(free) < BENCH_VSHARDS:
        raise RuntimeError(f"{instance} has no {BENCH_VSHARDS} vshards free of real users")
    return instance, free[:BENCH_VSHARDS]


class BenchGraph:
    """Bench-only user IDs and a seeded follow graph among them (20 follows each, 10% of them
    to 100 popular users)."""

    def __init__(self, vshards: list[int], edges: int, randomly: random.Random) -> None:
        count = max(POPULAR_USERS + FOLLOWS_PER_USER + 1, edges // FOLLOWS_PER_USER)
        self.users = [compose(vshards[i % len(vshards)] + vshard_count(), USER.type_id,
                              i // len(vshards) + 1) for i in range(count)]
        self.popular = self.users[:POPULAR_USERS]
        self.following: dict[int, dict[int, int]] = defaultdict(dict)
        self.followers: dict[int, dict[int, int]] = defaultdict(dict)
        self._seed(edges, randomly)

    def _seed(self, edges: int, randomly: random.Random) -> None:
        start = time.time_ns() // 1000 - edges
        made = 0
        while made < edges:
            follower = self.users[made // FOLLOWS_PER_USER % len(self.users)]
            pool = self.popular if randomly.random() < POPULAR_SHARE else self.users
            target = randomly.choice(pool)
            if target == follower or target in self.following[follower]:
                continue
            self.following[follower][target] = self.followers[target][follower] = start + made
            made += 1

    def values(self) -> dict[str, Value]:
        found: dict[str, Value] = {user_key(u, FOLLOWING): dict(f)
                                   for u, f in self.following.items()}
        found.update({user_key(u, FOLLOWERS): dict(f) for u, f in self.followers.items()})
        return found


def _interleaved(store: Callable[[int], object], raw: Callable[[int], object],
                 samples: int) -> tuple[Latency, Latency]:
    """Both calls timed over ``samples`` arguments, alternating in rounds (noise hits both)."""
    timings: tuple[list[float], list[float]] = ([], [])
    per_round = max(1, samples // ROUNDS)
    for start in range(0, samples, per_round):
        for call, found in ((store, timings[0]), (raw, timings[1])):
            for index in range(start, min(samples, start + per_round)):
                began = time.perf_counter_ns()
                call(index)
                found.append((time.perf_counter_ns() - began) / 1000)
    return Latency.of(timings[0]), Latency.of(timings[1])


def _compared(name: str, store: Latency, raw: Latency, raw_name: str) -> dict[str, Any]:
    return {name: store.to_json(), raw_name: raw.to_json(),
            "p50_ratio": ratio(store.p50_us, raw.p50_us),
            "p99_ratio": ratio(store.p99_us, raw.p99_us)}


def _point(graph: BenchGraph, raw: Any, samples: int,
           randomly: random.Random) -> dict[str, Any]:
    followers = list(graph.following)
    pairs = []
    for index in range(samples):
        follower = randomly.choice(followers)
        followed = list(graph.following[follower])
        target = randomly.choice(followed) if index % 2 else randomly.choice(graph.users)
        pairs.append((follower, target, user_key(follower, FOLLOWING)))
    store, ceiling = _interleaved(
        lambda i: selectors.is_following_user(pairs[i][0], pairs[i][1]),
        lambda i: raw.zscore(pairs[i][2], pairs[i][1]), samples)
    return _compared("is_following_user", store, ceiling, "raw_zscore")


def _batch(graph: BenchGraph, raw: Any, samples: int,
           randomly: random.Random) -> dict[str, Any]:
    followers = list(graph.following)
    asks = []
    for _ in range(samples):
        follower = randomly.choice(followers)
        known = list(graph.following[follower])[:12]
        others = randomly.sample(graph.users, 25 - len(known))
        asks.append((follower, known + others, user_key(follower, FOLLOWING)))
    store, ceiling = _interleaved(
        lambda i: selectors.which_users_followed(asks[i][0], asks[i][1]),
        lambda i: raw.zmscore(asks[i][2], asks[i][1]), samples)
    return _compared("which_users_followed", store, ceiling, "raw_zmscore")


def _page(graph: BenchGraph, raw: Any, samples: int) -> dict[str, Any]:
    stars = graph.popular
    store, ceiling = _interleaved(
        lambda i: selectors.followers_page(stars[i % len(stars)], limit=50),
        lambda i: raw.zrange(user_key(stars[i % len(stars)], FOLLOWERS), "+inf", "-inf",
                             desc=True, byscore=True, offset=0, num=51, withscores=True),
        samples)
    sizes = [len(graph.followers[star]) for star in stars]
    manager, selector = _interleaved(  # the bench's users are Redis keys only: no profiles
        lambda i: Followers(stars[i % len(stars)]).page(limit=50),
        lambda i: selectors.followers_page(stars[i % len(stars)], limit=50), samples)
    return {"followers_per_user": min(sizes), **_compared("followers_page", store, ceiling,
                                                          "raw_zrange"),
            "pinner_followers_page": manager.to_json(),
            "manager_vs_selector_p50_ratio": ratio(manager.p50_us, selector.p50_us)}


def _writes(raw: Any, count: int, randomly: random.Random, graph: BenchGraph) -> dict[str, Any]:
    pinners = [create_pinner(f"bench{uuid.uuid4().hex[:12]}", None).user_id for _ in range(30)]
    pairs = [(a, b) for a in pinners for b in pinners if a != b]
    randomly.shuffle(pairs)
    pairs = pairs[:count]
    follows = rate(lambda i: actions.follow_user(*pairs[i]), len(pairs))
    unfollows = rate(lambda i: actions.unfollow_user(*pairs[i]), len(pairs))
    target = graph.users[0]
    ceiling = rate(lambda i: (raw.zadd(user_key(graph.users[i + 1], FOLLOWING), {target: i}),
                              raw.zadd(user_key(target, FOLLOWERS), {graph.users[i + 1]: i})),
                   len(pairs))
    return {"follows": len(pairs), "follow_per_s": round(follows),
            "unfollow_per_s": round(unfollows), "raw_two_zadds_per_s": round(ceiling),
            "ratio": ratio(follows, ceiling)}


def _concurrent(clients: int, processes: int, per_client: int) -> dict[str, Any]:
    """Follows from ``clients`` clients at once (:mod:`benchmarks.graph_clients`), each with its own
    ring of bench pinners, beside the raw writes from the same clients."""
    ring = 12  # 12 pinners: 132 distinct follows per client
    pinners = [[create_pinner(f"bench{uuid.uuid4().hex[:12]}", None).user_id
                for _ in range(ring)] for _ in range(clients)]

    def pairs_of(client: int) -> list[tuple[int, int]]:
        own = pinners[client]
        return [(a, b) for a in own for b in own if a != b]

    wait_until_quiet()
    try:
        return graph_clients.measure(clients, min(processes, clients), per_client, pairs_of)
    finally:
        graph_clients.drop_ceiling(pinners)


def _drop(instance: str, vshards: list[int]) -> None:
    """Delete every key of the bench vshards (one scan of the instance)."""
    wanted = set(vshards)
    names = [name for name in admin.scan_keys(instance, vshard_pattern())
             if vshard_of_key(name) in wanted]
    admin.delete_keys(instance, names)

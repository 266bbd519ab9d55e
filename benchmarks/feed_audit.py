"""``manage.py bench audit``: the feed auditor's cost per audited pinner beside the raw reads
it needs, in the same run.

Set-up (not timed): ``owners`` pinners with ``boards`` boards of ``pins`` pins each (pin
objects and board lists written straight to the stores), and ``readers`` pinners following
``follows`` owners each through the real follow action, whose feed backfills a queue worker
of the bench's own applies. Every reader's feed is then audited once and must be clean.

Timed, alternating one call of each per sample:

* ``audit_one``: :func:`feed.audit.audit_users` of one reader (the fanout window given, as
  ``feed audit --window`` does): the edge log, the owners' board lists, the boards' newest
  pins, the events journal, the feed row on both clusters, and the comparison;
* ``raw_one``: the same reads with raw SQL on the same cursors and raw happybase ``rows()``,
  and nothing else: 3 edge-log queries on the reader's shard, one board-list query and one
  board-pins ``UNION ALL`` per host, 2 journal queries per shard master, one row read per
  cluster;
* ``round``: a scheduled round's work (:func:`feed.audit.audit_users` of ``AUDIT_SAMPLE``
  readers, the window computed from the fanout lag), per pinner.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

from django.core.management.base import CommandParser

from benchmarks.feed import drain_feed_queues, feed_workers
from benchmarks.feed_scratch import bench_pin
from benchmarks.measure import latency, ratio, wait_until_quiet
from feed import audit, trim
from feed.conf import feed_settings
from feed.schema import FEED, META, row_key
from feed.store.pools import CLUSTERS, table
from graph.actions import follow_user
from graph.events import FOLLOW_CHANGED
from graph.tables import EDGE_LOG
from pins.actions import create_board, create_pinner
from pins.events import PIN_DELETED
from pins.types import BOARD_HAS_PINS, USER_HAS_BOARDS
from sharding import mappings, outbox
from sharding.hosts import cursor
from sharding.mappings import MAX_PAGE
from sharding.topology import current_map
from toolkit.clock import now_us
from toolkit.commands import Bounded

NAME = "audit"
HELP = "the feed auditor's cost per audited pinner beside the raw reads it needs"
SPACING_US = 1000


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--readers", type=int, action=Bounded, default=40, maximum=2000,
                        help="pinners audited (default 40)")
    parser.add_argument("--owners", type=int, action=Bounded, default=12, maximum=500,
                        help="pinners followed (default 12)")
    parser.add_argument("--boards", type=int, action=Bounded, default=2, maximum=20,
                        help="boards per owner (default 2)")
    parser.add_argument("--pins", type=int, action=Bounded, default=60, maximum=2000,
                        help="pins per board (default 60)")
    parser.add_argument("--follows", type=int, action=Bounded, default=3, maximum=50,
                        help="owners each reader follows (default 3)")
    parser.add_argument("--samples", type=int, action=Bounded, default=200, maximum=5000,
                        help="timed audits of one pinner, and as many raw reads (default 200)")


def run(readers: int = 40, owners: int = 12, boards: int = 2, pins: int = 60,
        follows: int = 3, samples: int = 200,
        progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    follows = min(follows, owners)
    progress(f"creating {owners} owners with {boards} boards of {pins} pins")
    owner_ids = [_owner(boards, pins) for _ in range(owners)]
    progress(f"creating {readers} readers following {follows} owners each")
    with feed_workers(1, 2):
        reader_ids = [_reader(random.Random(index).sample(owner_ids, follows))
                      for index in range(readers)]
        drain_feed_queues()
    checked = audit.audit_users(reader_ids, window=0)
    figures: dict[str, Any] = {
        "readers": readers, "follows": follows, "boards_followed": follows * boards,
        "pins_per_board": pins, "expected_entries": min(follows * boards * pins, trim.keep()),
        "cap": feed_settings.number("CAP"), "clusters": len(CLUSTERS),
        "set_up_audit": {"recall": checked.recall(), "precision": checked.precision(),
                         "findings": len(checked.findings)}}
    progress("timing one pinner's audit beside its raw reads")
    figures["waited_for_quiet_seconds"] = round(wait_until_quiet(), 1)
    one = latency(lambda i: audit.audit_users([reader_ids[i % readers]], window=0), samples)
    raw = latency(lambda i: raw_reads(reader_ids[i % readers]), samples)
    size = feed_settings.number("AUDIT_SAMPLE")
    rounds = max(5, samples // size)
    progress(f"timing {rounds} rounds of {size} pinners")
    whole = latency(lambda i: audit.audit_users(
        [reader_ids[(i * size + k) % readers] for k in range(size)]), rounds)
    figures.update({
        "audit_one": one.to_json(), "raw_one": raw.to_json(),
        "audit_vs_raw_p50_ratio": ratio(one.p50_us, raw.p50_us),
        "round": {"pinners": size, **whole.to_json(),
                  "p50_us_per_pinner": round(whole.p50_us / size)},
        "round_per_pinner_vs_raw_p50_ratio": ratio(whole.p50_us / size, raw.p50_us)})
    return figures


def _owner(boards: int, pins: int) -> int:
    owner = create_pinner(f"benchowner{uuid.uuid4().hex[:12]}", None).user_id
    now = now_us()
    for number in range(boards):
        board = create_board(owner, f"Audit bench {number}").id
        created = [now - SPACING_US * (index + number * pins) for index in range(pins)]
        edges = [(board, bench_pin(board, owner, at, index), at)
                 for index, at in enumerate(created)]
        mappings.add_many(BOARD_HAS_PINS, edges)
    return owner


def _reader(owners: list[int]) -> int:
    reader = create_pinner(f"benchreader{uuid.uuid4().hex[:12]}", None).user_id
    for owner in owners:
        follow_user(reader, owner)
    return reader


def raw_reads(reader: int) -> None:
    """What one pinner's audit reads, with raw SQL and raw happybase."""
    followed = [_rows(table, [reader], "SELECT to_id FROM {name} WHERE from_id = %s")
                for table in EDGE_LOG]
    owners = followed[0]
    board_ids = _heads(USER_HAS_BOARDS, owners, MAX_PAGE) if owners else []
    if board_ids:
        _heads(BOARD_HAS_PINS, board_ids, trim.keep() + 1)
    since = now_us()
    for alias in current_map().masters():
        with cursor(alias) as c:
            for name in (FOLLOW_CHANGED, PIN_DELETED):
                c.execute(f"SELECT id, payload FROM {outbox.TABLE} WHERE name = %s "
                          "AND created_us >= %s ORDER BY created_us, id LIMIT 1000",
                          [name, since])
                c.fetchall()
    for cluster in CLUSTERS:
        with table(cluster) as hbase:
            hbase.rows([row_key(reader)], columns=[FEED, META])


def _rows(mapping: Any, from_ids: list[int], sql: str) -> list[int]:
    found: list[int] = []
    for alias, lists in mappings.by_host(mapping, from_ids).items():
        with cursor(alias) as c:
            for from_id, name in lists:
                c.execute(sql.format(name=name), [from_id])
                found.extend(int(row[0]) for row in c.fetchall())
    return found


def _heads(mapping: Any, from_ids: list[int], limit: int) -> list[int]:
    found: list[int] = []
    for alias, lists in mappings.by_host(mapping, from_ids).items():
        sql, params = mappings.heads_sql(lists, limit, None)
        with cursor(alias) as c:
            c.execute(sql, params)
            found.extend(int(row[1]) for row in c.fetchall())
    return found

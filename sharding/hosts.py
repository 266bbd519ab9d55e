"""Shard hosts: which Django alias serves a shard, schema names, cursors and transactions.

Every logical shard is a schema ``db%05d`` on its physical master; sharded SQL names it
(``db03429.pins``), so one connection per host (per thread) serves all of that host's shards.
Every shard host is a Django database alias: the configured ones from the start, and a host
registered later (:mod:`coordination.registry`) from the moment this process first needs it.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connections, transaction

from coordination import registry
from sharding.conf import sharding_settings
from sharding.exceptions import ShardingError, ShardMapError, ShardMapUnavailable, ShardUnavailable
from sharding.mysql.base import DatabaseWrapper
from sharding.mysql.pipeline import Answer as Answer  # what send_for_answer gives
from sharding.mysql.pipeline import Check
from sharding.shardmap import ShardMap, ShardRange
from sharding.topology import current_map
from toolkit.waiting import until


def schema_name(shard: int) -> str:
    """The MySQL database of a logical shard: ``db%05d``."""
    return f"db{shard:05d}"


def alias_for_shard(shard: int, shard_map: ShardMap | None = None) -> str:
    """The Django alias of the master that serves ``shard`` now (in ``shard_map``). A shard
    whose range is fenced (moving to another host) is waited for, up to ``FENCE_WAIT_SECONDS``,
    then it is served by whichever host the map names.

    Inside this thread's transaction on a host (:func:`atomic`), a shard that host served when
    the transaction first used it keeps that host until the transaction ends, whatever the map
    says meanwhile: its statements join the transaction, and the commit checks that the host
    still serves it."""
    pins = dict(_open_pins()) if shard_map is None and _open.aliases else None
    if pins:
        for alias, shards in pins.items():
            if shard in shards:
                return alias
    found = (shard_map or current_map()).range_for(shard)
    if found.fenced:
        found = _after_fence(shard)
    alias = require_alias(found.master)
    if pins and alias in pins:
        pins[alias].add(shard)
    return alias


def _after_fence(shard: int) -> ShardRange:
    if not until(lambda: not current_map().range_for(shard).fenced,
                 sharding_settings.decimal("FENCE_WAIT_SECONDS"), every=0.01):
        raise ShardUnavailable(f"shard {shard} is fenced while it moves to another host; "
                               "retry it")
    return current_map().range_for(shard)


_aliases_lock = threading.Lock()
_registered_here: set[str] = set()


def configured_hosts() -> dict[str, tuple[str, int]]:
    """The shard hosts of the configuration (``PINSITE_SHARD_HOSTS``), which seed the
    registry."""
    return {alias: (str(entry["HOST"]), int(entry["PORT"]))
            for alias, entry in settings.DATABASES.items()
            if alias != "default" and alias not in _registered_here}


def require_alias(name: str) -> str:
    """``name`` as a Django alias: a configured shard host, or a registered one (made an
    alias now, beside the others, if this process has not met it before)."""
    if name in settings.DATABASES:
        return name
    address = registry.lookup("mysql", name)
    if address is None:
        raise ShardMapError(f"shard host {name} is neither configured (PINSITE_SHARD_HOSTS) nor "
                            "registered (manage.py shards hosts add)")
    with _aliases_lock:
        if name not in settings.DATABASES:
            add_alias(name, address)
            _registered_here.add(name)
    return name


def add_alias(name: str, address: tuple[str, int]) -> None:
    """Make ``name`` a Django alias for the shard host at ``address``, with the settings of
    the configured shard hosts."""
    model = next((a for a in settings.DATABASES if a != "default"), "default")
    entry = {**copy.deepcopy(connections.settings[model]), "HOST": address[0],
             "PORT": str(address[1]), "NAME": "", "TEST": {"MIGRATE": False}}
    connections.settings[name] = entry
    settings.DATABASES[name] = entry


@contextmanager
def cursor(alias: str, shard: int | None = None) -> Iterator[Any]:
    """A cursor on ``alias``; driver errors become :mod:`sharding.exceptions` errors. Outside
    a transaction, a statement during which ``alias`` stopped being a master, or stopped
    serving ``shard`` (when given), raises too (see :func:`_still_serving`)."""
    connection = connections[require_alias(alias)]
    checked = not connection.in_atomic_block
    before = _map_or_none() if checked and shard is None else None
    with _driver_errors(alias), connection.cursor() as raw_cursor:
        yield raw_cursor
    if checked and shard is not None:
        _require_serving(alias, shard)
    elif before is not None:
        _still_serving(alias, before)


def send_unanswered(alias: str, sql: str, check: Check | None = None) -> None:
    """Send ``sql`` on ``alias`` without waiting for its answer: the connection's next
    statement (sent first), commit, rollback or check reads it, gives it to ``check``, and
    raises its error (see :mod:`sharding.mysql.pipeline`)."""
    with _driver_errors(alias):
        _shard_host(alias).send_unanswered(sql, check)


def send_for_answer(alias: str, sql: str, params: Sequence[Any] = (),
                    after: Answer | None = None) -> Answer:
    """Send ``sql`` (``params`` quoted into it) on ``alias`` as :func:`send_unanswered` does,
    inside this thread's transaction there, and return the :class:`Answer` that holds its
    rows and changed-row count once the connection's next statement, or the commit, has read
    it: a statement whose answer the transaction needs later costs no wait of its own. With
    ``after``, it must be sent right after the statement of that answer (it reads
    ``ROW_COUNT()``)."""
    host = _shard_host(alias)
    if not host.in_atomic_block:
        raise RuntimeError(f"a statement sent for a later answer needs a transaction on {alias}")
    answer = Answer()
    with _driver_errors(alias):
        host.send_unanswered(sql, answer, params, after)
    return answer


def read_answers(alias: str) -> None:
    """Wait for the answers of what was sent unanswered on ``alias`` (each to its check);
    raise the first error among them."""
    with _driver_errors(alias):
        _shard_host(alias).read_answers()


def quoted(alias: str, texts: Iterable[str]) -> list[str]:
    """``texts`` as SQL string literals for ``alias``'s connection: statements sent
    unanswered take no parameters."""
    connection = _shard_host(alias)
    with _driver_errors(alias):
        connection.ensure_connection()
    literal = connection.connection.string_literal
    return [literal(text.encode()).decode() for text in texts]


def _shard_host(alias: str) -> DatabaseWrapper:
    connection = connections[require_alias(alias)]
    assert isinstance(connection, DatabaseWrapper), f"{alias} is not a shard host"
    return connection


@contextmanager
def _driver_errors(alias: str) -> Iterator[None]:
    """Driver errors on ``alias`` raised as :mod:`sharding.exceptions` errors (a connection
    that failed is dropped, so the next use reconnects)."""
    try:
        yield
    except IntegrityError as exc:
        raise ShardingError(f"{alias}: {exc}") from exc
    except DatabaseError as exc:
        _discard_broken(alias)
        raise ShardUnavailable(f"shard host {alias} failed: {exc}") from exc


def _discard_broken(alias: str) -> None:
    """Drop a connection that failed, so the next use reconnects (e.g. after a restart)."""
    connection = connections[alias]
    if connection.in_atomic_block:
        connection.needs_rollback = True
        return
    with suppress(DatabaseError):
        connection.close()


_PINNED = "_pinsite_pinned_shards"


class _OpenPins(threading.local):
    """The aliases where this thread may have a transaction :func:`atomic` opened (entries
    of transactions that ended are harmless: the atomic block is the truth). Empty outside
    transactions, so the router's lookups cost nothing more then."""

    def __init__(self) -> None:
        self.aliases: set[str] = set()


_open = _OpenPins()


def _pinned_shards(alias: str) -> set[int] | None:
    """The shards pinned to ``alias`` by this thread's transaction there that :func:`atomic`
    opened, or None if there is none. They are kept on the outermost atomic block, which
    Django drops before the commit callbacks run: the set lives as long as the transaction."""
    blocks = connections[alias].atomic_blocks
    return getattr(blocks[0], _PINNED, None) if blocks else None


def _open_pins() -> Iterator[tuple[str, set[int]]]:
    """``(alias, pinned shards)`` of each of this thread's transactions :func:`atomic` opened."""
    for alias in tuple(_open.aliases):
        shards = _pinned_shards(alias)
        if shards is not None:
            yield alias, shards


def _pin_transaction(alias: str, shard: int) -> set[int] | None:
    """Pin ``shard`` to this thread's transaction on ``alias``, just entered. Returns the
    pinned shards when this block opened the pinning (it checks them), None when it runs
    inside a transaction that pins already (``shard`` was pinned by :func:`alias_for_shard`)."""
    block = connections[alias].atomic_blocks[0]
    if getattr(block, _PINNED, None) is not None:
        return None
    shards = {shard}
    setattr(block, _PINNED, shards)
    _open.aliases.add(alias)
    return shards


@contextmanager
def atomic(shard: int) -> Iterator[str]:
    """A transaction on the master of ``shard``; yields its alias.

    Every use of ``shard`` (and of any other shard first used on this host) inside the block
    goes to that alias, even if the shard map moves the shard meanwhile: nothing of the
    transaction reaches another host. If the host no longer serves one of those shards when
    the block ends (a promotion, a move), the transaction rolls back and
    :class:`ShardUnavailable` is raised; if that happens while the commit is under way, the
    commit is not acknowledged (see :func:`_still_serving`).

    >>> with atomic(shard) as alias:
    ...     objects.create(PIN, shard, data)   # on alias
    """
    alias = alias_for_shard(shard)
    served: set[int] | None = None
    try:
        with transaction.atomic(using=alias):
            served = _pin_transaction(alias, shard)
            yield alias
            if served is not None:
                _require_serving_all(alias, served)  # before the commit: raising rolls back
    except DatabaseError as exc:
        _discard_broken(alias)
        raise ShardUnavailable(f"shard host {alias} failed: {exc}") from exc
    finally:
        if served is not None:
            _open.aliases.discard(alias)
    if served is not None and not in_transaction(alias):  # it committed
        _require_serving_all(alias, served)


def by_host(shards: Iterable[int]) -> dict[str, list[int]]:
    """``shards`` grouped by the alias of the master serving each now (in first-seen order):
    the groups :func:`atomic_on_host` writes in one transaction each."""
    hosts: dict[str, list[int]] = {}
    for shard in dict.fromkeys(shards):
        hosts.setdefault(alias_for_shard(shard), []).append(shard)
    return hosts


@contextmanager
def atomic_on_host(shards: list[int]) -> Iterator[str]:
    """One transaction on the master of every shard of ``shards`` (a group of
    :func:`by_host`), all pinned to it as :func:`atomic` pins one: a bulk write of many shards
    commits once. If one of them is served by another host by the time the block starts (a
    promotion, a move), :class:`ShardUnavailable` is raised before anything is written."""
    with atomic(shards[0]) as alias:
        for shard in shards[1:]:
            if alias_for_shard(shard) != alias:
                raise ShardUnavailable(f"shard {shard} is no longer served by {alias} with "
                                       f"shard {shards[0]}: retry the write")
        yield alias


def transaction_alias(shard: int) -> str | None:
    """The alias of this thread's open transaction that ``shard``'s writes belong to (the
    host :func:`atomic` pinned it to), or ``None`` outside any transaction. Raises
    :class:`ShardUnavailable` when this thread's transactions are all on other hosts than the
    one serving ``shard`` now: it moved there before the transaction first used it."""
    alias = alias_for_shard(shard)
    if in_transaction(alias):
        return alias
    if any(_open_pins()):
        raise ShardUnavailable(f"shard {shard} is served by {alias} now, outside this write's "
                               "transaction (it moved to another host): the write is not "
                               "acknowledged; retry it")
    return None


def _require_serving_all(alias: str, shards: set[int]) -> None:
    for shard in sorted(shards):
        _require_serving(alias, shard)


def _serves(shard_map: ShardMap, alias: str, shard: int) -> bool:
    found = shard_map.range_for(shard)
    return found.master == alias and not found.fenced


def _still_serving(alias: str, before: ShardMap) -> None:
    """Raise if the shard map changed during a write so that ``alias`` is no longer a master.

    A master that a promotion replaced while it was unreachable (stopped, cut off) may still
    finish the statements it had received once it comes back, and answer them after its
    semi-synchronous wait times out. Those rows are on the deposed master only, so the write
    must not be acknowledged: the caller gets :class:`ShardUnavailable` instead."""
    now = _map_or_none()
    if now is None or now is before or alias in now.masters() or alias not in before.masters():
        return
    raise _stopped_serving(alias)


def _require_serving(alias: str, shard: int) -> None:
    """Raise unless the shard map now lets ``alias`` serve ``shard``, for a write sent to it
    as that shard's master: as :func:`_still_serving`, and the same for a shard whose range
    was fenced for a move meanwhile (its host may already be past the point the new host
    copied up to), whenever the map changed."""
    now = _map_or_none()
    if now is not None and not _serves(now, alias, shard):
        raise _stopped_serving(alias)


def _stopped_serving(alias: str) -> ShardUnavailable:
    return ShardUnavailable(f"shard host {alias} stopped serving this write's shards while it "
                            "ran (a promotion or a move): the write is not acknowledged; retry "
                            "it")


def _map_or_none() -> ShardMap | None:
    try:
        return current_map()
    except ShardMapUnavailable:
        return None


def in_transaction(alias: str) -> bool:
    """Whether this thread has a transaction open on ``alias``: what it reads there may be
    uncommitted, or older than the newest commit, so it must not fill a cache."""
    return bool(connections[require_alias(alias)].in_atomic_block)


def after_commit(alias: str, callback: Any) -> None:
    """Run ``callback`` once the current transaction on ``alias`` commits (now if none)."""
    transaction.on_commit(callback, using=alias)

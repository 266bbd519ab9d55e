"""Object and list caches, in separate django-redis pools, with versioned keys.

Objects are cached by ID (``o:<id>``) in the ``objects`` pool; the newest entries of a mapping
list (``l:<table>:<from_id>``) and its count (``n:<table>:<from_id>``) in the ``lists`` pool.
Writers invalidate after commit; readers fill on a miss (cache-aside). The key format version
is ``CACHE_VERSION``: bump it when an encoding changes and old entries are simply never read.

A fill cannot bring back what a writer invalidated. A reader that misses may have read the
shard before a writer's commit and fill after the writer's invalidation, which would leave the
old value cached until it expires. So an invalidation also bumps the key's *stamp* (``<key>|s``,
kept ``STAMP_SECONDS``), a read that misses takes the stamps with the values in the same round
trip, and a fill stores a value only where the stamp is still the one read (one script, so the
check and the store are atomic). A fill later than ``STAMP_SECONDS / 2`` after its read stores
nothing, so an expired stamp is never mistaken for an unchanged one. This is what memcache
leases do for the same race.

The cache is optional: when its Redis fails, reads miss and fills are skipped (logged), the way
``IGNORE_EXCEPTIONS`` treats django-redis' own calls. A failed invalidation is kept and sent
again before the process's next read of that cache, so an edit made while the cache failed is
not hidden by an older copy once it answers again (:class:`Pool`).

The module also knows what the django-redis driver does at the end of a request
(:func:`closes_nothing`), which the site's request signals ask.
"""

from __future__ import annotations

import logging
import pickle
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.utils.module_loading import import_string
from django_redis.client import DefaultClient
from django_redis.compressors.identity import IdentityCompressor
from django_redis.serializers.pickle import PickleSerializer
from redis import Redis
from redis.commands.core import Script
from redis.exceptions import RedisError

from sharding.conf import sharding_settings

log = logging.getLogger("pinsite.cache")

STAMP_SECONDS = 120
"""How long an invalidation's stamp outlives it; a fill must follow its read within half."""

FAILURES = (RedisError, OSError)

MAX_PENDING = 100_000
"""Failed invalidations a process keeps to send again; past this, it clears the pool."""

_FILL = """
local ttl = ARGV[1]
for i = 1, #KEYS, 2 do
    local now = redis.call('GET', KEYS[i + 1]) or ''
    if now == ARGV[i + 1] then
        if ttl == '0' then
            redis.call('SET', KEYS[i], ARGV[i + 2])
        else
            redis.call('SET', KEYS[i], ARGV[i + 2], 'PX', ttl)
        end
    end
end
"""

_FORGET = """
for i = 1, #KEYS, 2 do
    redis.call('DEL', KEYS[i])
    redis.call('INCR', KEYS[i + 1])
    redis.call('PEXPIRE', KEYS[i + 1], ARGV[1])
end
"""

_scripts: dict[str, Script] = {}

_PICKLED = b"\x80"
"""How a pickle of protocol 2 or later starts (its ``PROTO`` opcode); never an integer's
digits, which django-redis stores unpickled."""


def _version() -> int:
    return sharding_settings.number("CACHE_VERSION")


def _stamp_key(key: str) -> str:
    return f"{key}|s"


def _script(connection: Redis, source: str) -> Script:
    if source not in _scripts:
        _scripts[source] = connection.register_script(source)
    return _scripts[source]


@dataclass
class Misses:
    """The keys a read did not find, with the stamps they had then: what :meth:`fill` may
    store."""

    pool: str
    read_at: float
    stamps: dict[str, tuple[str, str]] = field(default_factory=dict)
    """name → (Redis key, stamp at the read, ``""`` for none)."""

    def fill(self, values: dict[str, Any]) -> None:
        """Store ``values`` (by name) for the keys still unchanged since the read."""
        wanted = [(self.stamps[name], value) for name, value in values.items()
                  if name in self.stamps]
        if not wanted or time.monotonic() - self.read_at > STAMP_SECONDS / 2:
            return
        backend = caches[self.pool]
        client = backend.client  # type: ignore[attr-defined]
        keys: list[str] = []
        timeout = backend.default_timeout  # None: no expiry
        args: list[Any] = [0 if timeout is None else max(1, int(timeout * 1000))]
        for (key, stamp), value in wanted:
            keys += [key, _stamp_key(key)]
            args += [stamp, client.encode(value)]
        try:
            connection = client.get_client(write=True)
            _script(connection, _FILL)(keys=keys, args=args, client=connection)
        except FAILURES as exc:
            log.warning("cache %s: fill skipped: %s", self.pool, exc)


class Pool:
    """One django-redis cache used with stamped fills and invalidations. An invalidation the
    cache failed is kept and sent again before this process's next read or invalidation of
    the pool; past ``MAX_PENDING`` of them the whole pool is cleared instead."""

    def __init__(self, setting: str) -> None:
        self.setting = setting
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        """Redis keys whose invalidation failed."""
        self._overflowed = False

    @property
    def alias(self) -> str:
        return str(getattr(sharding_settings, self.setting))

    def _keys(self, backend: BaseCache, names: list[str]) -> list[str]:
        version = _version()
        return [backend.make_key(name, version=version) for name in names]

    def read(self, names: Iterable[str]) -> tuple[dict[str, Any], Misses]:
        """The cached values among ``names``, and the misses to fill (one round trip)."""
        wanted = list(dict.fromkeys(names))
        misses = Misses(self.alias, time.monotonic())
        if not wanted:
            return {}, misses
        backend = caches[self.alias]
        client = backend.client  # type: ignore[attr-defined]
        keys = self._keys(backend, wanted)
        if not self._caught_up(backend):
            return {}, misses
        try:  # one MGET: the values, then their stamps
            both = client.get_client(write=True).mget([*keys, *map(_stamp_key, keys)])
        except FAILURES as exc:
            log.warning("cache %s: read missed: %s", self.alias, exc)
            return {}, misses
        found: dict[str, Any] = {}
        values, stamps = both[:len(keys)], both[len(keys):]
        plain = _pickles_plainly(client)
        for name, key, value, stamp in zip(wanted, keys, values, stamps, strict=True):
            if value is None:
                misses.stamps[name] = (key, "" if stamp is None else stamp.decode())
            elif plain and value[:1] == _PICKLED:
                found[name] = pickle.loads(value)
            else:
                found[name] = client.decode(value)
        return found, misses

    def forget(self, names: Iterable[str]) -> None:
        """Drop the keys and bump their stamps, so no fill read before this stores; kept to
        send again if the cache fails."""
        backend = caches[self.alias]
        keys = self._keys(backend, list(names))
        if keys and not (self._caught_up(backend) and self._send(backend, keys)):
            self._keep(keys)

    def _send(self, backend: BaseCache, keys: list[str]) -> bool:
        pairs = [name for key in keys for name in (key, _stamp_key(key))]
        try:
            connection = backend.client.get_client(write=True)  # type: ignore[attr-defined]
            _script(connection, _FORGET)(keys=pairs, args=[STAMP_SECONDS * 1000],
                                         client=connection)
        except FAILURES as exc:
            log.warning("cache %s: invalidation failed, kept to send again: %s", self.alias, exc)
            return False
        return True

    def _keep(self, keys: list[str]) -> None:
        with self._lock:
            if self._overflowed:
                return
            self._pending.update(keys)
            if len(self._pending) > MAX_PENDING:
                self._overflowed = True
                self._pending.clear()
                log.warning("cache %s: over %d invalidations failed; the whole cache is cleared "
                            "when it answers again", self.alias, MAX_PENDING)

    def _caught_up(self, backend: BaseCache) -> bool:
        """Send the invalidations that failed earlier (or clear the pool, past
        ``MAX_PENDING``); False while the cache still fails."""
        if not self._pending and not self._overflowed:
            return True
        with self._lock:
            keys, overflowed = list(self._pending), self._overflowed
        if overflowed:
            try:
                backend.client.get_client(write=True).flushdb()  # type: ignore[attr-defined]
            except FAILURES:
                return False
        elif not self._send(backend, keys):
            return False
        with self._lock:
            self._overflowed = False
            self._pending.difference_update(keys)
        log.warning("cache %s: %s", self.alias, "cleared after the invalidations it failed"
                    if overflowed else f"{len(keys)} failed invalidations sent again")
        return True


def _pickles_plainly(client: Any) -> bool:
    """Whether a django-redis client stores values pickled and uncompressed (its defaults):
    then a pickled value is read by ``pickle.loads`` alone. ``client.decode`` first tries
    the value as an integer and then decompresses it, which took 8.6 µs of CPU a pin's
    object against 2.3 µs for the ``loads`` (BENCHMARKS.md, "Cached objects decoded")."""
    return (type(client._compressor) is IdentityCompressor
            and type(client._serializer) is PickleSerializer)


# Backends whose close() does nothing: Django's local-memory and dummy caches.
_CLOSE_NOTHING = ("django.core.cache.backends.locmem.LocMemCache",
                  "django.core.cache.backends.dummy.DummyCache")


def closes_nothing(config: dict[str, Any]) -> bool:
    """Whether a cache configured by ``config`` (an entry of ``CACHES``) closes no connection
    when a request ends: a django-redis cache keeps its pool unless told to close it
    (``CLOSE_CONNECTION``) or given a client class whose ``close`` does more, and the
    local-memory and dummy caches hold none (:mod:`pinsite.serving.request_signals`)."""
    backend = str(config.get("BACKEND", ""))
    if backend in _CLOSE_NOTHING:
        return True
    if backend != "django_redis.cache.RedisCache":
        return False
    options = config.get("OPTIONS", {})
    client = import_string(str(options.get("CLIENT_CLASS", "django_redis.client.DefaultClient")))
    return (getattr(client, "close", None) is DefaultClient.close
            and not options.get("CLOSE_CONNECTION",
                                getattr(settings, "DJANGO_REDIS_CLOSE_CONNECTION", False)))


objects_pool = Pool("OBJECT_CACHE")
lists_pool = Pool("LIST_CACHE")


def object_key(object_id: int) -> str:
    return f"o:{object_id}"


def get_objects(ids: Iterable[int]) -> tuple[dict[int, dict[str, Any]], Misses]:
    """Cached objects among ``ids`` (misses are absent), and the misses to fill."""
    names = {object_key(object_id): object_id for object_id in ids}
    found, misses = objects_pool.read(names)
    return {names[name]: value for name, value in found.items()}, misses


def put_objects(misses: Misses, objects: dict[int, dict[str, Any]]) -> None:
    misses.fill({object_key(object_id): data for object_id, data in objects.items()})


def forget_object(object_id: int) -> None:
    objects_pool.forget([object_key(object_id)])


def list_key(table: str, from_id: int) -> str:
    return f"l:{table}:{from_id}"


def count_key(table: str, from_id: int) -> str:
    return f"n:{table}:{from_id}"


ListHead = list[tuple[int, int]]


def get_list_heads(table: str, from_ids: Iterable[int]) -> tuple[dict[int, ListHead], Misses]:
    """The cached newest ``(to_id, sequence)`` entries of several lists (one round trip);
    lists not cached are absent, and are the misses to fill."""
    names = {list_key(table, from_id): from_id for from_id in from_ids}
    found, misses = lists_pool.read(names)
    return ({names[name]: [tuple(entry) for entry in value]  # type: ignore[misc]
             for name, value in found.items()}, misses)


def put_list_heads(misses: Misses, table: str, heads: dict[int, ListHead]) -> None:
    misses.fill({list_key(table, from_id): entries for from_id, entries in heads.items()})


def get_counts(table: str, from_ids: Iterable[int]) -> tuple[dict[int, int], Misses]:
    """The cached lengths of several lists (one round trip); lists not cached are absent, and
    are the misses to fill."""
    names = {count_key(table, from_id): from_id for from_id in from_ids}
    found, misses = lists_pool.read(names)
    return {names[name]: int(value) for name, value in found.items()}, misses


def put_counts(misses: Misses, table: str, counts: dict[int, int]) -> None:
    misses.fill({count_key(table, from_id): count for from_id, count in counts.items()})


def forget_list(table: str, from_id: int) -> None:
    forget_lists(table, [from_id])


def forget_lists(table: str, from_ids: Iterable[int]) -> None:
    """Drop the cached heads and counts of several lists of ``table`` (one script call)."""
    lists_pool.forget([key for from_id in from_ids
                       for key in (list_key(table, from_id), count_key(table, from_id))])

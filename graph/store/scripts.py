"""The Lua scripts that update the graph, one per side of each action.

Every write script takes the vshard's fence key as ``KEYS[1]`` and refuses to run while the
vshard is fenced (being switched to another instance, or moved away); during a move it runs
and returns ``moving:<instance>`` so the caller applies it there too. Each script is
idempotent: it sets the state the edge log implies (``ZADD NX`` / ``HSETNX`` keep the first
time), so a retry, or a second application during a move, changes nothing. The overlap
counter only moves when the membership it counts really changed in the same script.
"""

from __future__ import annotations

import threading
from typing import Any

import redis

from graph.store.errors import FENCED_PREFIX

PRELUDE = f"""
local mark = redis.call('GET', KEYS[1])
if mark and string.sub(mark, 1, 7) ~= 'moving:' then
  return redis.error_reply('{FENCED_PREFIX}' .. mark)
end
""" + """local function decr(key)
  if redis.call('DECR', key) <= 0 then redis.call('DEL', key) end
end
local function implicit(key, score, member)
  if score ~= '' then redis.call('ZADD', key, score, member)
  else redis.call('ZREM', key, member) end
end
"""

EPILOGUE = """
return mark or ''
"""

# KEYS: fence, fwe(A), fwi(A)   ARGV: target, time
FOLLOW_USER_OUT = """
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
"""

# KEYS: fence, fre(T), fri(T), then (fre(X), ovl(X)) per board X of T that A follows
# ARGV: follower, time
FOLLOW_USER_IN = """
local added = redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if added == 1 then
  for i = 4, #KEYS, 2 do
    if redis.call('HEXISTS', KEYS[i], ARGV[1]) == 1 then redis.call('INCR', KEYS[i + 1]) end
  end
end
"""

# KEYS: fence, fwe(A), fwi(A), bue(A)   ARGV: target, implicit time or '', cleared boards...
UNFOLLOW_USER_OUT = """
redis.call('ZREM', KEYS[2], ARGV[1])
implicit(KEYS[3], ARGV[2], ARGV[1])
for i = 3, #ARGV do redis.call('SREM', KEYS[4], ARGV[i]) end
"""

# KEYS: fence, fre(T), fri(T), ufe(X) per cleared board, then (fre(X), ovl(X)) per board
# of T that A follows   ARGV: follower, implicit time or '', number of cleared boards
UNFOLLOW_USER_IN = """
local removed = redis.call('ZREM', KEYS[2], ARGV[1])
implicit(KEYS[3], ARGV[2], ARGV[1])
local cleared = tonumber(ARGV[3])
for i = 4, 3 + cleared do redis.call('SREM', KEYS[i], ARGV[1]) end
if removed == 1 then
  for i = 4 + cleared, #KEYS, 2 do
    if redis.call('HEXISTS', KEYS[i], ARGV[1]) == 1 then decr(KEYS[i + 1]) end
  end
end
"""

# KEYS: fence, bfe(A), bue(A), fwi(A)   ARGV: board, owner, implicit time, follows owner
FOLLOW_BOARD_OUT = """
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
if ARGV[4] == '0' then implicit(KEYS[4], ARGV[3], ARGV[2]) end
"""

# KEYS: fence, fre(X), ufe(X), fre(O), fri(O), ovl(X)
# ARGV: follower, time, implicit time, follows owner
FOLLOW_BOARD_IN = """
local added = redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[1])
if ARGV[4] == '0' then implicit(KEYS[5], ARGV[3], ARGV[1]) end
if added == 1 and redis.call('ZSCORE', KEYS[4], ARGV[1]) then redis.call('INCR', KEYS[6]) end
"""

# KEYS: fence, bfe(A), bue(A), fwi(A)   ARGV: board, owner, implicit time, follows owner
UNFOLLOW_BOARD_OUT = """
redis.call('SREM', KEYS[2], ARGV[1])
if ARGV[4] == '1' then redis.call('SADD', KEYS[3], ARGV[1])
else implicit(KEYS[4], ARGV[3], ARGV[2]) end
"""

# KEYS: fence, fre(X), ufe(X), fre(O), fri(O), ovl(X)
# ARGV: follower, implicit time, follows owner
UNFOLLOW_BOARD_IN = """
local removed = redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] == '1' then redis.call('SADD', KEYS[3], ARGV[1])
else implicit(KEYS[5], ARGV[2], ARGV[1]) end
if removed == 1 and redis.call('ZSCORE', KEYS[4], ARGV[1]) then decr(KEYS[6]) end
"""

# A deleted board X of owner O leaves follower A.
# KEYS: fence, bfe(A), bue(A), fwi(A)   ARGV: board, owner, implicit time, follows owner
FORGET_BOARD_OUT = """
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
if ARGV[4] == '0' then implicit(KEYS[4], ARGV[3], ARGV[2]) end
"""

# KEYS: fence, fre(X), ufe(X), fri(O)   ARGV: follower, implicit time, follows owner
FORGET_BOARD_IN = """
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
if ARGV[3] == '0' then implicit(KEYS[4], ARGV[2], ARGV[1]) end
"""

# KEYS: fence, then every key of a deleted board
FORGET_BOARD_KEYS = """
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
"""

# KEYS: fre(X), fre(O), ovl(X): recount the overlap from the two sets (repairs)
RECOUNT_OVERLAP = """
local n = 0
for _, follower in ipairs(redis.call('HKEYS', KEYS[1])) do
  if redis.call('ZSCORE', KEYS[2], follower) then n = n + 1 end
end
if n > 0 then redis.call('SET', KEYS[3], n) else redis.call('DEL', KEYS[3]) end
return n
"""

WRITES = {
    "follow_user_out": FOLLOW_USER_OUT,
    "follow_user_in": FOLLOW_USER_IN,
    "unfollow_user_out": UNFOLLOW_USER_OUT,
    "unfollow_user_in": UNFOLLOW_USER_IN,
    "follow_board_out": FOLLOW_BOARD_OUT,
    "follow_board_in": FOLLOW_BOARD_IN,
    "unfollow_board_out": UNFOLLOW_BOARD_OUT,
    "unfollow_board_in": UNFOLLOW_BOARD_IN,
    "forget_board_out": FORGET_BOARD_OUT,
    "forget_board_in": FORGET_BOARD_IN,
    "forget_board_keys": FORGET_BOARD_KEYS,
}
SOURCES = {**{name: PRELUDE + body + EPILOGUE for name, body in WRITES.items()},
           "recount_overlap": RECOUNT_OVERLAP}


class Scripts:
    """redis-py ``Script`` objects by name, made on first use (EVALSHA, loading on a miss)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scripts: dict[str, Any] = {}

    def run(self, name: str, client: redis.Redis, keys: list[str], args: list[Any]) -> Any:
        script = self._scripts.get(name) or self._make(name, client)
        return script(keys=keys, args=args, client=client)

    def run_together(self, client: redis.Redis,
                     calls: list[tuple[str, list[str], list[Any]]]) -> list[Any]:
        """Run ``(name, keys, args)`` scripts in one round trip (a pipeline, not a
        transaction): each one's result, or the error it raised (also a script the server
        has not loaded yet, which :meth:`run` loads)."""
        pipeline = client.pipeline(transaction=False)
        for name, keys, args in calls:
            script = self._scripts.get(name) or self._make(name, client)
            pipeline.evalsha(script.sha, len(keys), *keys, *args)
        return list(pipeline.execute(raise_on_error=False))

    def _make(self, name: str, client: redis.Redis) -> Any:
        with self._lock:
            if name not in self._scripts:
                self._scripts[name] = client.register_script(SOURCES[name])
            return self._scripts[name]


scripts = Scripts()

"""Moving vshards to another Redis master, online, without losing a write made meanwhile.

1. Mark each moving vshard ``moving:<target>`` in its fence key on the source. From then on
   every write script that runs on the source for that vshard tells its caller to apply the
   same (idempotent) script on the target too.
2. Copy the vshards' keys with ``MIGRATE COPY REPLACE``, which is atomic on the source: a
   write lands on the source either before a key's copy (and is in it) or after (and is
   applied on the target as well, after the copy arrived).
3. Verify: compare every key on both sides, re-copying any that differ.
4. Fence the vshards (``fenced``, expiring after ``FENCE_SECONDS`` so a crashed move unblocks
   itself): writes are refused and retried by their callers. Compare once more, exactly.
5. Switch the map by compare-and-set; mark the source ``moved:<target>`` (refusing writers
   with a stale map until they re-read it), wait a grace period for readers, drop the keys.

A failed move leaves the map unchanged; run it again.

:func:`split` moves the upper half of an instance's vshards to a new instance this way (the
follower post's "bring up a new master … make it the new master for half"), a contiguous run
at a time, each with its own short fence.

>>> move(0, 31, "redis002a").keys_copied
5120
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass

from auditlog.operations import operation
from graph import keys, topology
from graph.conf import graph_settings
from graph.exceptions import MoveError
from graph.logscan import open_shards
from graph.store import admin
from graph.vshardmap import VShardMap
from graph.vshards import vshard_of_shard

Progress = Callable[[str], None]
CONVERGE_ROUNDS = 5


@dataclass(frozen=True)
class MoveReport:
    first: int
    last: int
    target: str
    sources: list[str]
    vshards_moved: int
    keys_copied: int
    keys_recopied: int
    keys_dropped: int
    map_version: int
    seconds: float

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def move(first: int, last: int, target: str, grace_seconds: float = 1.0,
         progress: Progress | None = None) -> MoveReport:
    """Move vshards ``first..last`` to the master ``target`` (``graph.move`` in the operator
    audit log)."""
    arguments = {"to": target, "grace_seconds": grace_seconds}
    with operation("graph.move", f"{first}-{last}", arguments) as done:
        report = _move(first, last, target, grace_seconds, progress)
        done.result = report.to_json()
        return report


def _move(first: int, last: int, target: str, grace_seconds: float,
          progress: Progress | None) -> MoveReport:
    started = time.monotonic()
    note = progress or (lambda _: None)
    current = topology.read_fresh()
    _check_target(target, current, first, last)
    by_source = _sources(current, first, last, target)
    admin.clear_fences(target, range(first, last + 1))
    for source, vshards in by_source.items():
        admin.set_fences(source, vshards, f"moving:{target}", None)
    note("copying")
    copied = sum(_copy(source, target, vshards) for source, vshards in by_source.items())
    note("verifying")
    recopied = sum(_converge(source, target, vshards) for source, vshards in by_source.items())
    note("switching")
    recopied += _fence_and_check(by_source, target)
    switched = _switch(first, last, target, by_source)
    for source, vshards in by_source.items():
        admin.set_fences(source, vshards, f"moved:{target}",
                         graph_settings.decimal("MOVED_FENCE_SECONDS"))
    time.sleep(grace_seconds)
    note("dropping")
    dropped = sum(admin.delete_keys(source, _names(source, vshards))
                  for source, vshards in by_source.items())
    moved = sum(len(v) for v in by_source.values())
    return MoveReport(first, last, target, sorted(by_source), moved, copied, recopied, dropped,
                      switched.version, round(time.monotonic() - started, 3))


def _check_target(target: str, current: VShardMap, first: int, last: int) -> None:
    if not 0 <= first <= last < current.count:
        raise MoveError(f"vshards {first}-{last} are out of 0..{current.count - 1}")
    topology.address_of(target)
    if not admin.ping(target):
        raise MoveError(f"{target} does not answer")
    if admin.replication(target).get("role") != "master":
        raise MoveError(f"{target} is a replica; move vshards to a master")


def _sources(current: VShardMap, first: int, last: int, target: str) -> dict[str, list[int]]:
    by_source: dict[str, list[int]] = defaultdict(list)
    for vshard in range(first, last + 1):
        master = current.master_for(vshard)
        if master != target:
            by_source[master].append(vshard)
    return dict(by_source)


def _names(instance: str, vshards: list[int]) -> list[str]:
    served = set(vshards)
    patterns = [keys.vshard_pattern(v) for v in vshards] if len(vshards) <= 16 \
        else [keys.vshard_pattern()]
    found = {name for pattern in patterns for name in admin.scan_keys(instance, pattern)}
    return sorted(name for name in found
                  if (parsed := keys.parse(name)) is not None and parsed.vshard in served)


def _copy(source: str, target: str, vshards: list[int]) -> int:
    names = _names(source, vshards)
    admin.migrate(source, topology.address_of(target), names)
    return len(names)


def _differing(source: str, target: str, vshards: list[int]) -> list[str]:
    held = admin.read_values(source, _names(source, vshards))
    copied = admin.read_values(target, _names(target, vshards))
    return sorted(name for name in set(held) | set(copied) if held.get(name) != copied.get(name))


def _recopy(source: str, target: str, names: list[str]) -> None:
    present = set(admin.read_values(source, names))
    admin.delete_keys(target, [name for name in names if name not in present])
    admin.migrate(source, topology.address_of(target), [n for n in names if n in present])


def _converge(source: str, target: str, vshards: list[int]) -> int:
    """Re-copy keys that differ while writes go on (a write may be between its two sides)."""
    recopied = 0
    for _ in range(CONVERGE_ROUNDS):
        differing = _differing(source, target, vshards)
        if not differing:
            break
        time.sleep(0.05)
        _recopy(source, target, differing)
        recopied += len(differing)
    return recopied


def _fence_and_check(by_source: dict[str, list[int]], target: str) -> int:
    fence_seconds = graph_settings.decimal("FENCE_SECONDS")
    for source, vshards in by_source.items():
        admin.set_fences(source, vshards, "fenced", fence_seconds)
    recopied = 0
    for source, vshards in by_source.items():
        differing = _differing(source, target, vshards)
        _recopy(source, target, differing)
        recopied += len(differing)
        if _differing(source, target, vshards):
            raise MoveError(f"the copy on {target} still differs from {source}; the fence "
                            f"lifts in {fence_seconds:.0f}s, then run the move again")
    return recopied


def _switch(first: int, last: int, target: str, by_source: dict[str, list[int]]) -> VShardMap:
    replica = topology.read_fresh().replica_of(target) or \
        dict(graph_settings.INITIAL_PAIRS).get(target)

    def change(current: VShardMap) -> VShardMap:
        for source, vshards in by_source.items():
            if any(current.master_for(v) != source for v in vshards):
                raise MoveError("the vshard map changed during the move; run it again")
        return current.homed(first, last, target, replica)

    return topology.change_map(change)


def split(instance: str, target: str, progress: Progress | None = None) -> list[MoveReport]:
    """Move the upper half of ``instance``'s vshards to ``target`` (a configured or
    registered instance the map does not use yet), one contiguous run at a time; returns each
    run's report. The cut halves the populated vshards, those of the open shards (a user's
    vshard follows from their shard), and the empty ones above it go along. Recorded in the
    operator audit log as one ``graph.split``, its moves included."""
    with operation("graph.split", instance, {"new": target}) as done:
        reports = _split(instance, target, progress)
        done.result = {"moves": [report.to_json() for report in reports]}
        return reports


def _split(instance: str, target: str, progress: Progress | None) -> list[MoveReport]:
    current = topology.read_fresh()
    served = sorted(current.vshards_of(instance))
    if len(served) < 2:
        raise MoveError(f"{instance} is not a master of two vshards or more in the vshard map")
    if target in current.instances():
        raise MoveError(f"{target} is in the vshard map already: a split needs a new instance")
    populated = {vshard_of_shard(shard) for shard in open_shards()}
    halved = [vshard for vshard in served if vshard in populated]
    cut = halved[len(halved) // 2] if len(halved) >= 2 else served[len(served) // 2]
    runs: list[list[int]] = []
    for vshard in (v for v in served if v >= cut):
        if runs and runs[-1][-1] == vshard - 1:
            runs[-1].append(vshard)
        else:
            runs.append([vshard])
    return [move(run[0], run[-1], target, progress=progress) for run in runs]

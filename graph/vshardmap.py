"""The vshard map: which Redis master (and replica) holds each range of virtual shards.

A pure value with no I/O; :mod:`graph.topology` keeps the current one from ZooKeeper. Every
vshard has exactly one home. Serialised like the shard map::

    {"ranges": [{"range": [0, 31], "master": "redis001a", "replica": "redis001b"}, ...]}

>>> pairs = [("redis001a", "redis001b"), ("redis002a", "redis002b")]
>>> VShardMap.initial(8192, 64, pairs).master_for(40)
'redis002a'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from graph.exceptions import VShardMapError
from sharding.ranges import HostRange, RangeMap

Pair = tuple[str, str | None]


class VShardRange(HostRange):
    """Vshards ``first..last`` (inclusive) on one master, with its hot-standby replica."""

    error = VShardMapError
    noun = "vshard"


class VShardMap(RangeMap[VShardRange]):
    """Sorted ranges covering vshards ``0..count-1``; ``version`` is the ZooKeeper version."""

    range_type = VShardRange

    def _validate(self, ranges: Sequence[VShardRange]) -> None:
        _validate(ranges)

    @classmethod
    def initial(cls, count: int, open_shards: int, pairs: Sequence[Pair]) -> VShardMap:
        """Split the vshards evenly over ``pairs``: first the vshards of the open MySQL shards
        (``0..open_shards-1``, where all users live at first), then the rest."""
        if not pairs:
            raise VShardMapError("at least one Redis master is needed")
        used = min(max(open_shards, 1), count)
        groups = [(0, used), (used, count)] if used < count else [(0, count)]
        ranges = [r for start, end in groups for r in _split(start, end, pairs)]
        return cls(tuple(ranges)).merged()

    @property
    def count(self) -> int:
        return self.ranges[-1].last + 1

    def range_for(self, vshard: int) -> VShardRange:
        found = self._find(vshard)
        if found is None:
            raise VShardMapError(f"vshard {vshard} is out of 0..{self.count - 1}")
        return found

    def instances(self) -> list[str]:
        """Every instance named in the map, masters first."""
        return self.named()

    def vshards_of(self, master: str) -> list[int]:
        return self.members_of(master)

    def replica_of(self, master: str) -> str | None:
        """The replica named beside ``master`` (None if it serves nothing or has none)."""
        return next((r.replica for r in self.ranges_of(master) if r.replica), None)

    def homed(self, first: int, last: int, master: str, replica: str | None) -> VShardMap:
        """The map with vshards ``first..last`` on ``master`` (ranges split and merged)."""
        if not 0 <= first <= last < self.count:
            raise VShardMapError(f"range {first}-{last} is out of 0..{self.count - 1}")
        pieces: list[VShardRange] = []
        for r in self.ranges:
            if r.last < first or r.first > last:
                pieces.append(r)
                continue
            if r.first < first:
                pieces.append(replace(r, last=first - 1))
            if r.last > last:
                pieces.append(replace(r, first=last + 1))
        pieces.append(VShardRange(first, last, master, replica))
        return self._with(pieces).merged()

    def promoted(self, master: str, new_replica: str | None) -> VShardMap:
        """The map after ``master``'s replica takes over every range it served."""
        ranges = self.ranges_of(master)
        replicas = {r.replica for r in ranges}
        if not ranges:
            raise VShardMapError(f"{master} is not a master in the vshard map")
        if None in replicas or len(replicas) != 1:
            raise VShardMapError(f"{master} has no single replica to promote")
        successor = replicas.pop()
        assert successor is not None
        return self._with(replace(r, master=successor, replica=new_replica)
                          if r.master == master else r for r in self.ranges)

    def with_replica(self, master: str, replica: str | None) -> VShardMap:
        """The map with ``replica`` as the hot standby of every range of ``master``."""
        if self.ranges_of(master) and replica in self.masters():
            raise VShardMapError(f"{replica} is a master in the vshard map")
        return super().with_replica(master, replica)

    def merged(self) -> VShardMap:
        """The same placement with adjacent ranges of one master/replica joined."""
        joined: list[VShardRange] = []
        for r in self.ranges:
            last = joined[-1] if joined else None
            if last and (last.master, last.replica) == (r.master, r.replica):
                joined[-1] = replace(last, last=r.last)
            else:
                joined.append(r)
        return self._with(joined)


def _split(start: int, end: int, pairs: Sequence[Pair]) -> list[VShardRange]:
    size, extra = divmod(end - start, len(pairs))
    ranges, first = [], start
    for index, (master, replica) in enumerate(pairs):
        count = size + (1 if index < extra else 0)
        if count:
            ranges.append(VShardRange(first, first + count - 1, master, replica))
        first += count
    return ranges


def _validate(ranges: Sequence[VShardRange]) -> None:
    if not ranges:
        raise VShardMapError("a vshard map needs at least one range")
    expected_first = 0
    for r in ranges:
        if r.first != expected_first or r.last < r.first:
            raise VShardMapError(f"range {r.first}-{r.last} leaves a gap or overlaps: every "
                                 f"vshard needs exactly one home (next is {expected_first})")
        if r.master == r.replica:
            raise VShardMapError(f"{r.master} cannot be its own replica")
        expected_first = r.last + 1

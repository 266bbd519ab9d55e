"""The shard map: which physical master (and replica) holds each range of logical shards.

A pure value with no I/O; :mod:`sharding.topology` keeps the current one from ZooKeeper.
Serialised as the source describes it::

    {"ranges": [{"range": [0, 2047], "master": "mysql001a", "replica": "mysql001b"}, ...]}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sharding.exceptions import ShardMapError, ShardNotOpen
from sharding.ids import MAX_SHARD
from sharding.ranges import HostRange, RangeMap


class ShardRange(HostRange):
    """Logical shards ``first..last`` (inclusive) on one master, with its hot-standby replica."""

    error = ShardMapError
    noun = "shard"

    def shards(self) -> range:
        return self.members()


class ShardMap(RangeMap[ShardRange]):
    """Sorted, non-overlapping shard ranges. ``version`` is the ZooKeeper node version."""

    range_type = ShardRange

    def _validate(self, ranges: Sequence[ShardRange]) -> None:
        _validate(ranges)

    @classmethod
    def initial(cls, shard_count: int, pairs: Sequence[tuple[str, str | None]]) -> ShardMap:
        """Split shards ``0..shard_count-1`` evenly over the master/replica ``pairs``."""
        if not pairs:
            raise ShardMapError("at least one master host is needed")
        if not len(pairs) <= shard_count <= MAX_SHARD + 1:
            raise ShardMapError(f"shard count {shard_count} must be {len(pairs)}..{MAX_SHARD + 1}")
        size, extra = divmod(shard_count, len(pairs))
        ranges, first = [], 0
        for index, (master, replica) in enumerate(pairs):
            count = size + (1 if index < extra else 0)
            ranges.append(ShardRange(first, first + count - 1, master, replica))
            first += count
        return cls(tuple(ranges))

    def range_for(self, shard: int) -> ShardRange:
        """The range that holds ``shard``."""
        found = self._find(shard)
        if found is None:
            raise ShardNotOpen(f"shard {shard} is not open in the shard map")
        return found

    def open_shards(self) -> list[int]:
        return [shard for r in self.ranges for shard in r.shards()]

    def shard_count(self) -> int:
        return sum(r.size for r in self.ranges)

    def hosts(self) -> list[str]:
        """Every host named in the map, masters first."""
        return self.named()

    def shards_of(self, master: str) -> list[int]:
        return self.members_of(master)

    def promoted(self, master: str) -> ShardMap:
        """The map after ``master``'s replica takes over every range it served (no replica left)."""
        ranges = self.ranges_of(master)
        if not ranges:
            raise ShardMapError(f"{master} is not a master in the shard map")
        replicas = {r.replica for r in ranges}
        replica = replicas.pop() if len(replicas) == 1 else None
        if replica is None:
            raise ShardMapError(f"{master} has no single replica to promote")
        return self._with(r if r.master != master else replace(r, master=replica, replica=None)
                          for r in self.ranges)

    def fenced_from(self, master: str, cut: int) -> ShardMap:
        """The map with ``master``'s shards from ``cut`` on fenced (ranges split at ``cut``)."""
        if not self.ranges_of(master):
            raise ShardMapError(f"{master} is not a master in the shard map")
        pieces: list[ShardRange] = []
        for r in self.ranges:
            if r.master != master or r.last < cut:
                pieces.append(r)
            elif r.first >= cut:
                pieces.append(replace(r, fenced=True))
            else:
                pieces += [replace(r, last=cut - 1), replace(r, first=cut, fenced=True)]
        return self._with(pieces)

    def fenced_moved(self, new_master: str, replica: str | None) -> ShardMap:
        """The map with every fenced range on ``new_master`` (with ``replica``), open again."""
        return self._with(replace(r, master=new_master, replica=replica, fenced=False)
                          if r.fenced else r for r in self.ranges)

    def unfenced(self) -> ShardMap:
        """The map with every fence lifted (a move given up)."""
        return self._with(replace(r, fenced=False) for r in self.ranges)

    def with_range(self, new: ShardRange) -> ShardMap:
        """The map with a newly opened range (it must not overlap any open shard)."""
        return self._with([*self.ranges, new])


def _validate(ranges: Sequence[ShardRange]) -> None:
    previous_last = -1
    for r in ranges:
        if not 0 <= r.first <= r.last <= MAX_SHARD:
            raise ShardMapError(f"range {r.first}..{r.last} is out of 0..{MAX_SHARD}")
        if r.first <= previous_last:
            raise ShardMapError(f"range {r.first}..{r.last} overlaps the previous range")
        if r.master == r.replica:
            raise ShardMapError(f"{r.master} cannot be its own replica")
        previous_last = r.last

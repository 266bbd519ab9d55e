"""The graph's one table in ``default``: which shards hold slices of an interest's followers.

An interest's follower list is sliced (:mod:`sharding.slices`): each follower's row lives on
the follower's own shard. This small map names the shards that hold a slice of an interest,
so reading the list asks only those. A shard is added before its first row is written and
never removed (an empty slice costs one indexed look).
"""

from __future__ import annotations

from django.db import models


class InterestSlice(models.Model):
    """Shard ``shard`` holds (or held) followers of interest ``interest_id``."""

    interest_id = models.BigIntegerField()
    shard = models.IntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["interest_id", "shard"],
                                               name="interest_slice_unique")]

    def __str__(self) -> str:
        return f"interest {self.interest_id} on shard {self.shard}"

"""What the graph changed since a moment: the follow events the outbox recorded since then, as
``follower → targets``, kept to those that touch some vshards. A promoted replica can be
missing only these (its stamp says since when), so its reconcile reads them, not the whole log.

>>> changes_since(stamp_us - margin_us, {17, 18})
{1153: {('user', 2305)}, 4097: {('board', 70368744177665)}}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

from events import journal
from graph.events import FOLLOW_CHANGED, Target
from graph.vshards import vshard_of


def changes_since(since_us: int, vshards: Collection[int]) -> dict[int, set[Target]]:
    """The followers whose follows changed at or after ``since_us``, each with the targets it
    changed, where the follower or the target lives on ``vshards``."""
    served = set(vshards)
    changes: dict[int, set[Target]] = defaultdict(set)
    for row in journal.recorded_since(FOLLOW_CHANGED, since_us):
        follower, target = int(row.payload["follower_id"]), int(row.payload["target_id"])
        if vshard_of(follower) in served or vshard_of(target) in served:
            changes[follower].add((str(row.payload["target_kind"]), target))
    return dict(changes)

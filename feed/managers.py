"""``pinner.feed``: the following feed as a manager, over :mod:`feed.selectors` and the
rebuild of :mod:`feed.writers`.

>>> page = ada.feed.page(limit=50)
>>> [pin.title for pin in page], page.next_cursor
(['Leek quiche', ...], 'f_____...')
>>> ada.feed.explain(pin).present
True
>>> ada.feed.rebuild()
{'primary': {'entries': 120, 'removed': 0}, 'standby': {'entries': 120, 'removed': 0}}

The following feed has no ``count()``: past the part its row keeps, pages come from the
followed boards' own lists (:mod:`feed.merge`), so its length is not stored anywhere.
"""

from __future__ import annotations

from typing import Any

from feed import selectors, writers
from feed.explain import Explanation, explain
from feed.storage import FeedRow
from feed.store.pools import Cluster
from pins.domain import Pin
from pins.managers import by_pinner, contribute_to_pinners
from toolkit.paging import Page


class FollowingFeed:
    """The pins of everyone and every board a pinner follows, newest first."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id

    def page(self, limit: int | None = None, after: str | None = None) -> Page[Pin]:
        """Up to ``limit`` hydrated pins after the cursor ``after`` (one speculative row read,
        one ``get_many``)."""
        return selectors.feed_page(self.user_id, limit, after)

    def head(self, cluster: Cluster | None = None) -> FeedRow:
        """The stored row (entries, horizon, write counter), from ``cluster`` or read
        speculatively: for operators."""
        return selectors.feed_head(self.user_id, cluster)

    def explain(self, pin: Pin | int) -> Explanation:
        """Why the pin is, or is not, in this feed, from the records (:mod:`feed.explain`)."""
        return explain(self.user_id, pin if isinstance(pin, int) else pin.id)

    def rebuild(self) -> dict[str, Any]:
        """Make the stored feed on every cluster what the graph says it should be (queued for
        a cluster that is down): for operators."""
        return writers.rebuild_everywhere(self.user_id)


contribute_to_pinners("feed", by_pinner(FollowingFeed))

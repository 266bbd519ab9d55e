"""The requesting pinner's following feed: pins of the boards they follow, newest first."""

from __future__ import annotations

from typing import Any

from feed.selectors import feed_page
from pinsite.api.base import PageView
from pinsite.api.pagination import PageQuery
from pinsite.api.permissions import IsPinner
from pinsite.api.serializers.pins import PinSerializer


class FeedView(PageView):
    permission_classes = [IsPinner]
    item_serializer = PinSerializer
    summary = "Your following feed, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> tuple[list[Any], str | None]:
        page = feed_page(self.pinner_id(), limit=query.limit, after=query.cursor)
        return page.items, page.next_cursor

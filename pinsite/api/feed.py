"""The requesting pinner's feeds: the smart home feed, and the following feed (pins of the
boards they follow, newest first)."""

from __future__ import annotations

from typing import Any

from feed.selectors import feed_page
from feed.smart.service import home_page
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


class HomeView(PageView):
    permission_classes = [IsPinner]
    item_serializer = PinSerializer
    summary = ("Your smart home feed: pins chosen for this visit, best first, then the pins "
               "shown before (a cursor pages into those)")

    def get_page(self, query: PageQuery, **kwargs: Any) -> tuple[list[Any], str | None]:
        page = home_page(self.pinner_id(), limit=query.limit, after=query.cursor)
        return page.items, page.next_cursor

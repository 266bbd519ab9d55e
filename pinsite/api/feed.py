"""The requesting pinner's feeds: the smart home feed, and the following feed (pins of the
boards they follow, newest first)."""

from __future__ import annotations

from typing import Any

from pinsite.api.base import PageView
from pinsite.api.pagination import PageQuery
from pinsite.api.permissions import IsPinner
from pinsite.api.serializers.pins import PinSerializer
from toolkit.paging import Page


class FeedView(PageView):
    permission_classes = [IsPinner]
    item_serializer = PinSerializer
    summary = "Your following feed, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        return self.pinner().feed.page(limit=query.limit, after=query.cursor)


class HomeView(PageView):
    permission_classes = [IsPinner]
    item_serializer = PinSerializer
    summary = ("Your smart home feed: pins chosen for this visit, best first, then the pins "
               "shown before (a cursor pages into those)")

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        return self.pinner().home.page(limit=query.limit, after=query.cursor)

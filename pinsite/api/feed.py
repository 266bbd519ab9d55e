"""The requesting pinner's feeds: the smart home feed, the following feed (pins of the boards
they follow, newest first), and why a pin is or is not in them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from pinsite.api.base import PageView, PinsiteView
from pinsite.api.pagination import PageQuery
from pinsite.api.permissions import IsPinner
from pinsite.api.serializers.explain import ExplainQuery, ExplanationSerializer
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


class ExplainView(PinsiteView):
    permission_classes = [IsPinner]

    @extend_schema(parameters=[ExplainQuery], responses={200: ExplanationSerializer},
                   summary="Why a pin is, or is not, in your following feed and on your Home")
    def get(self, request: Request) -> Response:
        query = ExplainQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        pin, pinner = query.validated_data["pin"], self.pinner()
        following = pinner.feed.explain(pin).as_json()
        home = pinner.home.explain(pin).as_json()
        return self.render(ExplanationSerializer, {
            "present": following["present"], "reasons": following["reasons"],
            "home": {"present": home["present"], "reasons": home["reasons"]}})

"""Base views of the API: JSON in and out, write throttling with its rate-limit headers,
and the acting pinner.

Views stay thin: they check input with a serializer, call one action or selector, and render
the result. List views implement one hook, :meth:`PageView.get_page`.

>>> class BoardPins(PageView):
...     item_serializer = PinSerializer
...     summary = "A board's pins, newest first"
...     def get_page(self, query, **kwargs):
...         board = Board.objects.get(kwargs["board_id"])
...         return board.pins.page(limit=query.limit, after=query.cursor)
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from pins.models import Pinner
from pinsite.api.pagination import PageQuery, page_query, page_response
from pinsite.api.parsers import BoundedJSONParser
from pinsite.api.permissions import ReadOnlyOrPinner, acting_pinner
from pinsite.api.ratelimits import add_rate_limit_headers
from pinsite.api.renderers import FastJSONRenderer
from pinsite.api.throttles import WriteThrottle
from toolkit.paging import Page


class PinsiteView(APIView):
    """Anyone reads, pinners write (throttled); JSON bodies only. Every answer to a request a
    throttle counted, errors included, carries its ``X-RateLimit-*`` headers."""

    permission_classes = [ReadOnlyOrPinner]
    throttle_classes = [WriteThrottle]
    parser_classes = [BoundedJSONParser]
    renderer_classes = [FastJSONRenderer]

    def finalize_response(self, request: Request, response: Response, *args: Any,
                          **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        add_rate_limit_headers(request, response)
        return response

    def pinner(self) -> Pinner:
        """The requesting pinner (with their managers: ``self.pinner().feed.page()``)."""
        return acting_pinner(self.request)

    def pinner_id(self) -> int:
        """The 64-bit user ID of the requesting pinner."""
        return int(self.pinner().user_id)

    def checked(self, serializer_class: type[serializers.Serializer[Any]],
                partial: bool = False) -> dict[str, Any]:
        """The request body, validated by ``serializer_class`` (400 when it is not valid)."""
        serializer = serializer_class(data=self.request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def render(self, serializer_class: type[serializers.Serializer[Any]], instance: Any,
               status: int = 200, headers: dict[str, str] | None = None) -> Response:
        context = {"request": self.request}
        return Response(serializer_class(instance, context=context).data, status=status,
                        headers=headers)


class PageView(PinsiteView):
    """``GET`` one page of a newest-first list of ``item_serializer`` items."""

    item_serializer: type[serializers.Serializer[Any]]
    summary: str = "A page of a newest-first list"

    def get(self, request: Request, **kwargs: Any) -> Response:
        return page_response(request, self.item_serializer,
                             self.get_page(page_query(request), **kwargs))

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        raise NotImplementedError

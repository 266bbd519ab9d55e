"""Boards: create, read, change and delete one's own; their pins."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from pins import actions, selectors
from pins.types import BOARD
from pinsite.api.base import PageView, PinsiteView
from pinsite.api.details import board_detail
from pinsite.api.fields import path_id
from pinsite.api.pagination import PageQuery
from pinsite.api.serializers.boards import BoardDetailSerializer, BoardInput, BoardSerializer
from pinsite.api.serializers.pins import PinSerializer
from toolkit.paging import Page


class BoardsView(PinsiteView):
    @extend_schema(request=BoardInput, responses={201: BoardSerializer},
                   summary="Create a board of the requesting pinner")
    def post(self, request: Request) -> Response:
        data = self.checked(BoardInput)
        board = actions.create_board(self.pinner_id(), data["name"], data.get("description", ""),
                                     data.get("interest"))
        location = request.build_absolute_uri(reverse("api-board", args=[board.id]))
        return self.render(BoardSerializer, board, status=201, headers={"Location": location})


class BoardView(PinsiteView):
    @extend_schema(responses={200: BoardDetailSerializer},
                   summary="A board with exact counts")
    def get(self, request: Request, board_id: str) -> Response:
        return self.render(BoardDetailSerializer, board_detail(path_id(board_id, BOARD)))

    @extend_schema(request=BoardInput(partial=True), responses={200: BoardSerializer},
                   summary="Rename a board, change its description or interest (owner only)")
    def patch(self, request: Request, board_id: str) -> Response:
        data = self.checked(BoardInput, partial=True)
        board = actions.update_board(self.pinner_id(), path_id(board_id, BOARD),
                                     name=data.get("name"), description=data.get("description"),
                                     interest=_interest_change(data))
        return self.render(BoardSerializer, board)

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Deleted.")},
                   summary="Delete a board with all its pins (owner only)")
    def delete(self, request: Request, board_id: str) -> Response:
        actions.delete_board(self.pinner_id(), path_id(board_id, BOARD))
        return Response(status=204)


def _interest_change(data: dict[str, Any]) -> str | None:
    """``None`` keeps the interest (not sent); ``""`` clears it (sent empty or null)."""
    if "interest" not in data:
        return None
    return data["interest"] or ""


class BoardPinsView(PageView):
    item_serializer = PinSerializer
    summary = "A board's pins, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        board = selectors.get_board(path_id(kwargs["board_id"], BOARD))
        page = selectors.pins_of_board(board.id, limit=query.limit, after=query.cursor)
        return page

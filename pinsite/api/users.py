"""Pinners' profiles and their boards and pins."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from pins import selectors
from pins.types import USER
from pinsite.api.base import PageView, PinsiteView
from pinsite.api.details import user_detail
from pinsite.api.fields import path_id
from pinsite.api.pagination import PageQuery
from pinsite.api.serializers.boards import BoardSerializer
from pinsite.api.serializers.pins import PinSerializer
from pinsite.api.serializers.users import UserDetailSerializer
from toolkit.paging import Page


class UserView(PinsiteView):
    @extend_schema(responses={200: UserDetailSerializer},
                   summary="A pinner's profile with exact counts")
    def get(self, request: Request, user_id: str) -> Response:
        return self.render(UserDetailSerializer, user_detail(path_id(user_id, USER)))


class UserByNameView(PinsiteView):
    @extend_schema(responses={200: UserDetailSerializer},
                   summary="A pinner's profile, found by username (ignoring case)")
    def get(self, request: Request, username: str) -> Response:
        pinner = selectors.pinner_by_username(username)
        return self.render(UserDetailSerializer, user_detail(pinner.user_id))


class UserBoardsView(PageView):
    item_serializer = BoardSerializer
    summary = "A pinner's boards, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        user = selectors.get_user(path_id(kwargs["user_id"], USER))
        page = selectors.boards_of(user.id, limit=query.limit, after=query.cursor)
        return page


class UserPinsView(PageView):
    item_serializer = PinSerializer
    summary = "Every pin a pinner made, on all their boards, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        user = selectors.get_user(path_id(kwargs["user_id"], USER))
        page = selectors.pins_of_user(user.id, limit=query.limit, after=query.cursor)
        return page

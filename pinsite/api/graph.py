"""The follower graph: follow and unfollow as the requesting pinner, follower and following
lists, and the batch check.

Follow calls take no follower: they always act for the requesting pinner. Path IDs are checked
against the content store first, so a malformed, wrong-type or unknown ID is a 404; following
oneself or one's own board is a 400.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from graph import actions
from graph import selectors as graph
from graph.actions import FollowChange
from graph.interests import which_interests_followed
from graph.selectors import FollowPage
from pins import selectors as content
from pins.interests import taxonomy
from pins.types import BOARD, USER
from pinsite.api.base import PageView, PinsiteView
from pinsite.api.details import follow_entries
from pinsite.api.fields import path_id
from pinsite.api.pagination import PageQuery
from pinsite.api.permissions import IsPinner
from pinsite.api.serializers.graph import (
    BatchCheckQuery,
    BatchCheckSerializer,
    FollowChangeSerializer,
    FollowerSerializer,
    FollowStateSerializer,
)
from toolkit.paging import Page


def _user(text: str) -> int:
    """A user that exists, for reads that do not check it themselves."""
    return content.get_user(path_id(text, USER)).id


def _board(text: str) -> int:
    """A board that exists, for reads that do not check it themselves."""
    return content.get_board(path_id(text, BOARD)).id


class FollowView(PinsiteView):
    """The requesting pinner's follow of one user or board: its state, and changes to it."""

    permission_classes = [IsPinner]

    def changed(self, following: bool, change: FollowChange) -> Response:
        return self.render(FollowChangeSerializer, {"following": following,
                                                    "changed": change.changed})


class FollowUserView(FollowView):
    @extend_schema(responses={200: FollowStateSerializer},
                   summary="Whether you follow a user (all their boards) or some of their boards")
    def get(self, request: Request, user_id: str) -> Response:
        kind = graph.follow_kind(self.pinner_id(), _user(user_id))
        return self.render(FollowStateSerializer, {"following": kind == "explicit",
                                                   "kind": kind})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Follow a user and all their boards, present and future")
    def put(self, request: Request, user_id: str) -> Response:
        return self.changed(True, actions.follow_user(self.pinner_id(), _user_id(user_id)))

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Unfollow a user; boards followed one by one stay followed")
    def delete(self, request: Request, user_id: str) -> Response:
        return self.changed(False, actions.unfollow_user(self.pinner_id(), _user_id(user_id)))


class FollowBoardView(FollowView):
    @extend_schema(responses={200: FollowStateSerializer},
                   summary="Whether you follow a board, by itself or through its owner")
    def get(self, request: Request, board_id: str) -> Response:
        following = graph.is_following_board(self.pinner_id(), _board_id(board_id))
        return self.render(FollowStateSerializer, {"following": following, "kind": None})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Follow one board")
    def put(self, request: Request, board_id: str) -> Response:
        return self.changed(True, actions.follow_board(self.pinner_id(), _board_id(board_id)))

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Unfollow one board, also one followed through its owner")
    def delete(self, request: Request, board_id: str) -> Response:
        return self.changed(False, actions.unfollow_board(self.pinner_id(), _board_id(board_id)))


class FollowListView(PageView):
    """A page of follow entries: ``read(id, limit, cursor)`` of the user or board the path's
    ``kwarg`` names (``target`` checks that it exists)."""

    item_serializer = FollowerSerializer
    kwarg = "user_id"
    target: Callable[[str], int]
    read: Callable[..., FollowPage]

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        view = type(self)
        page = view.read(view.target(kwargs[self.kwarg]), query.limit, query.cursor)
        return Page(follow_entries(page.items), page.next_cursor)


class UserFollowersView(FollowListView):
    summary = "Who follows a user or some of their boards, newest first"
    target, read = staticmethod(_user), staticmethod(graph.followers_page)


class UserFollowingView(FollowListView):
    summary = "Whom a user follows, entirely or some boards, newest first"
    target, read = staticmethod(_user), staticmethod(graph.followings_page)


class BoardFollowersView(FollowListView):
    summary = "Who follows a board, by itself or through its owner, newest first"
    kwarg = "board_id"
    target, read = staticmethod(_board), staticmethod(graph.board_followers_page)


class BatchCheckView(PinsiteView):
    permission_classes = [IsPinner]

    @extend_schema(parameters=[BatchCheckQuery], responses={200: BatchCheckSerializer},
                   summary="Which of these users, boards and interests you follow")
    def get(self, request: Request) -> Response:
        query = BatchCheckQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        me = self.pinner_id()
        users = query.validated_data.get("users", {})
        boards = query.validated_data.get("boards", {})
        slugs = [s for s in query.validated_data.get("interests", "").split(",") if s]
        known = taxonomy().by_slug
        followed = set(which_interests_followed(me, [slug for slug in slugs if slug in known]))
        return self.render(BatchCheckSerializer, {
            "users": _answers(users, graph.which_users_followed(me, list(users.values()))),
            "boards": _answers(boards, graph.which_boards_followed(
                me, list(boards.values()), missing_ok=True)),
            "interests": {slug: slug in followed for slug in slugs}})


def _user_id(text: str) -> int:
    """A user ID, checked for its type only: the graph's action finds out if it exists (404)."""
    return path_id(text, USER)


def _board_id(text: str) -> int:
    """A board ID, checked for its type only: the graph finds out if it exists (404)."""
    return path_id(text, BOARD)


def _answers(asked: dict[str, int], followed: list[int]) -> dict[str, bool]:
    """``{ID as asked: followed?}``."""
    chosen = set(followed)
    return {text: object_id in chosen for text, object_id in asked.items()}

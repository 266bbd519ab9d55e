"""The follower graph: follow and unfollow as the requesting pinner, follower and following
lists, and the batch check.

Follow calls take no follower: they always act for the requesting pinner. Path IDs are checked
against the content store first, so a malformed, wrong-type or unknown ID is a 404; following
oneself or one's own board is a 400.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from graph import actions
from graph import selectors as graph
from graph.interests import which_interests_followed
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


class FollowUserView(PinsiteView):
    permission_classes = [IsPinner]

    @extend_schema(responses={200: FollowStateSerializer},
                   summary="Whether you follow a user (all their boards) or some of their boards")
    def get(self, request: Request, user_id: str) -> Response:
        kind = graph.follow_kind(self.pinner_id(), _user(user_id))
        return self.render(FollowStateSerializer, {"following": kind == "explicit",
                                                   "kind": kind})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Follow a user and all their boards, present and future")
    def put(self, request: Request, user_id: str) -> Response:
        change = actions.follow_user(self.pinner_id(), _user_id(user_id))
        return self.render(FollowChangeSerializer, {"following": True, "changed": change.changed})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Unfollow a user; boards followed one by one stay followed")
    def delete(self, request: Request, user_id: str) -> Response:
        change = actions.unfollow_user(self.pinner_id(), _user_id(user_id))
        return self.render(FollowChangeSerializer, {"following": False,
                                                    "changed": change.changed})


class FollowBoardView(PinsiteView):
    permission_classes = [IsPinner]

    @extend_schema(responses={200: FollowStateSerializer},
                   summary="Whether you follow a board, by itself or through its owner")
    def get(self, request: Request, board_id: str) -> Response:
        following = graph.is_following_board(self.pinner_id(), _board_id(board_id))
        return self.render(FollowStateSerializer, {"following": following, "kind": None})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Follow one board")
    def put(self, request: Request, board_id: str) -> Response:
        change = actions.follow_board(self.pinner_id(), _board_id(board_id))
        return self.render(FollowChangeSerializer, {"following": True, "changed": change.changed})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Unfollow one board, also one followed through its owner")
    def delete(self, request: Request, board_id: str) -> Response:
        change = actions.unfollow_board(self.pinner_id(), _board_id(board_id))
        return self.render(FollowChangeSerializer, {"following": False,
                                                    "changed": change.changed})


class UserFollowersView(PageView):
    item_serializer = FollowerSerializer
    summary = "Who follows a user or some of their boards, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> tuple[list[Any], str | None]:
        page = graph.followers_page(_user(kwargs["user_id"]), query.limit, query.cursor)
        return follow_entries(page.items), page.next_cursor


class UserFollowingView(PageView):
    item_serializer = FollowerSerializer
    summary = "Whom a user follows, entirely or some boards, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> tuple[list[Any], str | None]:
        page = graph.followings_page(_user(kwargs["user_id"]), query.limit, query.cursor)
        return follow_entries(page.items), page.next_cursor


class BoardFollowersView(PageView):
    item_serializer = FollowerSerializer
    summary = "Who follows a board, by itself or through its owner, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> tuple[list[Any], str | None]:
        page = graph.board_followers_page(_board(kwargs["board_id"]), query.limit, query.cursor)
        return follow_entries(page.items), page.next_cursor


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


def _user(text: str) -> int:
    """A user that exists, for reads that do not check it themselves."""
    return content.get_user(path_id(text, USER)).id


def _board(text: str) -> int:
    """A board that exists, for reads that do not check it themselves."""
    return content.get_board(path_id(text, BOARD)).id


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

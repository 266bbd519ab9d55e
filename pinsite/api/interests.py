"""Interests: the taxonomy, one interest with its follower count and its newest pins,
following one, and the interests the requesting pinner follows."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from graph import interests as follows
from pins import selectors
from pins.interests import interest, taxonomy
from pinsite.api.base import PageView, PinsiteView
from pinsite.api.pagination import PageQuery
from pinsite.api.permissions import IsPinner
from pinsite.api.serializers.graph import FollowChangeSerializer, FollowStateSerializer
from pinsite.api.serializers.pins import PinSerializer
from toolkit.paging import Page


class InterestSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField(read_only=True)
    name = serializers.CharField(read_only=True)


class TaxonomySerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(read_only=True,
                                       help_text="Rises when interests are added or renamed.")
    interests = InterestSerializer(many=True, read_only=True)


class InterestsView(PinsiteView):
    """Every interest of the taxonomy."""

    @extend_schema(responses={200: TaxonomySerializer}, summary="The interest taxonomy",
                   operation_id="interests_list")
    def get(self, request: Request) -> Response:
        return self.render(TaxonomySerializer, taxonomy())


class InterestDetailSerializer(InterestSerializer):
    follower_count = serializers.IntegerField(read_only=True,
                                              help_text="Exact, summed over its slices.")


class InterestView(PinsiteView):
    """One interest with its follower count."""

    @extend_schema(responses={200: InterestDetailSerializer},
                   summary="An interest and how many pinners follow it")
    def get(self, request: Request, slug: str) -> Response:
        topic = interest(slug)
        return self.render(InterestDetailSerializer, {
            "slug": topic.slug, "name": topic.name,
            "follower_count": follows.interest_follower_count(topic.slug)})


class InterestPinsView(PageView):
    """The pins made on boards with this interest (repins included), newest first, over
    every shard holding a slice of the interest's list."""

    item_serializer = PinSerializer
    summary = "An interest's pins, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        page = selectors.interest_pins_page(kwargs["slug"], limit=query.limit,
                                            after=query.cursor)
        return page


class FollowInterestView(PinsiteView):
    permission_classes = [IsPinner]

    @extend_schema(responses={200: FollowStateSerializer},
                   summary="Whether you follow an interest")
    def get(self, request: Request, slug: str) -> Response:
        following = follows.is_following_interest(self.pinner_id(), slug)
        return self.render(FollowStateSerializer, {"following": following, "kind": None})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Follow an interest")
    def put(self, request: Request, slug: str) -> Response:
        change = follows.follow_interest(self.pinner_id(), slug)
        return self.render(FollowChangeSerializer, {"following": True, "changed": change.changed})

    @extend_schema(request=None, responses={200: FollowChangeSerializer},
                   summary="Unfollow an interest")
    def delete(self, request: Request, slug: str) -> Response:
        change = follows.unfollow_interest(self.pinner_id(), slug)
        return self.render(FollowChangeSerializer, {"following": False,
                                                    "changed": change.changed})


class MyInterestsView(PinsiteView):
    permission_classes = [IsPinner]

    @extend_schema(responses={200: InterestSerializer(many=True)},
                   summary="The interests you follow")
    def get(self, request: Request) -> Response:
        followed = follows.followed_interests(self.pinner_id())
        return Response(InterestSerializer(followed, many=True).data)

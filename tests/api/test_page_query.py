"""A plainly asked first page skips the query serializer; whatever the query string, the page
query is the one the serializer makes of it, and a malformed one is the serializer's 400."""

from __future__ import annotations

from urllib.parse import urlencode

from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from pinsite.api.pagination import DEFAULT_LIMIT, PageQuery, PageQuerySerializer, page_query

limits = st.one_of(st.integers(-5, 200).map(str), st.sampled_from(["", " 5", "5 ", "+5", "1e2",
                                                                   "٣", "0007", "1234567"]),
                   st.text(max_size=4))
queries = st.lists(st.tuples(st.sampled_from(["limit", "limit", "other"]), limits), max_size=3)


def by_serializer(request: Request) -> PageQuery | str:
    checked = PageQuerySerializer(data=request.query_params)
    if not checked.is_valid():
        return str(sorted(checked.errors.items()))
    return PageQuery(cursor=None, limit=checked.validated_data.get("limit", DEFAULT_LIMIT))


def by_page_query(request: Request) -> PageQuery | str:
    try:
        return page_query(request)
    except serializers.ValidationError as exc:
        return str(sorted(exc.detail.items()))  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None)
@given(query=queries)
def test_the_page_query_is_the_serializers(query: list[tuple[str, str]]) -> None:
    request = Request(APIRequestFactory().get("/api/v1/me/feed/?" + urlencode(query)))
    assert by_page_query(request) == by_serializer(request)

"""Interest pages: the taxonomy with follow buttons, and one interest with its followers'
count and its newest pins (paged like a board's); following or unfollowing an interest."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from graph.interests import interest_follower_count
from pins.interests import all_interests, interest
from pins.selectors import interest_pins_page
from pinsite.web.acting import acting_pinner, viewer_context
from pinsite.web.errors import domain_errors
from pinsite.web.follows import change_follow
from pinsite.web.paging import PIN_PAGE, cursor_of, is_fragment, more_url, render_page


@domain_errors
def index(request: HttpRequest) -> HttpResponse:
    """Every interest, marked when the viewer follows it."""
    viewer = acting_pinner(request)
    followed = {topic.slug for topic in viewer.interests.iterator()} if viewer else set()
    return render(request, "interests/index.html", {
        "interests": [{"topic": topic, "following": topic.slug in followed,
                       "follow_url": reverse("interest-follow", args=[topic.slug])}
                      for topic in all_interests()],
        **viewer_context(viewer)})


@domain_errors
def detail(request: HttpRequest, slug: str) -> HttpResponse:
    """One interest: its follower count, for a pinner a follow button, and its newest pins
    (a fragment of the next page for the script needs only the pins)."""
    topic = interest(slug)
    viewer = acting_pinner(request)
    page = interest_pins_page(topic.slug, limit=PIN_PAGE, after=cursor_of(request))
    context: dict[str, Any] = {"topic": topic, **viewer_context(viewer),
                               "pins": page.items,
                               "more_url": more_url(request, page.next_cursor),
                               "empty_text": "No pins with this interest yet."}
    if not is_fragment(request):
        context.update(
            followers=interest_follower_count(topic.slug),
            following=viewer is not None and viewer.interests.contains(topic),
            follow_url=reverse("interest-follow", args=[topic.slug]))
    return render_page(request, "interests/detail.html", "partials/pin_grid.html", context)


@require_POST
@login_required
@domain_errors
def follow(request: HttpRequest, slug: str) -> HttpResponse:
    """Follow or unfollow the interest."""
    topic = interest(slug)
    return change_follow(request, topic, topic.name, reverse("interest", args=[topic.slug]))

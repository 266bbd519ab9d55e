"""The home pages: the smart feed ("For you") and the chronological following feed
("Following") for pinners, a welcome page for everyone else; and "Why am I seeing this?",
the records behind a pin of either feed."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from pins.domain import Pin
from pinsite.web.acting import acting_pinner, require_pinner
from pinsite.web.errors import domain_errors
from pinsite.web.paging import PIN_PAGE, cursor_of, more_url, render_page
from toolkit.clock import datetime_of


@domain_errors
def home(request: HttpRequest) -> HttpResponse:
    """The smart feed: new pins the generator chose for this visit, then what was shown
    before."""
    pinner = acting_pinner(request)
    if pinner is None:
        return render(request, "welcome.html")
    page = pinner.home.page(limit=PIN_PAGE, after=cursor_of(request))
    return render_page(request, "home.html", "partials/pin_grid.html", {
        "tab": "home", "pins": page.items, "new": page.new, "why_feed": "home",
        "more_url": more_url(request, page.next_cursor),
        "empty_text": "Nothing here yet. Follow pinners, boards or interests and pins picked "
                      "for you show up here.",
    })


@domain_errors
def following(request: HttpRequest) -> HttpResponse:
    """The pins of everyone and every board the pinner follows, newest first."""
    pinner = acting_pinner(request)
    if pinner is None:
        return render(request, "welcome.html")
    page = pinner.feed.page(limit=PIN_PAGE, after=cursor_of(request))
    return render_page(request, "home.html", "partials/pin_grid.html", {
        "tab": "following", "pins": page.items, "new": 0, "why_feed": "following",
        "more_url": more_url(request, page.next_cursor),
        "empty_text": "Your following feed is empty. Follow pinners or boards and their new "
                      "pins show up here.",
    })


FEEDS = {"home": "For you", "following": "Following"}


@login_required
@domain_errors
def why(request: HttpRequest, pin_id: int) -> HttpResponse:
    """Why a pin is, or is not, in one of the pinner's feeds (``?feed=home|following``), from
    the records (:mod:`feed.explain`, :mod:`feed.smart.explain`)."""
    pinner = require_pinner(request)
    feed = request.GET.get("feed", "following")
    if feed not in FEEDS:
        raise BadRequest("feed must be home or following")
    found = (pinner.home if feed == "home" else pinner.feed).explain(pin_id).as_json()
    for reason in found["reasons"]:
        at = reason["time_us"]
        reason["at"] = None if at is None else datetime_of(at)
    return render(request, "pins/why.html", {
        "pin": Pin.objects.in_bulk([pin_id]).get(pin_id), "pin_id": pin_id, "feed": feed,
        "feed_name": FEEDS[feed], "explanation": found})

"""The home pages: the smart feed ("For you") and the chronological following feed
("Following") for pinners, a welcome page for everyone else."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from pinsite.web.acting import acting_pinner
from pinsite.web.errors import domain_errors
from pinsite.web.paging import PIN_PAGE, cursor_of, more_url, render_page


@domain_errors
def home(request: HttpRequest) -> HttpResponse:
    """The smart feed: new pins the generator chose for this visit, then what was shown
    before."""
    pinner = acting_pinner(request)
    if pinner is None:
        return render(request, "welcome.html")
    page = pinner.home.page(limit=PIN_PAGE, after=cursor_of(request))
    return render_page(request, "home.html", "partials/pin_grid.html", {
        "tab": "home", "pins": page.items, "new": page.new,
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
        "tab": "following", "pins": page.items, "new": 0,
        "more_url": more_url(request, page.next_cursor),
        "empty_text": "Your following feed is empty. Follow pinners or boards and their new "
                      "pins show up here.",
    })

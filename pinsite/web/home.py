"""The home page: the following feed for pinners, a welcome page for everyone else."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from feed.selectors import feed_page
from pinsite.web.acting import acting_pinner
from pinsite.web.errors import domain_errors
from pinsite.web.paging import PIN_PAGE, cursor_of, more_url, render_page


@domain_errors
def home(request: HttpRequest) -> HttpResponse:
    """The pins of everyone and every board the pinner follows, newest first."""
    pinner = acting_pinner(request)
    if pinner is None:
        return render(request, "welcome.html")
    page = feed_page(pinner.user_id, limit=PIN_PAGE, after=cursor_of(request))
    return render_page(request, "home.html", "partials/pin_grid.html", {
        "pins": page.items, "more_url": more_url(request, page.next_cursor),
        "empty_text": "Your feed is empty. Follow pinners or boards and their new pins "
                      "show up here.",
    })

"""Cursor paging of the web UI: ``?after=<cursor>`` pages, and HTML fragments for scrolling.

Every list is read one page at a time through a selector's cursor; nothing loads a whole list.
A page requested with ``?fragment=1`` renders only its list part, which the script appends
to the list already on screen; without JavaScript the "More" link loads the full next page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from pinsite.cursors import seal, unseal

PIN_PAGE = 30
BOARD_PAGE = 24
PEOPLE_PAGE = 30
FRAGMENT = "fragment"


class RepeatedParameter(ValueError):
    """A paging parameter given more than once (``?after=a&after=b``): the 400 page."""

    def __init__(self, name: str) -> None:
        super().__init__(f"The page parameter “{name}” was given more than once.")


def cursor_of(request: HttpRequest) -> str | None:
    """The domain cursor of the request's ``after`` (none for the first page); one the site
    did not issue raises :class:`~pinsite.cursors.InvalidCursor`, a repeated one
    :class:`RepeatedParameter` (both the 400 page)."""
    tokens = request.GET.getlist("after")
    if len(tokens) > 1:
        raise RepeatedParameter("after")
    return unseal(tokens[0]) if tokens and tokens[0] else None


def more_url(request: HttpRequest, cursor: str | None) -> str | None:
    """The URL of the next page (this path, ``after=cursor``), or ``None`` at the end."""
    if cursor is None:
        return None
    return f"{request.path}?{urlencode({'after': seal(cursor)})}"


def is_fragment(request: HttpRequest) -> bool:
    return request.GET.get(FRAGMENT) == "1" or request.POST.get(FRAGMENT) == "1"


def render_page(request: HttpRequest, template: str, fragment: str,
                context: dict[str, Any]) -> HttpResponse:
    """The full page, or only its list (``fragment``) when the script asks for the next page."""
    return render(request, fragment if is_fragment(request) else template, context)

"""Credential limits on the web log-in, sign-up and the admin's log-in.

Every POST to a view under :func:`credential_limited` is an attempt counted against the
client's address and the username it names (:mod:`pinsite.serving.attempts`, the API's limits
too). Past the limit the answer is the 429 page, saying when to try again (and a
``Retry-After`` header); when the limiter's cache cannot be reached, the 503 page: the
attempt is refused, not let through.

>>> login_view = credential_limited(LoginView.as_view())
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render

from pinsite.serving.attempts import LimiterUnavailable, attempt_wait
from pinsite.serving.clients import client_address

View = Callable[..., HttpResponseBase]


def credential_limited(view: View) -> View:
    """``view`` with its POSTs limited as credential attempts."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method != "POST":
            return view(request, *args, **kwargs)
        try:
            wait = attempt_wait(client_address(request.META), request.POST.get("username"))
        except LimiterUnavailable:
            return render(request, "503.html", {"message": LimiterUnavailable.message},
                          status=503)
        if wait is not None:
            return too_many_attempts(request, wait)
        return view(request, *args, **kwargs)

    return wrapped


def too_many_attempts(request: HttpRequest, wait: int) -> HttpResponse:
    response = render(request, "429.html", {"wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response

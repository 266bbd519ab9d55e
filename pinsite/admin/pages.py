"""What every operators' page shares: rendering inside the admin, store errors shown as
messages instead of tracebacks, and the confirm-then-perform shape of actions, performed on
behalf of the signed-in operator (the actor the operator audit log records).

>>> def promote(request, master):
...     return confirmed_action(request, title=f"Promote the replica of {master}",
...                             details=[...], perform=lambda: report_of(failover.promote(master)),
...                             done="admin:operations-shards")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import messages
from django.core.exceptions import BadRequest, PermissionDenied
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from dramatiq.errors import BrokerError

from feed.exceptions import FeedError
from graph.exceptions import GraphError
from pins import selectors as content
from pins.domain import User
from pins.exceptions import ContentError
from pins.types import USER
from sharding.exceptions import MalformedObjectId, ShardingError
from sharding.ids import parse_id
from toolkit import acting
from toolkit.queue import QueueUnavailable

T = TypeVar("T")
STORE_ERRORS = (ShardingError, GraphError, FeedError, ContentError, DatabaseError, BrokerError,
                QueueUnavailable)
"""Errors an operators' page reports on the page: a store down, a refused action."""


def render_page(request: HttpRequest, template: str, title: str,
                context: dict[str, Any] | None = None) -> HttpResponse:
    """``admin/pinsite/<template>`` with the admin's own context (header, sidebar, user)."""
    site = request.admin_site  # type: ignore[attr-defined]
    return TemplateResponse(request, f"admin/pinsite/{template}",
                            {**site.each_context(request), "title": title, **(context or {})})


def attempt(read: Callable[[], T]) -> tuple[T | None, str | None]:
    """``(value, None)``, or ``(None, message)`` when a store cannot answer."""
    try:
        return read(), None
    except STORE_ERRORS as exc:
        return None, f"{type(exc).__name__}: {exc}"


def pinner_of(user_id: str) -> User:
    """The pinner an action's URL names: a 400 for a malformed ID, a 404 when no pinner has
    it (or the store cannot say)."""
    try:
        checked = parse_id(user_id, USER)
    except MalformedObjectId as exc:
        raise BadRequest(str(exc)) from exc
    user, error = attempt(lambda: content.get_user(checked))
    if user is None:
        raise Http404(error)
    return user


def confirmed_action(request: HttpRequest, *, title: str, details: list[str],
                     perform: Callable[[], str], done: str, **done_args: Any) -> HttpResponse:
    """``GET``: a page saying what will happen, with a form to confirm it. ``POST`` (CSRF
    checked by the admin, superusers only): do it as that operator
    (:func:`toolkit.acting.operator_of`), report the outcome as a message and return to the
    ``done`` page."""
    if request.method == "POST":
        if not getattr(request.user, "is_superuser", False):
            raise PermissionDenied("Only superusers may run operators' actions.")
        try:
            with acting.acting_as(acting.operator_of(request)):
                messages.success(request, perform())
        except STORE_ERRORS as exc:
            messages.error(request, f"{title}: not done. {type(exc).__name__}: {exc}")
        return redirect(done, **done_args)
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET", "POST"])
    return render_page(request, "confirm.html", title, {"details": details,
                                                        "may_act": request.user.is_superuser})

"""Why a pin is, or is not, in a pinner's feeds, for operators: the following feed's records
(:mod:`feed.explain`) and the Home feed's (:mod:`feed.smart.explain`) for any pinner and pin,
as the pinner's own "Why am I seeing this?" shows them. Linked from the feed audit's findings.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from pins.types import PIN
from pinsite.admin.pages import attempt, pinner_of, render_page
from sharding.exceptions import MalformedObjectId
from sharding.ids import parse_id


def explain(request: HttpRequest, user_id: str) -> HttpResponse:
    """A form for a pin ID; with one, both feeds' explanations."""
    user = pinner_of(user_id)
    text = request.GET.get("pin", "").strip()
    context: dict[str, Any] = {"pinner": user, "query": text}
    if text:
        try:
            pin_id = parse_id(text, PIN)
        except MalformedObjectId as exc:
            context["error"] = str(exc)
        else:
            context["feeds"] = [
                ("Following", *attempt(lambda: user.feed.explain(pin_id).as_json())),
                ("Home", *attempt(lambda: user.home.explain(pin_id).as_json()))]
    return render_page(request, "explain.html", f"Why a pin is in {user.username}'s feeds",
                       context)

"""The pinner a request acts as.

Views that change something need a logged-in account with a pinner profile; operators'
accounts (created with ``createsuperuser``) have none and get the 403 page there.

>>> me = require_pinner(request)
>>> create_board(me.user_id, "Quiche")
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from pins.models import Pinner
from pins.selectors import pinner_of_account


def acting_pinner(request: HttpRequest) -> Pinner | None:
    """The logged-in pinner, or ``None`` for anonymous visitors and operator accounts."""
    return pinner_of_account(request.user)


def viewer_context(viewer: Pinner | None) -> dict[str, Any]:
    """A page's ``viewer`` (the acting pinner, for the managers) and ``viewer_id`` (for the
    templates: who is looking, ``None`` for visitors)."""
    return {"viewer": viewer, "viewer_id": None if viewer is None else viewer.user_id}


def acting_user_id(request: HttpRequest) -> int | None:
    pinner = acting_pinner(request)
    return None if pinner is None else pinner.user_id


def require_pinner(request: HttpRequest) -> Pinner:
    """The logged-in pinner, or :class:`PermissionDenied` for an account without a profile."""
    pinner = acting_pinner(request)
    if pinner is None:
        raise PermissionDenied("This account has no pinner profile.")
    return pinner

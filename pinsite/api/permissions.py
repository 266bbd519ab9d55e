"""Who may call what: anyone reads; writes need a logged-in pinner, and act as that pinner.

Ownership of boards and pins is checked by the domain actions themselves (only the owner
changes or deletes), which raise :class:`~pins.exceptions.PermissionDenied` → 403. Follow
calls take no follower argument: they always act for the requesting pinner.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from pins.models import Pinner
from pins.selectors import pinner_of_account

NO_PINNER = "This account has no pinner profile; sign up as a pinner to use it here."


def acting_pinner(request: Request) -> Pinner:
    """The pinner behind the request's account (looked up once per request)."""
    pinner: Pinner | None = getattr(request, "_pinsite_pinner", None)
    if pinner is None:
        if not request.user or not request.user.is_authenticated:
            raise NotAuthenticated()
        pinner = pinner_of_account(request.user)
        if pinner is None:
            raise PermissionDenied(NO_PINNER)
        request._pinsite_pinner = pinner  # type: ignore[attr-defined]
    return pinner


class IsPinner(BasePermission):
    """Only a logged-in account with a pinner profile."""

    anonymous_methods: frozenset[str] = frozenset()

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in self.anonymous_methods:
            return True
        acting_pinner(request)
        return True


class ReadOnlyOrPinner(IsPinner):
    """Anyone may read; writing takes a logged-in pinner."""

    anonymous_methods = frozenset(SAFE_METHODS)


class IsAuthenticatedOrCredentials(BasePermission):
    """``POST`` (exchanging credentials or signing up) is open; the rest needs a login."""

    anonymous_methods = frozenset({"POST"})

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in self.anonymous_methods:
            return True
        if not request.user or not request.user.is_authenticated:
            raise NotAuthenticated()
        return True

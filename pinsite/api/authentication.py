"""Token authentication that loads the account and its pinner in one query.

Every API request with a token needs both: DRF's ``TokenAuthentication`` reads the token and
its account, and acting as a pinner read the ``Pinner`` row in a second query. Here the
pinner rides along (``select_related``), so :func:`pins.selectors.pinner_of_account` finds it
cached on the account.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token


class PinnerTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        try:
            token = Token.objects.select_related("user__pinner").get(key=key)
        except Token.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token

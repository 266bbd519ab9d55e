"""Token authentication that finds the account and its pinner in the shared cache.

Every API request with a token needs both: the account to authenticate, the ``Pinner`` to act
as a pinner. :func:`pinsite.api.tokens.token_of` returns the token with both attached (read in
one query on a miss), so :func:`pins.selectors.pinner_of_account` finds the pinner cached on the
account.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from pinsite.api.tokens import token_of


class PinnerTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token = token_of(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token

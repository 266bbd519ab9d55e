"""Domain errors as HTTP answers: every view runs under :func:`domain_errors`.

Bad or unknown IDs become the 404 page, acting on someone else's board or pin the 403 page,
input the domain rejects outside a form the 400 page, and a store that cannot serve the
request now (the credential attempt limiter too) the 503 page (the same kinds as the API's,
:mod:`pinsite.errors`). Nothing reaches the pinner as a traceback.

>>> @domain_errors
... def board(request, board_id): ...
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render

from pins import exceptions as content
from pinsite.cursors import InvalidCursor
from pinsite.errors import (
    STORE_INVALID,
    STORE_NOT_FOUND,
    UNAVAILABLE,
    Kinds,
    unavailable_message,
)
from pinsite.web.paging import RepeatedParameter

Answer = TypeVar("Answer", bound=HttpResponseBase)
logger = logging.getLogger("pinsite.web")

NOT_FOUND: Kinds = (content.NotFound, *STORE_NOT_FOUND)
BAD_REQUEST: Kinds = (content.InvalidContent, InvalidCursor, RepeatedParameter, *STORE_INVALID)


def domain_errors(view: Callable[..., Answer]) -> Callable[..., Answer | HttpResponse]:
    """Translate the domain's exceptions raised by ``view`` into error pages."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Answer | HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except BAD_REQUEST as exc:  # first: a malformed ID is also an invalid one (404)
            return render(request, "400.html", {"exception": str(exc)}, status=400)
        except NOT_FOUND as exc:
            raise Http404(str(exc)) from exc
        except content.PermissionDenied as exc:
            raise PermissionDenied(str(exc)) from exc
        except UNAVAILABLE as exc:
            logger.error("a store could not serve %s %s", request.method, request.path,
                         exc_info=exc)
            return render(request, "503.html", {"message": unavailable_message(exc)},
                          status=503)

    return wrapped

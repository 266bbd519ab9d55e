"""pinsite's own system checks (registered when the app is ready).

``manage.py check --deploy`` reports each development credential a settings module still
uses (:mod:`pinsite.credentials`) as an error whose hint names the variable to set. Every
command's checks refuse a malformed allow-list of the status endpoints.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from pinsite.credentials import CREDENTIALS, development_credentials
from pinsite.serving.access import allowed_networks
from pinsite.serving.conf import serving_settings


@checks.register(checks.Tags.security, deploy=True)
def check_credentials(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """An error for each development credential still in use."""
    found = development_credentials(settings)
    return [checks.Error(f"{credential.what} is the development stack's",
                         hint=f"set {credential.variable}", id=f"pinsite.E{index:03d}")
            for index, credential in enumerate(CREDENTIALS, start=1) if credential in found]


@checks.register(checks.Tags.security)
def check_status_allow_list(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """An error when ``PINSITE_STATUS_ALLOW`` holds something that is not a network."""
    try:
        allowed_networks(serving_settings.STATUS_ALLOW)
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), hint="comma-separated CIDRs, e.g. 10.0.0.0/8,127.0.0.1/32",
                             id="pinsite.E100")]
    return []

"""Production settings: ``pinsite.settings`` hardened for serving behind HTTPS.

``DJANGO_SETTINGS_MODULE=pinsite.production_settings`` with ``PINSITE_SECRET_KEY`` (required,
at least 50 characters), real credentials for MySQL and RabbitMQ (the development stack's are
refused: :mod:`pinsite.credentials`) and ``PINSITE_ALLOWED_HOSTS`` set; ``manage.py check
--deploy`` passes without warnings. Behind a TLS-terminating proxy, set
``PINSITE_BEHIND_TLS_PROXY=1`` so the ``X-Forwarded-Proto`` header it sets tells Django the
request was secure.
"""

import os
import sys

from django.core.exceptions import ImproperlyConfigured

from pinsite import env
from pinsite.credentials import development_credentials
from pinsite.settings import *  # noqa: F403

SECRET_KEY = os.environ.get("PINSITE_SECRET_KEY", "")
_refused = [] if len(SECRET_KEY) >= 50 and len(set(SECRET_KEY)) >= 5 else [
    "PINSITE_SECRET_KEY must be set to a random secret of at least 50 characters in production"]
_refused += [credential.refusal for credential in development_credentials(sys.modules[__name__])
             if credential.variable != "PINSITE_SECRET_KEY"]
if _refused:
    raise ImproperlyConfigured("production settings refuse to start:\n  " + "\n  ".join(_refused))

DEBUG = False
PINSITE_SERVE_MEDIA = env.flag("PINSITE_SERVE_MEDIA", False)

SECURE_SSL_REDIRECT = env.flag("PINSITE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env.number("PINSITE_HSTS_SECONDS", 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
if env.flag("PINSITE_BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = [origin for origin in
                        env.text("PINSITE_CSRF_TRUSTED_ORIGINS", "").split(",") if origin]
X_FRAME_OPTIONS = "DENY"

# Static files under content-hashed names, served by WhiteNoise with far-future cache headers
# (``collectstatic`` writes the manifest; ``manage.py runsite`` runs it at start).
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

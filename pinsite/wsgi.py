"""WSGI entry point: Django, with streamed request bodies cut at the upload limit
(:func:`pinsite.serving.bodies.bounded_streams`)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.settings")
django_application = get_wsgi_application()

from pinsite.serving.bodies import bounded_streams  # noqa: E402  (needs Django set up)

application = bounded_streams(django_application)

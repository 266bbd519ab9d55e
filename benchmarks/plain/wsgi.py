"""The plain peer's WSGI application (``gunicorn benchmarks.plain.wsgi``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.plain.settings")
application = get_wsgi_application()

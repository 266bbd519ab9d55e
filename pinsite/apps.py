"""Django app configuration for the project shell."""

from django.apps import AppConfig


class PinsiteConfig(AppConfig):
    name = "pinsite"
    verbose_name = "pinsite"

    def ready(self) -> None:
        from pinsite import checks  # noqa: F401  (registers the deployment checks)
        from pinsite.api import tokens
        from pinsite.serving import request_signals
        from toolkit import queue

        queue.configure_broker()
        tokens.connect()
        request_signals.trim()

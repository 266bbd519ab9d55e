"""Django app configuration for the project shell."""

from django.apps import AppConfig


class PinsiteConfig(AppConfig):
    name = "pinsite"
    verbose_name = "pinsite"

    def ready(self) -> None:
        from toolkit import queue

        queue.configure_broker()

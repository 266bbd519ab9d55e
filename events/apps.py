"""Django app configuration for domain events."""

from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Domain events"

    def ready(self) -> None:
        from events import mappings
        from events.middleware import RelayMiddleware
        from toolkit.queue import ensure_middleware

        mappings.connect()
        ensure_middleware(RelayMiddleware)

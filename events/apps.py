"""Django app configuration for domain events."""

from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Domain events"

    def ready(self) -> None:
        import dramatiq

        from events import mappings
        from events.middleware import RelayMiddleware

        mappings.connect()
        broker = dramatiq.get_broker()
        if not any(isinstance(m, RelayMiddleware) for m in broker.middleware):
            broker.add_middleware(RelayMiddleware())

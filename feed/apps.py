"""Django app configuration for the following feed."""

from django.apps import AppConfig


class FeedConfig(AppConfig):
    name = "feed"
    verbose_name = "Following feed"

    def ready(self) -> None:
        import dramatiq

        from feed import receivers
        from feed.middleware import AuditMiddleware, DepthSamplerMiddleware

        receivers.connect()
        from feed import managers  # gives the domain classes their feed managers
        del managers
        broker = dramatiq.get_broker()
        for kind in (DepthSamplerMiddleware, AuditMiddleware):
            if not any(isinstance(m, kind) for m in broker.middleware):
                broker.add_middleware(kind())

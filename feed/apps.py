"""Django app configuration for the following feed."""

from django.apps import AppConfig


class FeedConfig(AppConfig):
    name = "feed"
    verbose_name = "Following feed"

    def ready(self) -> None:
        from feed import receivers
        from feed.middleware import AuditMiddleware, DepthSamplerMiddleware
        from toolkit.queue import ensure_middleware

        receivers.connect()
        from feed import managers  # gives the domain classes their feed managers
        del managers
        ensure_middleware(DepthSamplerMiddleware)
        ensure_middleware(AuditMiddleware)

"""Django app configuration for the following feed."""

from django.apps import AppConfig


class FeedConfig(AppConfig):
    name = "feed"
    verbose_name = "Following feed"

    def ready(self) -> None:
        from feed import receivers

        receivers.connect()

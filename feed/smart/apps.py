"""Django app configuration for the smart home feed (``feed/smart``)."""

from django.apps import AppConfig


class SmartFeedConfig(AppConfig):
    name = "feed.smart"
    label = "smartfeed"
    verbose_name = "Smart home feed"

    def ready(self) -> None:
        from feed.smart import receivers

        receivers.connect()
        from feed.smart import managers  # gives the domain classes their feed.smart managers
        del managers

"""Django app configuration for the content domain."""

from django.apps import AppConfig


class PinsConfig(AppConfig):
    name = "pins"
    verbose_name = "Pins"

    def ready(self) -> None:
        from pins import types  # noqa: F401  (registers object types and mapping tables)

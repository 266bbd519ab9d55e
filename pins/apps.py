"""Django app configuration for the content domain."""

from django.apps import AppConfig


class PinsConfig(AppConfig):
    name = "pins"
    verbose_name = "Pins"

    def ready(self) -> None:
        from pins import receivers, types  # types registers object types and mapping tables

        receivers.connect()
        from pins import managers  # gives the domain classes their pins managers
        del managers
        del types

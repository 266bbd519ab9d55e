"""Django app configuration for the follower graph."""

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "graph"
    verbose_name = "Follower graph"

    def ready(self) -> None:
        from graph import receivers, tables  # tables registers the edge-log mapping tables

        receivers.connect()
        from graph import managers  # gives the domain classes their graph managers
        del managers
        del tables

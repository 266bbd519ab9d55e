"""Django app configuration for the follower graph."""

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "graph"
    verbose_name = "Follower graph"

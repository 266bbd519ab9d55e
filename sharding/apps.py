"""Django app configuration for the sharding layer."""

from django.apps import AppConfig


class ShardingConfig(AppConfig):
    name = "sharding"
    verbose_name = "Sharding"

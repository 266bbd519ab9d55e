"""Django app configuration for the sharding layer."""

from typing import Any

from django.apps import AppConfig


class ShardingConfig(AppConfig):
    name = "sharding"
    verbose_name = "Sharding"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        connection_created.connect(_time_queries, dispatch_uid="sharding.time_queries")


def _time_queries(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Every query of every MySQL connection (Django's own and each shard host's) is timed
    under its alias (``pinsite_store_call_seconds{backend="mysql"}``)."""
    if not any(isinstance(w, _QueryTimer) for w in connection.execute_wrappers):
        connection.execute_wrappers.append(_QueryTimer(connection.alias))


class _QueryTimer:
    def __init__(self, alias: str) -> None:
        self.alias = alias

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        from toolkit.metrics import store_call

        with store_call("mysql", self.alias):
            return execute(sql, params, many, context)

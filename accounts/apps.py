"""Django app configuration for accounts: deletion and data exports."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts import receivers
        from accounts.middleware import ExportSweepMiddleware
        from toolkit.queue import ensure_middleware

        receivers.connect()
        from accounts import managers  # gives pinners their ``exports`` manager
        del managers
        ensure_middleware(ExportSweepMiddleware)

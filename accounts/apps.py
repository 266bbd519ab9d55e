"""Django app configuration for accounts: deletion and data exports."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        import dramatiq

        from accounts import receivers
        from accounts.middleware import ExportSweepMiddleware

        receivers.connect()
        from accounts import managers  # gives pinners their ``exports`` manager
        del managers
        broker = dramatiq.get_broker()
        if not any(isinstance(m, ExportSweepMiddleware) for m in broker.middleware):
            broker.add_middleware(ExportSweepMiddleware())

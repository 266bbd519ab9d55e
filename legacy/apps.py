"""Django app configuration for importing a legacy one-database site."""

from django.apps import AppConfig


class LegacyConfig(AppConfig):
    name = "legacy"
    verbose_name = "Legacy import"
    default_auto_field = "django.db.models.BigAutoField"

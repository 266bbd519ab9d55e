"""Django app configuration for the operator audit log."""

from django.apps import AppConfig


class AuditLogConfig(AppConfig):
    name = "auditlog"
    verbose_name = "Operator audit log"
    default_auto_field = "django.db.models.BigAutoField"

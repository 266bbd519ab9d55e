"""The operator audit log in the admin: read-only, filterable by action, actor kind, outcome
and date, searchable by target, actor and arguments (a split's new master, a move's target)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from auditlog.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Entries are written by the operations themselves (:mod:`auditlog.operations`) and
    never edited or deleted here."""

    list_display = ["started", "action", "target", "actor_kind", "actor", "outcome", "seconds",
                    "error"]
    list_filter = ["action", "actor_kind", "outcome", ("started", admin.DateFieldListFilter)]
    search_fields = ["target", "actor", "actor_detail", "arguments"]
    ordering = ["-started", "-id"]
    show_full_result_count = False
    readonly_fields = ["action", "target", "arguments", "actor_kind", "actor", "actor_detail",
                       "process", "started", "finished", "seconds", "outcome", "error", "result"]

    def has_view_permission(self, request: HttpRequest, obj: AuditEntry | None = None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest,
                              obj: AuditEntry | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest,
                              obj: AuditEntry | None = None) -> bool:
        return False

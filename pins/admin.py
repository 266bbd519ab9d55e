"""The pinner index in the admin: read-only, searchable by username and user ID."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from pins.models import Pinner


@admin.register(Pinner)
class PinnerAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Pinners are created by sign-up (``pins.actions.create_pinner``) and never edited here."""

    list_display = ["username", "user_id_text", "created", "operations"]
    search_fields = ["account__username", "=user_id"]
    list_select_related = ["account"]
    ordering = ["-created"]
    readonly_fields = ["account", "user_id", "created"]
    show_full_result_count = False

    @admin.display(description="User ID", ordering="user_id")
    def user_id_text(self, pinner: Pinner) -> str:
        return str(pinner.user_id)

    @admin.display(description="Operations")
    def operations(self, pinner: Pinner) -> str:
        return format_html('<a href="{}">follower state</a> · <a href="{}?id={}">lookup</a> · '
                           '<a href="{}">delete account</a>',
                           reverse("admin:operations-pinner", args=[pinner.user_id]),
                           reverse("admin:operations-lookup"), pinner.user_id,
                           reverse("admin:operations-pinner-delete", args=[pinner.user_id]))

    def has_view_permission(self, request: HttpRequest, obj: Pinner | None = None) -> bool:
        return bool(request.user.is_active and request.user.is_staff)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Pinner | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Pinner | None = None) -> bool:
        return False

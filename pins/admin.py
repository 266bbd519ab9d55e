"""The pinner index in the admin: read-only, searchable by username and user ID, with one
confirmed action: deleting the selected pinners' accounts (as each pinner could), each
recorded in the operator audit log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from pins.actions.pinners import delete_account_for_staff
from pins.models import Pinner
from toolkit import acting


@admin.register(Pinner)
class PinnerAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Pinners are created by sign-up (``pins.actions.create_pinner``) and never edited here."""

    list_display = ["username", "user_id_text", "created", "operations"]
    search_fields = ["account__username", "=user_id"]
    list_select_related = ["account"]
    ordering = ["-created"]
    readonly_fields = ["account", "user_id", "created"]
    show_full_result_count = False
    actions = ["delete_accounts"]

    @admin.action(description="Delete the selected pinners' accounts…")
    def delete_accounts(self, request: HttpRequest, queryset: QuerySet[Pinner]) -> Any:
        """Ask for confirmation, then (superusers only) start deleting each account: signed
        out at once, everything deleted in the background by the queue."""
        if not getattr(request.user, "is_superuser", False):
            self.message_user(request, "Only superusers may delete accounts.", messages.ERROR)
            return None
        pinners = list(queryset.select_related("account"))
        if request.POST.get("confirmed") != "yes":
            return TemplateResponse(request, "admin/pins/pinner/delete_accounts.html", {
                **self.admin_site.each_context(request), "title": "Delete accounts",
                "pinners": pinners, "action": "delete_accounts",
                "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)})
        with acting.acting_as(acting.operator_of(request)):
            for pinner in pinners:
                delete_account_for_staff(pinner.user_id, pinner.account.get_username())
        self.message_user(request, f"Deleting {len(pinners)} account(s): queued.",
                          messages.SUCCESS)
        return None

    @admin.display(description="User ID", ordering="user_id")
    def user_id_text(self, pinner: Pinner) -> str:
        return str(pinner.user_id)

    @admin.display(description="Operations")
    def operations(self, pinner: Pinner) -> str:
        return format_html('<a href="{}">follower state</a> · <a href="{}">smart feed</a> · '
                           '<a href="{}?id={}">lookup</a> · <a href="{}">delete account</a>',
                           reverse("admin:operations-pinner", args=[pinner.user_id]),
                           reverse("admin:operations-smartfeed-pinner", args=[pinner.user_id]),
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

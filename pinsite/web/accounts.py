"""Sign up, log in, log out, the account page, delete one's account."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.conf import accounts_settings
from graph.interests import follow_interest
from pins.actions import create_pinner
from pins.actions.pinners import request_account_deletion
from pinsite.serving.attempts import credential_limited
from pinsite.web.acting import require_pinner
from pinsite.web.errors import domain_errors
from pinsite.web.forms import SignupForm, saved

login_view = domain_errors(credential_limited(
    LoginView.as_view(template_name="accounts/login.html", redirect_authenticated_user=True)))
logout_view = LogoutView.as_view(next_page="home")


@domain_errors
@credential_limited
def signup(request: HttpRequest) -> HttpResponse:
    """Create a pinner and log them in."""
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        pinner = saved(form, lambda: create_pinner(data["username"], data["password1"],
                                                   data["email"], data["display_name"]))
        if pinner is not None:
            for slug in data["interests"]:
                follow_interest(pinner.user_id, slug)
            login(request, pinner.account, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {pinner.username}! Follow pinners or boards "
                                      "to fill your home feed.")
            return redirect("home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@domain_errors
def account(request: HttpRequest) -> HttpResponse:
    """The pinner's account: the data export (ask for one, its state, the download link)
    and the way to deletion."""
    me = require_pinner(request)
    return render(request, "accounts/account.html", {
        "username": me.username, "email": me.account.email, "export": me.exports.current(),
        "keep_days": accounts_settings.number("EXPORT_KEEP_DAYS")})


@login_required
@domain_errors
def delete_account(request: HttpRequest) -> HttpResponse:
    """Ask for confirmation (the username, typed again), then delete the account: it is signed
    out at once and everything it made goes in the background."""
    me = require_pinner(request)
    error = ""
    if request.method == "POST":
        if request.POST.get("username", "").strip().lower() == me.username.lower():
            request_account_deletion(me.user_id)
            logout(request)
            messages.success(request, f"The account {me.username} is being deleted, with its "
                                      "boards, pins and follows. Goodbye!")
            return redirect("home")
        error = "Type your username exactly to confirm."
    return render(request, "accounts/delete.html", {"username": me.username, "error": error},
                  status=400 if error else 200)

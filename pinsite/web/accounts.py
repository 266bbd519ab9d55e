"""Sign up, log in, log out."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from pins.actions import create_pinner
from pins.exceptions import InvalidContent
from pinsite.web.errors import domain_errors
from pinsite.web.forms import SignupForm, add_domain_error

login_view = LoginView.as_view(template_name="accounts/login.html",
                               redirect_authenticated_user=True)
logout_view = LogoutView.as_view(next_page="home")


@domain_errors
def signup(request: HttpRequest) -> HttpResponse:
    """Create a pinner and log them in."""
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            pinner = create_pinner(data["username"], data["password1"], data["email"],
                                   data["display_name"])
        except InvalidContent as exc:
            add_domain_error(form, exc)
        else:
            login(request, pinner.account, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {pinner.username}! Follow pinners or boards "
                                      "to fill your home feed.")
            return redirect("home")
    return render(request, "accounts/signup.html", {"form": form})

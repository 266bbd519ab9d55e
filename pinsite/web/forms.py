"""Forms of the web UI. They check the shape of the input; the domain actions check its
content (``InvalidContent``), and :func:`add_domain_error` shows that message on its field.

>>> form = BoardForm(request.POST)
>>> if form.is_valid():
...     board = saved(form, lambda: create_board(me.user_id, **form.cleaned_data))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django import forms

from pins.domain import Board
from pins.exceptions import InvalidContent
from pins.interests import all_interests
from pins.validation import (
    BOARD_NAME_MAX,
    DESCRIPTION_MAX,
    DISPLAY_NAME_MAX,
    LINK_MAX,
    TITLE_MAX,
    USERNAME_LENGTH,
)

ACCEPTED_IMAGES = "image/jpeg,image/png,image/gif,image/webp"
FIELD_ALIASES = {"password": "password1"}
T = TypeVar("T")


def saved(form: forms.Form, action: Callable[[], T]) -> T | None:
    """What ``action()`` returns, or None when the domain refuses the form's content: the
    :class:`InvalidContent` is then shown on the form (:func:`add_domain_error`)."""
    try:
        return action()
    except InvalidContent as exc:
        add_domain_error(form, exc)
        return None


def add_domain_error(form: forms.Form, error: InvalidContent) -> None:
    """Show a domain error on the field it names (or on the form as a whole)."""
    field = FIELD_ALIASES.get(error.field or "", error.field)
    form.add_error(field if field in form.fields else None, error.message)


def board_choices(boards: Iterable[Board]) -> list[tuple[str, str]]:
    return [(str(board.id), board.name) for board in boards]


class SignupForm(forms.Form):
    username = forms.CharField(min_length=USERNAME_LENGTH[0], max_length=USERNAME_LENGTH[1],
                               help_text="3 to 30 letters, digits and @ . + - _",
                               widget=forms.TextInput(attrs={"autocomplete": "username",
                                                             "autofocus": True}))
    display_name = forms.CharField(label="Name", max_length=DISPLAY_NAME_MAX, required=False,
                                   help_text="Shown on your profile (optional).",
                                   widget=forms.TextInput(attrs={"autocomplete": "name"}))
    email = forms.EmailField(required=False, help_text="Optional.",
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password1 = forms.CharField(label="Password", strip=False,
                                widget=forms.PasswordInput(attrs={"autocomplete":
                                                                  "new-password"}))
    password2 = forms.CharField(label="Password again", strip=False,
                                widget=forms.PasswordInput(attrs={"autocomplete":
                                                                  "new-password"}))
    interests = forms.MultipleChoiceField(
        choices=(), required=False, widget=forms.CheckboxSelectMultiple,
        label="Interests to follow", help_text="Pick a few topics you like (optional).")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["interests"].choices = _interest_choices()  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first, second = cleaned.get("password1"), cleaned.get("password2")
        if first and second and first != second:
            self.add_error("password2", "The two passwords differ.")
        return cleaned


class BoardForm(forms.Form):
    name = forms.CharField(max_length=BOARD_NAME_MAX,
                           widget=forms.TextInput(attrs={"autofocus": True}))
    description = forms.CharField(max_length=DESCRIPTION_MAX, required=False,
                                  widget=forms.Textarea(attrs={"rows": 3}))
    interest = forms.ChoiceField(choices=(), required=False,
                                 help_text="Its pins carry it (optional).")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["interest"].choices = [  # type: ignore[attr-defined]
            ("", "No interest"), *_interest_choices()]


class PinForm(forms.Form):
    board = forms.ChoiceField(choices=())
    image = forms.FileField(widget=forms.ClearableFileInput(attrs={"accept": ACCEPTED_IMAGES}),
                            help_text="JPEG, PNG, GIF or WebP, up to 10 MB.")
    title = forms.CharField(max_length=TITLE_MAX)
    description = forms.CharField(max_length=DESCRIPTION_MAX, required=False,
                                  widget=forms.Textarea(attrs={"rows": 3}))
    link = forms.CharField(max_length=LINK_MAX, required=False,
                           widget=forms.URLInput(attrs={"placeholder": "https://"}),
                           help_text="Where the image comes from (optional).")

    def __init__(self, *args: Any, boards: Iterable[Board] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["board"].choices = board_choices(boards)  # type: ignore[attr-defined]


class RepinForm(forms.Form):
    board = forms.ChoiceField(choices=(), label="Save to")

    def __init__(self, *args: Any, boards: Iterable[Board] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["board"].choices = board_choices(boards)  # type: ignore[attr-defined]


def _interest_choices() -> list[tuple[str, str]]:
    return [(item.slug, item.name) for item in all_interests()]

"""Accounts: tokens for credentials, sign-up, and the requesting pinner (``/me/``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request
from rest_framework.response import Response

from pins.actions import create_pinner
from pins.actions.pinners import request_account_deletion
from pins.selectors import get_user, pinner_of_account
from pinsite.api.base import PinsiteView
from pinsite.api.details import user_detail
from pinsite.api.fields import ANY_TEXT, ObjectIdField, TextField
from pinsite.api.permissions import IsAuthenticatedOrCredentials, IsPinner, acting_pinner
from pinsite.api.serializers.users import MeSerializer, SignUpInput, UserSerializer
from pinsite.api.throttles import CredentialThrottle


class CredentialsInput(serializers.Serializer[Any]):
    username = TextField(max_length=150, allow_blank=False, pattern=ANY_TEXT)
    password = TextField(max_length=128, allow_blank=False, pattern=ANY_TEXT,
                         style={"input_type": "password"})


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(read_only=True,
                                  help_text="Send as `Authorization: Token <token>`.")
    user_id = ObjectIdField(read_only=True, allow_null=True,
                            help_text="The pinner's user ID; null for accounts without one.")


class TokenView(PinsiteView):
    """The API token of an account: one per account, kept until revoked."""

    permission_classes = [IsAuthenticatedOrCredentials]
    throttle_classes = [CredentialThrottle]

    @extend_schema(request=CredentialsInput, responses={200: TokenSerializer},
                   summary="Exchange a username and password for the account's API token")
    def post(self, request: Request) -> Response:
        data = self.checked(CredentialsInput)
        account = authenticate(request._request, username=data["username"],
                               password=data["password"])
        if account is None:
            raise AuthenticationFailed("Unable to log in with those credentials.")
        token, _ = Token.objects.get_or_create(user=account)
        pinner = pinner_of_account(account)
        return self.render(TokenSerializer,
                           {"token": token.key, "user_id": pinner.user_id if pinner else None})

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Revoked.")},
                   summary="Revoke the account's API token")
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=request.user).delete()
        return Response(status=204)


class SignUpView(PinsiteView):
    """Sign-up: a new pinner with a password."""

    permission_classes = [IsAuthenticatedOrCredentials]
    throttle_classes = [CredentialThrottle]

    @extend_schema(request=SignUpInput, responses={201: UserSerializer},
                   summary="Sign up a new pinner")
    def post(self, request: Request) -> Response:
        data = self.checked(SignUpInput)
        pinner = create_pinner(data["username"], data["password"], data.get("email", ""),
                               data.get("display_name", ""))
        location = request.build_absolute_uri(reverse("api-user", args=[pinner.user_id]))
        return self.render(UserSerializer, get_user(pinner.user_id), status=201,
                           headers={"Location": location})


class DeletionSerializer(serializers.Serializer[Any]):
    deleting = serializers.BooleanField(read_only=True)
    user_id = ObjectIdField(read_only=True)
    detail = serializers.CharField(read_only=True)


class MeView(PinsiteView):
    """The requesting pinner."""

    permission_classes = [IsPinner]

    @extend_schema(responses={200: MeSerializer}, summary="The requesting pinner")
    def get(self, request: Request) -> Response:
        pinner = acting_pinner(request)
        account = request.user
        return self.render(MeSerializer, {**user_detail(pinner.user_id),
                                          "email": getattr(account, "email", ""),
                                          "is_staff": bool(getattr(account, "is_staff", False))})

    @extend_schema(request=None, responses={202: DeletionSerializer},
                   summary="Delete your account and everything you made")
    def delete(self, request: Request) -> Response:
        """Deletes the requesting pinner's account: at once it can no longer sign in (tokens
        and sessions stop working); boards, pins, images, follows both ways and feeds are
        deleted in the background, and then the username is free again. Repins others made
        of your pins stay."""
        pinner = acting_pinner(request)
        request_account_deletion(pinner.user_id)
        return self.render(DeletionSerializer, {
            "deleting": True, "user_id": pinner.user_id,
            "detail": "Your account is being deleted."}, status=202)


class ApiRootSerializer(serializers.Serializer[Any]):
    version = serializers.CharField(read_only=True)
    schema = serializers.URLField(read_only=True)
    docs = serializers.URLField(read_only=True)


class ApiRootView(PinsiteView):
    """Where the API's schema and documentation are."""

    @extend_schema(responses={200: ApiRootSerializer}, summary="API version and documentation")
    def get(self, request: Request) -> Response:
        return self.render(ApiRootSerializer, {
            "version": "1", "schema": request.build_absolute_uri(reverse("schema")),
            "docs": request.build_absolute_uri(reverse("api-docs"))})


"""The explanation of a pin in the requesting pinner's feeds (:mod:`feed.explain`)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from pins.types import PIN
from pinsite.api.fields import ObjectIdField


class ExplainQuery(serializers.Serializer[Any]):
    pin = ObjectIdField(PIN, help_text="The pin to explain.")


class ReasonSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="What the record says, for scripts: `delivered`, "
                                 "`followed_board`, `not_followed`, `trimmed`, `shown`, ...")
    source = serializers.CharField(help_text="The record: `pins`, `edge_log`, `outbox`, "
                                   "`feed:primary`, `feed:standby`, `fanout`, `dead_letters`, "
                                   "`pulled`, `materialized`, `pools`.")
    text = serializers.CharField()
    time = serializers.CharField(allow_null=True, help_text="When (ISO 8601), if the record "
                                 "says.")
    detail = serializers.DictField(help_text="The record's own fields.")


class FeedExplanationSerializer(serializers.Serializer[Any]):
    present = serializers.BooleanField(help_text="Whether the pin is in the feed as it is read.")
    reasons = ReasonSerializer(many=True)


class ExplanationSerializer(FeedExplanationSerializer):
    home = FeedExplanationSerializer(help_text="The same for the smart home feed.")

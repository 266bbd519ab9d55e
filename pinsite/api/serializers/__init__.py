"""Serializers of the API: read models out (``…Serializer``), checked input in (``…Input``)."""

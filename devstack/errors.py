"""Exceptions raised by the local stack manager."""

from __future__ import annotations


class DevstackError(Exception):
    """A stack operation failed; the message is one line meant for a person."""


class ProfileError(DevstackError):
    """The profile name or its port base is invalid."""


class StartError(DevstackError):
    """A service did not start or did not become healthy.

    ``log_tail`` holds the last lines of the service's logs, printed after the message.
    """

    def __init__(self, service: str, reason: str, log_tail: str = "") -> None:
        super().__init__(f"{service}: {reason}")
        self.service = service
        self.reason = reason
        self.log_tail = log_tail


class StopError(DevstackError):
    """A stopped or killed service's process, or a port it listened on, outlived the deadline."""

    def __init__(self, service: str, reason: str) -> None:
        super().__init__(f"{service}: {reason}")
        self.service = service
        self.reason = reason


class FencedError(DevstackError):
    """A fenced old master was asked to start; the message says what to run instead."""


class CommandFailed(DevstackError):
    """An external command (client, installer) exited with an error."""

"""Domain errors: each says which rule was broken, in a player's words, with a stable reason."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error the rules engine raises."""


class InvalidOptions(RulesError, ValueError):
    """An unknown preset, option or value, or a combination the engine cannot honour."""

    def __init__(self, message: str, field: str = "options"):
        super().__init__(message)
        self.field = field


class IllegalAction(RulesError):
    """An action the rules forbid now. ``reason`` is stable (e.g. ``MUST_FOLLOW_SUIT``)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalAction({self.reason}: {self.message})"

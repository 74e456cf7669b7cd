"""Errors with one clear line: which file, line and field, and what was expected."""

from __future__ import annotations


class CardrefError(Exception):
    """Base of the errors the command line reports as one line and a non-zero exit."""


class FileError(CardrefError):
    """A file that cannot be read or written: missing, a folder, not UTF-8, not JSON or YAML,
    a full disk, a file where a folder should be."""


class ConfigError(CardrefError):
    """A game or layout configuration that cannot be used."""


class ObservationError(CardrefError):
    """An observation that is malformed (not merely illegal): bad JSON, card, zone or field."""


class IllegalMove(Exception):
    """Raised inside a game when a move breaks the rules; becomes a REJECT, state unchanged."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class InvariantError(AssertionError):
    """A state that breaks a game invariant (cards lost or duplicated, bad arithmetic)."""


def where(path: str | None, line: int | None = None, field: str | None = None) -> str:
    """Format ``file:line: field`` for the start of an error line."""
    parts = [p for p in (path, str(line) if line is not None else None) if p]
    loc = ":".join(parts)
    if field:
        loc = f"{loc}: field '{field}'" if loc else f"field '{field}'"
    return loc

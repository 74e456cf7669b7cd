"""The append-only game log: a header line, then every observation the referee was fed.

Each line is flushed and fsynced before the referee acts on it, so a crash or a lost camera
loses nothing; replaying the log rebuilds the identical state (the rules are deterministic).
The header names the game, its variants and the version of its rules (``Game.rules_version``):
a log written under other rules still replays, but :func:`version_note` says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee import files
from referee.errors import ObservationError, where
from referee.observations import FORMAT_VERSION, Observation


@dataclass
class LogContents:
    game: str
    variants: dict[str, Any]
    observations: list[Observation]
    rules_version: int | None = None  # None: written before headers carried one


def version_note(path: str | Path, contents: LogContents, rules_version: int) -> str | None:
    """One line saying that the log at ``path`` was written under other rules of its game than
    ``rules_version``, or None when they are the same."""
    if contents.rules_version == rules_version:
        return None
    written = ("before rules versions were recorded" if contents.rules_version is None
               else f"under {contents.game} rules version {contents.rules_version}")
    return (f"{path}: written {written}, replayed under version {rules_version}: "
            "the referee may not say what it said during the game")


def _header_rules_version(header: dict, path: Path) -> int | None:
    value = header.get("rules")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ObservationError(f"{where(str(path), 1)}: field 'rules': expected a rules version "
                               f"(a whole number from 1), got {value!r}")
    return value


def read_log(path: str | Path) -> LogContents:
    """The header and observations of a game log. A torn last line (a crash mid-write) was
    never acted on and is left out; a last line complete but for its newline is kept."""
    p = Path(path)
    lines = files.jsonl_lines(files.read_bytes(p, "game log"), p)
    if not lines:
        raise ObservationError(f"{p}: empty game log (expected a header line)")
    n, first = lines[0]
    header = files.parse_json(first, where(str(p), n), ObservationError)
    if not (isinstance(header, dict) and header.get("type") == "header"
            and isinstance(header.get("game"), str)):
        raise ObservationError(f"{where(str(p), n)}: expected a header with type 'header' and 'game'")
    version = header.get("format", FORMAT_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
        raise ObservationError(
            f"{where(str(p), n, 'format')}: expected a log format 1..{FORMAT_VERSION}, got {version!r}"
        )
    variants = header.get("variants", {})
    if not isinstance(variants, dict):
        raise ObservationError(f"{where(str(p), n, 'variants')}: expected a mapping of rule variants")
    observations = [
        Observation.from_json(files.parse_json(line, where(str(p), n), ObservationError), where(str(p), n))
        for n, line in lines[1:]
    ]
    return LogContents(header["game"], dict(variants), observations, _header_rules_version(header, p))


class GameLog:
    """Appends observations to ``path``; creates it with a header if it does not exist."""

    def __init__(self, path: str | Path, game: str, variants: dict[str, Any], rules_version: int = 1):
        self.path = Path(path)
        if self.path.exists() and self.path.stat().st_size > 0:
            existing = read_log(self.path)
            if existing.game != game:
                raise ObservationError(f"{self.path}: log is of game {existing.game!r}, not {game!r}")
            files.repair_tail(self.path)
        else:
            header = {"type": "header", "format": FORMAT_VERSION, "game": game, "rules": rules_version,
                      "variants": variants}
            self._write(json.dumps(header, sort_keys=True))

    def _write(self, line: str) -> None:
        files.append_line(self.path, line)

    def append(self, obs: Observation) -> None:
        self._write(obs.to_line())

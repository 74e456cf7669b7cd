"""The append-only game log: a header line, then every observation the referee was fed.

Each line is flushed and fsynced before the referee acts on it, so a crash or a lost camera
loses nothing; replaying the log rebuilds the identical state (the rules are deterministic).
The header names the game, its variants and the version of its rules (``Game.rules_version``):
a log written under other rules still replays, but :func:`version_note` says so.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ObservationError(f"{p}: cannot read game log: {e.strerror}") from None
    if not lines:
        raise ObservationError(f"{p}: empty game log (expected a header line)")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as e:
        raise ObservationError(f"{where(str(p), 1)}: header is not valid JSON: {e.msg}") from None
    if not isinstance(header, dict) or header.get("type") != "header" or "game" not in header:
        raise ObservationError(f"{where(str(p), 1)}: expected a header with type 'header' and 'game'")
    observations = []
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):  # a line cut short by a crash: it was never acted on
                break
            raise ObservationError(f"{where(str(p), n)}: not valid JSON") from None
        observations.append(Observation.from_json(obj, where(str(p), n)))
    return LogContents(header["game"], dict(header.get("variants", {})), observations,
                       _header_rules_version(header, p))


class GameLog:
    """Appends observations to ``path``; creates it with a header if it does not exist."""

    def __init__(self, path: str | Path, game: str, variants: dict[str, Any], rules_version: int = 1):
        self.path = Path(path)
        if self.path.exists() and self.path.stat().st_size > 0:
            existing = read_log(self.path)
            if existing.game != game:
                raise ObservationError(f"{self.path}: log is of game {existing.game!r}, not {game!r}")
            self._truncate_partial_line()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            header = {"type": "header", "format": FORMAT_VERSION, "game": game, "rules": rules_version,
                      "variants": variants}
            self._write(json.dumps(header, sort_keys=True))

    def _truncate_partial_line(self) -> None:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            with self.path.open("r+b") as fh:
                fh.truncate(keep)

    def _write(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def append(self, obs: Observation) -> None:
        self._write(obs.to_line())

"""Reading a detector recipe (``configs/detector/*.yaml``) into its dataclass."""

from __future__ import annotations

from pathlib import Path

import yaml

from referee.errors import ConfigError


def load_config(cls, path: str | Path, what: str):
    """``cls(**fields)`` from the YAML file at ``path``, or a one-line error naming the file and
    what is wrong: unreadable, not a mapping, an unknown field or a wrong value."""
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{p}: cannot read {what}: {e}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: expected a mapping of {what} settings")
    unknown = set(raw) - set(cls.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"{p}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        return cls(**raw)
    except TypeError as e:
        raise ConfigError(f"{p}: {e}") from None

"""Game configuration: ``configs/games/<game>.yaml`` declares each variant, its allowed
values (the first is the default) and a one-line reason; ``--set key=value`` overrides."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from referee import files
from referee.errors import ConfigError
from referee.paths import configs_dir


@dataclass(frozen=True)
class VariantSpec:
    """One configurable rule: allowed ``choices`` (strings) or an integer range."""

    key: str
    default: Any
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    doc: str = ""

    def coerce(self, value: Any, loc: str) -> Any:
        if self.choices:
            text = _text(value)
            allowed = [_text(c) for c in self.choices]
            if text not in allowed:
                raise ConfigError(
                    f"{loc}: variant '{self.key}': expected one of {', '.join(allowed)}, got {text!r}"
                )
            return self.choices[allowed.index(text)]
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{loc}: variant '{self.key}': expected an integer, got {value!r}") from None
        if (self.minimum is not None and number < self.minimum) or (
            self.maximum is not None and number > self.maximum
        ):
            raise ConfigError(
                f"{loc}: variant '{self.key}': expected {self.minimum}..{self.maximum}, got {number}"
            )
        return number


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@dataclass(frozen=True)
class GameConfig:
    name: str
    variants: dict[str, Any]
    specs: dict[str, VariantSpec] = field(default_factory=dict)
    source: str = ""


V = TypeVar("V")


def typed_variants(cls: type[V], config: GameConfig) -> V:
    """The configured values as a game's frozen ``Variants`` dataclass, so a rule reads
    ``v.castle_model`` and a typo fails at once. The YAML and the class must name the same
    variants: one only the YAML declares would be silently ignored by the rules."""
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    extra, missing = sorted(config.variants.keys() - fields), sorted(fields - config.variants.keys())
    if extra or missing:
        where = config.source or config.name
        raise ConfigError(f"{where}: variants {extra or missing} are "
                          f"{'unknown to' if extra else 'missing for'} the {config.name} referee")
    return cls(**config.variants)


def game_config_path(name: str) -> Path:
    return configs_dir() / "games" / f"{name}.yaml"


def load_game_config(
    name: str, overrides: dict[str, Any] | None = None, path: str | Path | None = None
) -> GameConfig:
    """Read a game's YAML and apply overrides; every error names the file and field."""
    p = Path(path) if path else game_config_path(name)
    raw = files.read_yaml(p, "game config")
    if not isinstance(raw, dict) or raw.get("game") != name:
        raise ConfigError(f"{p}: field 'game': expected {name!r}")
    variants = raw.get("variants") or {}
    if not isinstance(variants, dict):
        raise ConfigError(f"{p}: field 'variants': expected a mapping")
    specs: dict[str, VariantSpec] = {}
    for key, entry in variants.items():
        loc = f"{p}: field 'variants.{key}'"
        if not isinstance(entry, dict) or ("choices" not in entry and "min" not in entry):
            raise ConfigError(f"{loc}: expected a mapping with 'choices' or 'min'/'max'")
        if "choices" in entry:
            choices = entry["choices"]
            if not isinstance(choices, list) or not all(isinstance(c, str | int | bool) for c in choices):
                raise ConfigError(f"{loc}.choices: expected a list of names or numbers, got {choices!r}")
            if not choices:
                raise ConfigError(f"{loc}: 'choices' is empty")
            spec = VariantSpec(key, choices[0], tuple(choices), doc=str(entry.get("doc", "")))
        else:
            low, high = _integer(entry, "min", loc), _integer(entry, "max", loc, required=False)
            spec = VariantSpec(key, _integer(entry, "default", loc), (), low, high, str(entry.get("doc", "")))
            spec.coerce(spec.default, f"{loc}.default")
        specs[key] = spec
    values = {k: s.default for k, s in specs.items()}
    for key, value in (overrides or {}).items():
        if key not in specs:
            raise ConfigError(
                f"{p}: unknown variant '{key}' for {name} (known: {', '.join(sorted(specs))})"
            )
        values[key] = specs[key].coerce(value, str(p))
    return GameConfig(name, values, specs, str(p))


def _integer(entry: dict[str, Any], field: str, loc: str, required: bool = True) -> int | None:
    """An integer field of a variant's entry, or a one-line error naming it."""
    if field not in entry and not required:
        return None
    value = entry.get(field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{loc}.{field}: expected an integer, got {value!r}")
    return value


def parse_set_options(items: list[str] | None) -> dict[str, str]:
    """``["castle_model=hit_points_10"]`` to a dict; malformed items raise ConfigError."""
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item or not item.split("=", 1)[0]:
            raise ConfigError(f"--set {item!r}: expected key=value")
        key, value = item.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def other_variants(name: str) -> list[dict[str, str]]:
    """Every non-default value of each variant of a game, one at a time, as ``--set``
    overrides (``{"castle_model": "hit_points_10"}``): what playout tests and benches sweep."""
    return [{key: _text(choice)} for key, spec in load_game_config(name).specs.items()
            for choice in spec.choices[1:]]

"""Where the project's data lives: configs/, models/, datasets/ at the repository root.

cardref is installed editable from its repository (``make``), so these folders sit next to
the packages. ``CARDREF_HOME`` points elsewhere when needed.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    env = os.environ.get("CARDREF_HOME")
    return Path(env) if env else Path(__file__).resolve().parents[1]


def configs_dir() -> Path:
    return project_root() / "configs"


def models_dir() -> Path:
    return project_root() / "models"


def datasets_dir() -> Path:
    return project_root() / "datasets"

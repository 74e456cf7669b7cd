"""Run the ``cardref`` command line as a user would (a subprocess in the repository root)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cardref(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vision.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input=stdin,
    )

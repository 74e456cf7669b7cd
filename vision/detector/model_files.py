"""Opening model files: the one place a ``.onnx`` or ``.pt`` is checked and loaded, so that a
missing, truncated or foreign file is one line naming it, before any other work starts."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from referee.errors import CardrefError


def check_model_file(path: str | Path, what: str = "model",
                     suffixes: tuple[str, ...] = (".onnx", ".pt")) -> Path:
    """``path`` as a Path if it is a file with one of ``suffixes``, else a one-line error."""
    p = Path(path)
    if p.is_dir():
        raise CardrefError(f"{p}: is a folder, expected a {what} file ({' or '.join(suffixes)})")
    if not p.exists():
        raise CardrefError(f"{p}: {what} not found (expected a {' or '.join(suffixes)} file)")
    if p.suffix not in suffixes:
        raise CardrefError(f"{p}: expected a {what} file ending {' or '.join(suffixes)}")
    return p


def check_weights(path: str | Path, what: str = "weights") -> Path:
    """A PyTorch checkpoint (``.pt``) checked cheaply before minutes of rendering or mining:
    torch saves a zip archive holding ``data.pkl``; anything else cannot be loaded."""
    p = check_model_file(path, what, (".pt",))
    try:
        with zipfile.ZipFile(p) as archive:
            ok = any(name.endswith("data.pkl") for name in archive.namelist())
    except (zipfile.BadZipFile, OSError):
        ok = False
    if not ok:
        raise CardrefError(f"{p}: not PyTorch {what} (a damaged or foreign file)")
    return p


def load_checkpoint(path: str | Path, what: str = "weights") -> Any:
    """``torch.load`` of a checked checkpoint on the CPU; a failure is one line."""
    import torch

    p = check_weights(path, what)
    try:
        return torch.load(p, map_location="cpu")
    except Exception as e:  # torch raises many kinds for a damaged archive
        raise CardrefError(f"{p}: cannot load {what}: {_brief(e)}") from None


def open_onnx(path: str | Path, runtime: str, threads: int | None, what: str = "model"):
    """The runner (``vision.detector.onnx_backend.RUNNERS``) of an ``.onnx`` file; a file the
    runtime cannot parse is one line naming it, not the runtime's traceback."""
    from vision.detector.onnx_backend import RUNNERS

    p = check_model_file(path, what, (".onnx",))
    try:
        return RUNNERS[runtime](p, threads)
    except CardrefError:
        raise
    except Exception as e:  # ONNX Runtime and OpenVINO raise their own exception types
        raise CardrefError(f"{p}: not an ONNX {what} {runtime} can load ({_brief(e)})") from None


def load_yolo(path: str | Path, what: str = "weights"):
    """Ultralytics' ``YOLO`` of checked ``.pt`` weights (or a model ``.yaml`` it builds)."""
    from ultralytics import YOLO

    p = Path(path)
    if p.suffix == ".pt":
        check_weights(p, what)
    try:
        return YOLO(str(p))
    except Exception as e:  # Ultralytics raises many kinds for a file it cannot use
        raise CardrefError(f"{p}: cannot load {what}: {_brief(e)}") from None


def _brief(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return " ".join(text[-1].split()) if text else type(e).__name__

"""``cardref`` entry point. Subcommands live in their own modules and are imported lazily, so
``cardref --help`` is instant and the referee commands never load the vision stack."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

from referee.errors import CardrefError

# name -> (module, one-line help). Each module has ``build_parser(prog)`` and ``run(args)``.
COMMANDS: dict[str, tuple[str, str]] = {
    "referee": ("vision.commands.referee", "referee a game from a JSONL file of observations"),
    "play": ("vision.commands.play", "interactive terminal referee: type observations"),
    "simulate": ("vision.commands.simulate", "random legal playouts and a summary"),
    "eval": ("vision.commands.eval", "score a detector: synthetic held-out set and real photos"),
    "train": ("vision.commands.train", "train or fine-tune the card detector, export ONNX"),
    "detect": ("vision.commands.detect", "find and name cards in images, a folder or a video"),
    "synth": ("vision.commands.synth", "render a labelled synthetic card-table dataset (YOLO)"),
    "live": ("vision.commands.live", "referee a game at the table through a webcam"),
    "replay": ("vision.commands.replay", "referee a recorded game video: events, subtitles, report"),
    "calibrate": ("vision.commands.calibrate", "calibrate the camera: mat markers or table corners"),
    "collect": ("vision.commands.collect", "collect pre-labelled camera frames to retrain the detector"),
    "review": ("vision.commands.review", "check and fix collected labels in the browser (loopback)"),
    "mat": ("vision.commands.mat", "print the play mat of a game: zones and calibration markers"),
    "render-game": ("vision.commands.render_game", "render a seeded random game as a labelled video"),
}


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: cardref COMMAND [options]   (cardref COMMAND --help for details)", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"cardref: error: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    if hasattr(sys.stdin, "reconfigure"):  # typed bytes that are not UTF-8 become an error line
        sys.stdin.reconfigure(errors="replace")
    module = importlib.import_module(COMMANDS[name][0])
    parser: argparse.ArgumentParser = module.build_parser(f"cardref {name}")
    # A mistyped option is one line too, not the usage block (``--help`` shows that).
    parser.error = lambda message: sys.exit(_error(name, f"{message} (see cardref {name} --help)"))
    args = parser.parse_args(rest)
    try:
        return int(module.run(args) or 0)
    except BrokenPipeError:
        return _closed_pipe()
    except CardrefError as e:
        return _error(name, str(e))
    except OSError as e:  # a file error that no reader or writer named: still one line
        where = e.filename if e.filename is not None else ""
        return _error(name, f"{where}: {e.strerror or e}" if where else str(e.strerror or e))
    except KeyboardInterrupt:
        print(f"cardref {name}: interrupted", file=sys.stderr)
        return 130


def _error(name: str, message: str) -> int:
    """The one line a failed command prints, its message folded onto a single line."""
    text = " ".join(message.split())
    with contextlib.suppress(BrokenPipeError):
        print(f"cardref {name}: error: {text}", file=sys.stderr, flush=True)
    return 2


def _closed_pipe() -> int:
    """The reader of stdout went away (``cardref referee ... | head``): stop quietly, as ``cat``
    does; stdout is pointed at /dev/null so that the interpreter's own flush at exit is quiet."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, as a shell reports it


if __name__ == "__main__":
    sys.exit(main())

"""The referee's modules import each other without a cycle: read from the source, each module's
imports at module level (not those under ``if TYPE_CHECKING:`` or inside a function) form a
graph with no loop, and no module of a game imports its own package (its ``__init__``)."""

from __future__ import annotations

import ast
from pathlib import Path

import referee

ROOT = Path(referee.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Modules ``path`` imports when it is loaded (``from x import y`` counts ``x.y`` when that
    is a module, else ``x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in tree.body:  # module level only: function bodies and TYPE_CHECKING blocks run later or never
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per dot after the first
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    return {name: {m for m in _imports(path, name) if m in files and m != name}
            for name, path in files.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_referee_modules_import_without_a_cycle() -> None:
    graph = _graph()
    assert len(graph) > 50 and "referee.games.royal_family.rules" in graph
    # a package's __init__ importing its own modules is how a package exports; a loop through
    # it is one of its modules importing the package back
    loaded = {n: {m for m in deps if not m.startswith(n + ".")} for n, deps in graph.items()}
    assert _cycle(loaded) is None, " -> ".join(_cycle(loaded) or [])
    assert _cycle({**loaded, "referee.cards": {"referee.core"}}) is not None  # core imports cards


def test_no_module_of_a_game_imports_its_own_package() -> None:
    graph = _graph()
    games = [n for n in graph if n.count(".") == 2 and n.startswith("referee.games.")]
    assert len(games) == 5
    for game in games:
        for module in (n for n in graph if n.startswith(game + ".")):
            assert game not in graph[module], f"{module} imports {game} (its own package)"


def test_every_game_has_the_same_modules() -> None:
    """One shape for the five games (docs/architecture.md): the same modules, a frozen
    ``Variants`` and the ``Game`` class exported by the package as the registry loads it."""
    import dataclasses
    import importlib

    from referee.core import Game, Simulator
    from referee.games import GAMES

    shape = {"__init__", "game", "state", "moves", "variants", "rules", "observe", "sim"}
    for name in GAMES:
        folder = ROOT / "games" / name
        assert shape <= {p.stem for p in folder.glob("*.py")}, name
        package = importlib.import_module(f"referee.games.{name}")
        assert issubclass(package.GAME, Game) and issubclass(package.SIMULATOR, Simulator)
        assert package.GAME.name == name and getattr(package, package.GAME.__name__) is package.GAME
        assert dataclasses.is_dataclass(package.GAME.variants)
        assert package.GAME.variants.__dataclass_params__.frozen

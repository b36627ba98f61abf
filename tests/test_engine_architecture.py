"""The engine's modules import one way: Game (service/game/engine.py) is the façade on top, and nothing below it
imports it — not even for a type — nor does any engine module import itself back.

import-linter (pyproject.toml, "Below the façade, the engine never imports it") checks the first with the imports
that run; its graph leaves out imports under ``if TYPE_CHECKING:`` (a setting of the whole run), so this reads the
sources with ``ast`` and counts every import: at the top, in functions, under ``if TYPE_CHECKING:``. It counts too
what Python does on ``import a.b.c``: it loads the package ``a.b`` first (its ``__init__``), so a package's
``__init__`` that imports its own modules joins them in a cycle. Not counted: service/game/__init__.py, the
package's door (it checks the build and re-exports Game), which Python loads before any module of the engine.
"""

import ast
import graphlib
from pathlib import Path

import pytest

GAME = Path(__file__).resolve().parents[1] / "service" / "game"
# The modules that may import the engine: the package's door, and the bots, which play Games.
ABOVE_THE_FACADE = {"service.game", "service.game.bots", "service.game.botseat", "service.game.search"}


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module under ``root`` (the package ``package``), by dotted name; a package by its own name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([package, *parts])] = path
    return found


def imports(root: Path, package: str) -> dict[str, set[str]]:
    """Each module's imports of modules of the package, type-only ones and Python's loading of the packages that
    hold an imported module included (the top package's ``__init__`` excepted, see the module docstring)."""
    known = modules(root, package)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = here[: len(here) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            for target in targets:
                parts = target.split(".")
                for end in range(len(package.split(".")) + 1, len(parts) + 1):  # the packages Python loads first
                    module = ".".join(parts[:end])
                    if module in known and module != name:
                        graph[name].add(module)
    return graph


def importers_of(graph: dict[str, set[str]], module: str) -> set[str]:
    return {name for name, imported in graph.items() if module in imported}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (its modules, the first repeated at the end), or None."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return None


def test_the_scan_counts_type_only_imports_and_packages_loaded_first(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg.engine import Game\n")
    (pkg / "engine.py").write_text("from pkg.rules import turn\n")
    (pkg / "rules" / "__init__.py").write_text("from pkg.rules import turn\n")
    (pkg / "rules" / "turn.py").write_text(
        "from typing import TYPE_CHECKING\nfrom pkg import helpers\nif TYPE_CHECKING:\n    from pkg.engine import Game\n"
    )
    (pkg / "rules" / "common.py").write_text("def f():\n    from . import turn\n")
    (pkg / "helpers.py").write_text("from pkg.rules.common import f\n")
    graph = imports(pkg, "pkg")
    assert importers_of(graph, "pkg.engine") == {"pkg", "pkg.rules.turn"}  # the type-only import counts
    assert "pkg" not in graph["pkg.rules.turn"]  # the package's door, which Python loads first, does not
    assert graph["pkg.rules.common"] == {"pkg.rules.turn", "pkg.rules"}
    assert graph["pkg.helpers"] == {"pkg.rules", "pkg.rules.common"}  # pkg.rules's __init__ is loaded first
    found = cycle(graph)
    assert found is not None and found[0] == found[-1]
    (pkg / "rules" / "turn.py").write_text("")
    (pkg / "rules" / "common.py").write_text("")
    assert cycle(imports(pkg, "pkg")) is None


def test_below_the_facade_nothing_imports_the_engine():
    """The rules, the card table, the answers ahead, auto-play, the questions and the views work on a
    table.Table; only the package's door and the bots import engine.Game."""
    graph = imports(GAME, "service.game")
    assert "service.game.engine" in graph and "service.game.table" in graph
    assert importers_of(graph, "service.game.engine") - ABOVE_THE_FACADE == set()


@pytest.mark.parametrize(
    "module",
    [
        "service.game.rules",
        "service.game.answers",
        "service.game.autoplay",
        "service.game.observer",
        "service.game.registry",
        "service.game.questions",
        "service.game.config",
    ],
)
def test_what_works_on_the_table_reaches_no_game(module):
    """Not even through another module: what these import, all the way down, holds no engine nor bot."""
    graph = imports(GAME, "service.game")
    reached, todo = set(), [name for name in graph if name == module or name.startswith(module + ".")]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(graph[name])
    assert reached & ABOVE_THE_FACADE == set()
    assert reached & {"service.game.engine"} == set()


def test_no_engine_module_imports_itself_back():
    assert cycle(imports(GAME, "service.game")) is None

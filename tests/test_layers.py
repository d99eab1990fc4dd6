"""The package's layers, read from the source with ``ast`` (docs/development.md, "Layers").

* Nothing below the doors (``commands/``, ``hooks/``, ``ci/``, ``mcpserver/``, ``cli.py``,
  ``__main__.py``) imports a door, not even inside a function or for type checking only.
* The modules import each other without a cycle at module level (an import inside a
  function runs later, when every module is loaded, so it cannot form one).
* No module is longer than 450 lines unless its docstring says why.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "skillsift"
DOOR_PACKAGES = ("skillsift.commands", "skillsift.hooks", "skillsift.ci", "skillsift.mcpserver")
DOOR_MODULES = ("skillsift.cli", "skillsift.__main__")
MAX_LINES = 450
REASON = "Longer than 450 lines because"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_door(module: str) -> bool:
    return module in DOOR_MODULES or any(module == p or module.startswith(p + ".") for p in DOOR_PACKAGES)


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module named by a ``from ... import`` statement in ``module``."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """(imported skillsift module, line, at module level) for every import in ``module``.

    ``from a import b`` names the submodule ``a.b`` when there is one, else the module ``a``.
    An import under a function, or under ``if TYPE_CHECKING:``, is not at module level.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, False)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(child, False)
            elif isinstance(child, ast.Import):
                out.extend((alias.name, child.lineno, top) for alias in child.names
                           if alias.name.split(".")[0] == "skillsift")
            elif isinstance(child, ast.ImportFrom):
                target = _resolve(module, path, child)
                if target.split(".")[0] != "skillsift":
                    continue
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    out.append((sub if sub in known else target, child.lineno, top))
            else:
                visit(child, top)

    visit(tree, True)
    return out


def _graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: line} for the imports at module level."""
    known = _modules()
    graph: dict[str, dict[str, int]] = {}
    for module, path in known.items():
        edges = graph.setdefault(module, {})
        for target, line, top in _imports(module, path, known):
            if top and target != module and target in known:
                edges.setdefault(target, line)
    return graph


def _cycle(graph: dict[str, dict[str, int]]) -> list[str]:
    """One import cycle as a list of modules (first repeated last), or [] when there is none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = walk(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = walk(node)
            if found:
                return found
    return []


def test_the_package_is_found():
    modules = _modules()
    assert "skillsift.cli" in modules and "skillsift.ranker.search" in modules
    assert len(modules) > 100


def test_nothing_below_the_doors_imports_a_door():
    known = _modules()
    wrong = []
    for module, path in known.items():
        if _is_door(module):
            continue
        for target, line, _top in _imports(module, path, known):
            if _is_door(target):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert wrong == []


def test_the_door_check_sees_imports_inside_functions_and_for_type_checking(tmp_path):
    source = tmp_path / "skillsift" / "render" / "x.py"
    source.parent.mkdir(parents=True)
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from ..ci.verdict import CiRun\n"
                      "def f():\n    from ..commands import eval_cmd\n    import skillsift.hooks.index\n",
                      encoding="utf-8")
    found = _imports("skillsift.render.x", source, {"skillsift.commands.eval_cmd": source})
    assert [(t, top) for t, _line, top in found] == [
        ("skillsift.ci.verdict", False), ("skillsift.commands.eval_cmd", False), ("skillsift.hooks.index", False)]
    assert all(_is_door(t) for t, _line, _top in found)


def test_relative_imports_resolve_from_packages_and_modules(tmp_path):
    node = ast.parse("from ..words import plural").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _resolve("skillsift.evaluate.run", PACKAGE / "evaluate" / "run.py", node) == "skillsift.words"
    assert _resolve("skillsift.evaluate", PACKAGE / "evaluate" / "__init__.py", node) == "skillsift.words"
    node = ast.parse("from . import CASES_INVALID").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _resolve("skillsift.evaluate.cases", PACKAGE / "evaluate" / "cases.py", node) == "skillsift.evaluate"


def test_no_import_cycle_at_module_level():
    assert _cycle(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": 1}, "b": {}}) == []


def test_long_modules_say_why():
    unexplained = []
    for path in _modules().values():
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if lines <= MAX_LINES:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if REASON not in doc:
            unexplained.append(f"{path.relative_to(PACKAGE.parent)}: {lines} lines")
    assert unexplained == []

"""The size limits docs/development.md sets for functions, held on every module of the package.

* No function or method in ``skillsift/`` is above cyclomatic complexity 25, as radon counts it
  (radon is in the ``test`` extra).
* No function in ``skillsift/commands/`` (the command-line doors) is longer than 50 lines: a door
  parses, calls one use case, renders and picks the exit code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from radon.complexity import cc_visit

PACKAGE = Path(__file__).resolve().parents[1] / "skillsift"
MAX_COMPLEXITY = 25
MAX_DOOR_LINES = 50


def _complex(source: str) -> list[tuple[str, int]]:
    found = []
    for block in cc_visit(source):
        for item in [block, *getattr(block, "methods", [])]:
            if item.complexity > MAX_COMPLEXITY:
                found.append((f"{item.name}:{item.lineno}", item.complexity))
    return found


def _long_functions(source: str) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_DOOR_LINES:
                found.append((f"{node.name}:{node.lineno}", length))
    return found


def test_no_function_in_the_package_is_above_complexity_25():
    found = {str(path.relative_to(PACKAGE)): hits for path in sorted(PACKAGE.rglob("*.py"))
             if (hits := _complex(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_no_command_function_is_longer_than_50_lines():
    found = {path.name: hits for path in sorted((PACKAGE / "commands").glob("*.py"))
             if (hits := _long_functions(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_counts_see_a_function_that_breaks_them():
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(MAX_COMPLEXITY + 1))
    source = f"def f(x):\n{branches}\n    return -1\n"
    assert _complex(source) == [("f:1", MAX_COMPLEXITY + 2)]
    assert _long_functions(source) == [("f:1", 2 * (MAX_COMPLEXITY + 1) + 2)]

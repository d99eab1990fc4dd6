"""The package's layers, read from the source with ``ast`` (docs/development.md, "Layers").

The layers are data (:data:`LAYERS`); docs/development.md's table is checked against it. Every
import counts: at module level, inside a function and under ``if TYPE_CHECKING:``.

* Nothing below the doors (``commands/``, ``hooks/``, ``ci/``, ``mcpserver/``, ``cli.py``,
  ``__main__.py``) imports a door.
* No module imports a module of a higher layer.
* No import cycle between modules, and none between packages (a unit of the layer table).
* The modules import each other without a cycle at module level.
* No module is longer than 450 lines unless its docstring says why.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "skillsift"
DOOR_PACKAGES = ("skillsift.commands", "skillsift.hooks", "skillsift.ci", "skillsift.mcpserver")
DOOR_MODULES = ("skillsift.cli", "skillsift.__main__")
# (layer, rank, units, what it does): a unit is a top-level folder (``x/``) or a loose top-level module
# (``x.py``) of skillsift; a module belongs to the unit holding it. Higher ranks may import lower and
# equal ones.
LAYERS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("doors", 7, ("commands/", "hooks/", "ci/", "mcpserver/", "cli.py", "__main__.py"),
     "parse arguments, call a use case, render, choose the exit code"),
    ("use cases", 6, ("usecases/",),
     "open a project; validate, evaluate, judge, tune, build the index, draft the files of `init`"),
    ("checks", 5, ("checks/",), "one module per check: its declarations, what it finds, the fixes it offers"),
    ("validators", 4, ("validators/",),
     "the workspace the checks read, the runner, the registry's declarations, suppressions and the check cache"),
    ("render", 3, ("render/",), "text, JSON, JUnit, SARIF, Markdown, HTML and the pull-request report"),
    ("engine", 2, ("ranker/", "index/", "embed/", "evaluate/", "skill_sources/", "judge/"),
     "ranking, the index files, embedding providers, one evaluation run and its metrics, skills of other "
     "repositories and the config that attaches them, the agent as judge"),
    ("base", 1, ("docschema/", "config/", "catalog/", "casefile/", "cache/", "secrets/", "__init__.py", "_version.py",
                 "diagnostics.py", "records.py", "record_inits.py", "words.py", "files.py", "jsonio.py", "bytesets.py",
                 "blocks.py"),
     "the document schemas and their rules, the check registry, the skills, the caches and the diagnostics model"),
)

# Edges the checks above still find, each with why it is left (importer, imported). A test fails
# when one of them is gone, so the set only shrinks.
PENDING_EDGES: frozenset[tuple[str, str]] = frozenset()

MAX_LINES = 450

# Imports at the top (docs/development.md, "Imports at the top"): an import of a skillsift module sits at its
# module's top unless the module it names is in HEAVY, each with why it is deferred:
# * "--help", "--version", "hooks", "search", "mcp", "validate": a command that loads the importing module but
#   not this one (the modules each command of bench/bench_startup.py loads, measured: importing it at the top
#   would add it to that command's start-up); "--help" is a command's own, `skillsift list --help` (`skillsift
#   --help` loads no command module);
# * "numpy", "onnx" (onnxruntime and tokenizers), "yaml": what importing it loads;
# * "try": imported where its failure is caught; "stand-in": a test replaces it, or an attribute of it, at run time.
HEAVY: dict[str, tuple[str, ...]] = {
    "skillsift.cache.checks": ("hooks",),
    "skillsift.cache.secret_scans": ("hooks",),
    "skillsift.cache.skills": ("hooks", "validate", "stand-in"),
    "skillsift.cache.toml_docs": ("--help",),
    "skillsift.casefile.files": ("hooks", "validate"),
    "skillsift.catalog": ("stand-in",),
    "skillsift.catalog.frontmatter": ("hooks", "stand-in"),
    "skillsift.catalog.load": ("hooks", "stand-in"),
    "skillsift.catalog.listing": ("hooks",),
    "skillsift.catalog.manifests": ("search", "validate"),
    "skillsift.checks.config": ("hooks", "mcp", "try"),
    "skillsift.checks.served": ("hooks",),
    "skillsift.commands.group": ("hooks", "try"),
    "skillsift.commands.search_run": ("--version", "hooks"),
    "skillsift.commands.validate_run": ("--version", "hooks", "search"),
    "skillsift.config.checks": ("--help",),
    "skillsift.config.minimums": ("--help", "hooks", "search", "mcp", "validate"),
    "skillsift.docschema.yaml_nodes": ("yaml", "mcp"),
    "skillsift.embed.base": ("search", "mcp"),
    "skillsift.embed.local": ("onnx", "validate", "stand-in", "try"),
    "skillsift.evaluate.cases": ("mcp",),
    "skillsift.evaluate.examples": ("hooks", "validate"),
    "skillsift.evaluate.from_skills": ("hooks", "validate"),
    "skillsift.evaluate.gates": ("hooks", "validate"),
    "skillsift.evaluate.run": ("hooks", "validate"),
    "skillsift.evaluate.session": ("mcp", "validate", "try"),
    "skillsift.evaluate.holdout": ("numpy", "mcp"),
    "skillsift.index.build": ("numpy", "hooks", "search", "mcp", "validate"),
    "skillsift.index.store": ("numpy", "--help", "hooks", "search", "mcp", "validate"),
    "skillsift.index.verify": ("validate",),
    "skillsift.jsonio": ("--help", "hooks", "search", "mcp", "validate"),
    "skillsift.ranker.known": ("hooks", "search", "validate"),
    "skillsift.ranker.postings_cache": ("mcp",),
    "skillsift.ranker.row_check": ("numpy", "search"),
    "skillsift.ranker.query_embedding": ("numpy", "search", "mcp"),
    "skillsift.ranker.search": ("hooks", "validate"),
    "skillsift.ranker.setup": ("numpy", "--help", "search", "mcp"),
    "skillsift.ranker.tokenize": ("hooks", "validate"),
    "skillsift.ranker.vector_ranking": ("numpy", "search", "mcp"),
    "skillsift.ranker.view_index": ("hooks", "validate"),
    "skillsift.render.index": ("hooks",),
    "skillsift.render.sanitise": ("--version", "hooks", "try"),
    "skillsift.render.stderr_lines": ("--version", "hooks"),
    "skillsift.render.views": ("--help", "search"),
    "skillsift.secrets.egress": ("search", "mcp"),
    "skillsift.secrets.scan": ("--help", "hooks", "search", "try"),
    "skillsift.skill_sources.attach": ("hooks", "search", "mcp", "validate"),
    "skillsift.usecases.index_build": ("hooks",),
    "skillsift.usecases.project": ("--help",),
    "skillsift.validators.suppress": ("hooks",),
}
# The in-function imports of skillsift modules: at most this many (a new one names its module and why in HEAVY).
# `--help` imports no command module (commands/group.py, SUMMARIES), so each command module imports its use
# case at its top; the vector side of a ranker is ranker/setup.py, and a workspace loads the catalog's readers at
# one place.
MAX_DEFERRED = 78
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


def _unit(module: str) -> tuple[str, int]:
    """(unit, rank) of a module: the longest unit of :data:`LAYERS` naming it."""
    best: tuple[str, int] = ("", 0)
    for _layer, rank, units, _what in LAYERS:
        for unit in units:
            name = "skillsift." + unit.removesuffix("/").removesuffix(".py").replace("/", ".")
            if unit == "__init__.py":
                name = "skillsift"
            if (module == name or (unit.endswith("/") and module.startswith(name + "."))) and len(name) > len(best[0]):
                best = (name, rank)
    return best


def _all_edges() -> dict[str, dict[str, int]]:
    """module -> {imported module: line} for every import, deferred ones included, less PENDING_EDGES."""
    known = _modules()
    graph: dict[str, dict[str, int]] = {}
    for module, path in known.items():
        edges = graph.setdefault(module, {})
        for target, line, _top in _imports(module, path, known):
            if target != module and target in known and (module, target) not in PENDING_EDGES:
                edges.setdefault(target, line)
    return graph


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


def test_a_layer_names_whole_folders():
    """A unit is a top-level folder of the package, or one of its loose top-level modules: no module
    of a folder sits in another layer than its folder (folders are layers)."""
    units = [unit for _layer, _rank, names, _what in LAYERS for unit in names]
    assert len(units) == len(set(units))
    for unit in units:
        assert unit.count("/") == (1 if unit.endswith("/") else 0), unit
        assert (PACKAGE / unit).is_dir() if unit.endswith("/") else (PACKAGE / unit).is_file(), unit
    folders = {path.name + "/" for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert folders <= set(units)


def test_every_module_has_a_layer():
    assert [m for m in _modules() if not _unit(m)[0]] == []


def test_no_module_imports_a_higher_layer():
    known = _modules()
    wrong = []
    for module, edges in _all_edges().items():
        for target, line in edges.items():
            if _unit(target)[1] > _unit(module)[1]:
                wrong.append(f"{known[module].relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert wrong == []


def test_no_import_cycle_between_modules_counting_deferred_imports():
    assert _cycle(_all_edges()) == []


def test_no_import_cycle_between_packages():
    packages: dict[str, dict[str, int]] = {}
    for module, edges in _all_edges().items():
        for target, line in edges.items():
            a, b = _unit(module)[0], _unit(target)[0]
            if a != b:
                packages.setdefault(a, {}).setdefault(b, line)
    assert _cycle(packages) == []


def test_the_pending_edges_are_still_there():
    """Each pending edge still exists: one that is gone must leave the set."""
    known = _modules()
    present = {(m, t) for m, p in known.items() for t, _line, _top in _imports(m, p, known)}
    assert sorted(PENDING_EDGES - present) == []


def test_the_docs_layer_table_is_the_data():
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    rows = [line for line in text.split("## Layers", 1)[1].split("\n\n", 2)[1].splitlines()
            if line.startswith("| ") and not line.startswith("| layer") and not line.startswith("| ---")]
    want = [f"| {layer} | {rank} | {', '.join(f'`{u}`' for u in units)} | {what} |"
            for layer, rank, units, what in LAYERS]
    assert rows == want


def test_the_rank_check_sees_an_upward_import():
    assert _unit("skillsift.config.tables") == ("skillsift.config", 1)
    assert _unit("skillsift.usecases.starter.apply") == ("skillsift.usecases", 6)
    assert _unit("skillsift.evaluate.gates") == ("skillsift.evaluate", 2)
    assert _unit("skillsift.validators.runner")[1] > _unit("skillsift.config.schema")[1]


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


def _deferred_imports(known: dict[str, Path] | None = None) -> list[tuple[str, int, str]]:
    """(importing module, line, imported skillsift module) of every import inside a function."""
    known = _modules() if known is None else known
    out: list[tuple[str, int, str]] = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import):
                    out.extend((module, node.lineno, alias.name) for alias in node.names
                               if alias.name.split(".")[0] == "skillsift")
                elif isinstance(node, ast.ImportFrom):
                    target = _resolve(module, path, node)
                    if target.split(".")[0] == "skillsift":
                        subs = {f"{target}.{alias.name}" for alias in node.names}
                        out.extend((module, node.lineno, sub) for sub in sorted(subs & set(known)))
                        if subs - set(known):
                            out.append((module, node.lineno, target))
    # a nested function is walked from every function holding it: count each import once
    return sorted(set(out))


def test_deferred_imports_are_of_heavy_modules():
    wrong = [f"{module.replace('.', '/')}.py:{line}: {target}" for module, line, target in _deferred_imports()
             if target not in HEAVY]
    assert not wrong, ("import these at the top of the module, or add the module to HEAVY with why it is "
                       "deferred:\n" + "\n".join(wrong))


def test_heavy_modules_are_still_deferred_somewhere():
    deferred = {target for _module, _line, target in _deferred_imports()}
    assert not set(HEAVY) - deferred, f"no longer imported in a function: {sorted(set(HEAVY) - deferred)}"


def test_few_imports_are_deferred():
    statements = {(module, line) for module, line, _target in _deferred_imports()}
    assert len(statements) <= MAX_DEFERRED, f"{len(statements)} imports in functions, at most {MAX_DEFERRED}"


def test_the_deferred_import_finder_sees_nested_imports_only(tmp_path):
    package = tmp_path / "skillsift"
    package.mkdir()
    known = {name: package / f"{name}.py" for name in ("a", "b", "c")}
    known["a"].write_text("from . import b\n\n\ndef f():\n    def g():\n        from . import c\n"
                          "        from .c import x\n", encoding="utf-8")
    known["b"].write_text("", encoding="utf-8")
    known["c"].write_text("x = 1\n", encoding="utf-8")
    found = _deferred_imports({f"skillsift.{name}": path for name, path in known.items()})
    assert found == [("skillsift.a", 6, "skillsift.c"), ("skillsift.a", 7, "skillsift.c")]


def test_the_report_finds_every_cycle_and_holds_today():
    from tests.layers_report import cycles, report

    assert cycles({"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"c"}, "e": {"e"}, "f": set()}) == [
        ["a", "b"], ["c", "d"], ["e"]]
    lines, ok = report()
    assert ok and "upward imports: 0" in lines and "unit cycles: 0" in lines

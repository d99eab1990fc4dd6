"""Each check is declared once, beside its code, and every list of checks is generated from the declarations.

* the registry rows the cheap paths import, docs/validate.md's table, docs/checks.md and the JSON
  Schemas equal what ``python -m tests.generated --write`` makes of the declarations;
* every registered code is declared exactly once, in the module its row names;
* a finding takes its severity from its declaration unless the module says ``level=``;
* ``explain``, ``--list`` and the SARIF rules read the same declarations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from skillsift.config import checks as registry
from skillsift.config.checks import CHECKS, NOTE, STRICT, WARNING, check
from skillsift.validators import declared
from tests import generated
from tests.conftest import ROOT


def test_the_generated_files_are_fresh():
    assert generated.stale(str(ROOT)) == [], "run: python -m tests.generated --write"


def test_the_check_command_names_a_stale_file(tmp_path):
    wanted = generated.expected(str(ROOT))
    for rel, text in wanted.items():
        os.makedirs(tmp_path / os.path.dirname(rel), exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ok = subprocess.run([sys.executable, "-m", "tests.generated", "--check"], cwd=tmp_path, env=env,
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    (tmp_path / declared.REFERENCE_DOC).write_text("# hand-edited\n", encoding="utf-8")
    bad = subprocess.run([sys.executable, "-m", "tests.generated", "--check"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "docs/checks.md is stale" in bad.stderr.replace(os.sep, "/")


def test_a_hook_description_lists_the_codes_of_the_modules_it_runs():
    from skillsift.hooks.hook_codes import CODES
    from skillsift.hooks.specs import HOOK_SPECS

    assert declared.code_ranges(["SK008", "SK001", "SK005", "SK004", "SK006", "SK007", "SK002", "AR001"]) == (
        "AR001, SK001, SK002, SK004-SK008")
    assert CODES["frontmatter"].startswith("SK001, SK002, SK004-SK008, SK101-SK10")
    spec = next(s for s in HOOK_SPECS if s.name == "frontmatter")
    assert f"({CODES['frontmatter']})" in spec.description


def test_every_registered_code_is_declared_once_in_its_module():
    collected = declared.collect()
    assert [c.code for c in collected] == [c.code for c in CHECKS]
    for row, decl in zip(CHECKS, collected, strict=True):
        assert row == decl, row.code  # every field but the details, which only the declaration holds
        assert decl.module == row.module


def test_the_docs_table_has_one_row_per_check_with_its_preset():
    text = (ROOT / "docs" / "validate.md").read_text(encoding="utf-8")
    table = text.split(declared.TABLE_BEGIN, 1)[1].split(declared.TABLE_END, 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert [r.split("]", 1)[0][3:] for r in rows] == [c.code for c in CHECKS]
    for row, c in zip(rows, CHECKS, strict=True):
        cells = [cell.strip() for cell in row.split(" | ")]
        assert cells[1:5] == [c.name, c.severity, c.scope, c.preset]


def test_a_report_takes_the_declared_severity_unless_it_names_a_variant():
    before = list(registry.DECLARED)
    try:
        demo = check("SK990", "demo-check", WARNING, summary="a demonstration", module="demo")
        assert demo.report(file="a/SKILL.md", line=3, message="m").severity == WARNING
        variant = demo.report(file="a/SKILL.md", line=3, message="m", level=NOTE)
        assert (variant.code, variant.severity, variant.line) == ("SK990", NOTE, 3)
        with pytest.raises(ValueError, match="declared twice"):
            check("SK990", "again", WARNING, summary="x", module="demo")
        with pytest.raises(ValueError, match="bad severity"):
            check("SK991", "bad", "fatal", summary="x", module="demo")
        with pytest.raises(ValueError, match="bad preset"):
            check("SK992", "bad", NOTE, summary="x", preset="all", module="demo")
    finally:
        registry.DECLARED[:] = before


def test_a_declaration_infers_its_module_from_where_it_is_written():
    before = list(registry.DECLARED)
    try:
        assert check("SK993", "here", NOTE, summary="x").module == "tests.validators.test_declared"
    finally:
        registry.DECLARED[:] = before


def test_explain_and_sarif_read_the_declarations(capsys):
    from skillsift.cli import main
    from skillsift.render.registry import render

    assert main(["explain", "SK402"]) == 0
    out = capsys.readouterr().out
    assert "preset: strict" in out and "whatever the server sends runs" in out
    assert main(["explain", "SK302"]) == 0
    assert "preset: recommended" in capsys.readouterr().out
    sarif = json.loads(render("diagnostics", "sarif", []))
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [c.code for c in CHECKS]
    strict = {c.code for c in CHECKS if c.preset == STRICT}
    assert strict and all(r["properties"]["preset"] == (STRICT if r["id"] in strict else "recommended")
                          for r in rules)


def test_the_registry_is_read_without_importing_a_check_module():
    code = ("import sys, skillsift.config.checks as c; assert c.CHECKS; "
            "print(sorted(m for m in sys.modules if m.startswith(('skillsift.validators', 'skillsift.checks'))))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_finding_of_a_registered_code_is_made_by_its_declaration():
    """A check module reports with ``DECL.report(...)``: a literal ``Diagnostic(code=X)`` of a registered
    code would be a second source of its severity (a finding that differs on purpose says ``level=``)."""
    import ast

    by_code = {c.code: c for c in CHECKS}
    found = set()
    for module in sorted({c.module for c in CHECKS}):
        path = ROOT / "skillsift" / f"{module.replace('.', '/')}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: dict[str, str] = {}
        for node in tree.body:  # CODE = "AR9D4", A, B = "SK311", "SK312"
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else [node.targets[0]]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for target, value in zip(targets, values, strict=False):
                    if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and value.value in by_code:
                        names[target.id] = value.value
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Diagnostic"):
                continue
            kw = {k.arg: k.value for k in call.keywords}
            code = kw.get("code")
            code = names.get(code.id) if isinstance(code, ast.Name) else getattr(code, "value", None)
            if code in by_code:
                found.add((module, code, call.lineno))
    assert found == set()

"""The checks as their modules declare them, and the files written from those declarations.

Every check module declares its checks with :func:`skillsift.config.checks.check`.  This module
imports every module of :mod:`skillsift.checks` (and of this package, whose :mod:`.suppress` declares
SK015) to gather them (:func:`collect`), then writes,
from that one list:

* ``skillsift/config/check_table.py``: the registry rows the cheap paths import (no check module);
* the table of ``docs/validate.md`` ("The checks", between its ``checks-table`` markers);
* ``docs/checks.md``: one section per check, what ``skillsift explain`` prints;
* the JSON Schemas of :mod:`.document_schemas` (``[validate.severity]`` and ``ignore`` name the codes);
* ``skillsift/hooks/hook_codes.py``, the codes a hook's description lists (from the check modules
  and codes each hook runs, ``skillsift.hooks.specs.REPORTS``, which the writer passes in).

``python -m tests.generated --write`` rewrites them all (with ``.pre-commit-hooks.yaml``, which
is written from the hook rows of the doors); ``--check`` (and ``tests/validators/test_declared.py``)
exits 1 naming each file that is stale.  ``explain`` and the
SARIF rules read the same declarations (the first) and rows (the second), so nothing about a check
is written by hand twice.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re

from ..config.checks import CHECKS, DECLARED, STRICT, Check
from . import document_schemas

PACKAGE = "skillsift"
#: The packages whose modules declare checks: the check modules, and the engine's suppressions (SK015).
DECLARING = ("skillsift.checks", "skillsift.validators")
TABLE_FILE = os.path.join("skillsift", "config", "check_table.py")
VALIDATE_DOC = os.path.join("docs", "validate.md")
REFERENCE_DOC = os.path.join("docs", "checks.md")
HOOK_CODES = os.path.join("skillsift", "hooks", "hook_codes.py")
HOOKS_YAML = ".pre-commit-hooks.yaml"
TABLE_BEGIN = "<!-- checks-table: generated from the check declarations; do not edit by hand -->"
TABLE_END = "<!-- checks-table: end -->"


def order(check: Check) -> tuple[int, str]:
    """The registry's order: the search checks (AR9D), the secrets (AR0), then the skill checks (SK), each by code."""
    return (0 if check.code.startswith("AR9D") else 1 if check.code.startswith("AR") else 2, check.code)


def collect() -> tuple[Check, ...]:
    """Every declared check, in registry order (imports every module of :data:`DECLARING`)."""
    for name in DECLARING:
        package = importlib.import_module(name)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            importlib.import_module(f"{name}.{info.name}")
    return tuple(sorted(DECLARED, key=order))


def declaration(code: str) -> Check | None:
    """The declaration of ``code``, importing only the module the registry names for it."""
    row = next((c for c in CHECKS if c.code == code), None)
    if row is not None:
        importlib.import_module(f"{PACKAGE}.{row.module}")
    return next((c for c in DECLARED if c.code == code), None)


def details(check: Check) -> str:
    """A check's documentation: its declared ``details``; for a module not converted yet, the bullet of the
    module's docstring that starts with the code (``* SK304 ...``)."""
    declared = declaration(check.code)
    if declared is not None and declared.details:
        return declared.details
    module = importlib.import_module(f"{PACKAGE}.{check.module}")
    lines = (module.__doc__ or "").split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if re.match(r"^\* (?:[A-Z]{2}[0-9A-Z]+[, -]+)*" + re.escape(check.code) + r"\b", line):
            out.append(line[2:].strip())
            for more in lines[i + 1:]:
                if not more.startswith("  ") or not more.strip():
                    break
                out.append(more.strip())
            break
    return " ".join(out)


def preset_words(check: Check) -> str:
    """Which preset holds a check, for people."""
    if check.preset == STRICT:
        return "strict (opt-in: --preset strict, --select CODE or a [validate.severity])"
    return "recommended (the default; strict too)"


def table_source(checks) -> str:
    """The text of ``skillsift/config/check_table.py``."""
    out = ['"""The registry rows, generated from the check declarations of skillsift/checks/: do not edit.\n\n'
           "Rewrite it with ``python -m tests.generated --write`` after changing a declaration\n"
           "(docs/development.md, \"The check contract\").  One tuple per check, in the fields' order of\n"
           ":class:`skillsift.config.checks.Check`: code, name, severity, scope, module, triggers, files, summary,\n"
           'preset.  Pure data: importing it imports nothing.\n"""\n',
           "# ruff: noqa: E501\n", "ROWS = (\n"]
    for c in checks:
        out.append(f"    ({c.code!r}, {c.name!r}, {c.severity!r}, {c.scope!r}, {c.module!r}, {c.triggers!r},\n"
                   f"     {c.files!r},\n     {c.summary!r}, {c.preset!r}),\n")
    out.append(")\n")
    return "".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def docs_table(checks) -> str:
    """The table of docs/validate.md, "The checks"."""
    out = [TABLE_BEGIN, "", "| Code | Name | Default | Scope | Preset | What it checks |",
           "| --- | --- | --- | --- | --- | --- |"]
    for c in checks:
        out.append(f"| [{c.code}](checks.md#{c.code.lower()}) | {c.name} | {c.severity} | {c.scope} | {c.preset} | "
                   f"{_cell(c.summary)} |")
    out += ["", TABLE_END]
    return "\n".join(out)


def with_table(text: str, checks) -> str:
    """docs/validate.md with its generated table replaced (ValueError when the markers are missing)."""
    begin, end = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if begin < 0 or end < begin:
        raise ValueError(f"{VALIDATE_DOC}: the checks-table markers are missing")
    return text[:begin] + docs_table(checks) + text[end + len(TABLE_END):]


def reference(checks) -> str:
    """docs/checks.md: one section per check."""
    out = ["# The checks, one by one", "",
           "Generated from the check declarations (`check(...)` in each module of `skillsift/checks/`) by",
           "`python -m tests.generated --write`: do not edit by hand. `skillsift explain CODE` prints",
           "the same text; [validate.md](validate.md#the-checks) has the table, the presets and how to silence a",
           "check.", ""]
    for c in checks:
        out += [f"## {c.code}", "", f"`{c.name}`: checks that {c.summary}.", "",
                f"- default severity: {c.severity}", f"- preset: {preset_words(c)}",
                f"- scope: {c.scope}; runs on: {c.files}", f"- module: `skillsift/{c.module.replace('.', '/')}.py`", ""]
        text = details(c)
        if text:
            out += [text, ""]
    return "\n".join(out)


def code_ranges(codes) -> str:
    """Codes as people list them: sorted, three or more consecutive ones of a prefix as ``SK004-SK008``."""
    out: list[str] = []
    run: list[str] = []

    def close():
        out.extend([f"{run[0]}-{run[-1]}"] if len(run) >= 3 else run)

    for code in sorted(set(codes), key=lambda c: (c[:-3], c[-3:])):
        if run and code[:-3] == run[-1][:-3] and code[-3:].isdigit() and run[-1][-3:].isdigit() and (
                int(code[-3:]) == int(run[-1][-3:]) + 1):
            run.append(code)
            continue
        if run:
            close()
        run = [code]
    if run:
        close()
    return ", ".join(out)


def hook_codes_source(checks, reports: dict[str, tuple[str, ...]]) -> str:
    """The text of ``skillsift/hooks/hook_codes.py``: for each hook of ``reports`` (hook -> the check modules
    and codes it runs), the codes of those modules and codes."""
    by_module: dict[str, list[str]] = {}
    for c in checks:
        by_module.setdefault(c.module, []).append(c.code)
    codes = {hook: code_ranges([code for entry in entries for code in by_module.get(entry, [entry])])
             for hook, entries in sorted(reports.items())}
    return ('"""The codes each hook\'s description lists: generated from the check declarations and\n'
            "``skillsift.hooks.specs.REPORTS`` by ``python -m tests.generated --write``; do not edit.\n"
            '"""\n\n' + f"CODES = {codes!r}\n".replace("'", '"'))


def expected(root: str) -> dict[str, str]:
    """Each file generated in the checks' layer (path relative to ``root``) and the text it should hold."""
    checks = collect()
    with open(os.path.join(root, VALIDATE_DOC), encoding="utf-8") as handle:
        validate_md = handle.read()
    out = {TABLE_FILE: table_source(checks), VALIDATE_DOC: with_table(validate_md, checks),
           REFERENCE_DOC: reference(checks) + "\n"}
    schemas = document_schemas.shipped([c.code for c in checks])
    out.update({os.path.join("skillsift", "schemas", name): text for name, text in schemas.items()})
    return out


def stale(root: str, wanted: dict[str, str]) -> list[str]:
    """The files of ``wanted`` (path relative to ``root`` -> text) whose text differs."""
    out = []
    for rel, text in wanted.items():
        try:
            with open(os.path.join(root, rel), encoding="utf-8", newline="") as handle:
                current = handle.read()
        except OSError:
            current = None
        if current != text:
            out.append(rel)
    return out

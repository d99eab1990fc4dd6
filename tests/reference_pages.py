"""The reference pages written from tables of the code: every configuration key and every hook.

``python -m tests.generated --write`` writes them with the other generated files (docs/development.md,
"The check contract"), and the freshness test fails while one is stale:

* ``docs/config-keys.md``, from the rule tables of ``skillsift/config/tables.py``: each table, then one
  row per key with its type, default, allowed values and what it does;
* ``docs/hooks-reference.md``, from the hook registry (``HOOK_SPECS`` in ``skillsift/hooks/specs.py``):
  one section per hook with what pre-commit is told (files, types, serial, always run) and its codes.
"""

from __future__ import annotations

import math
import os

CONFIG_DOC = os.path.join("docs", "config-keys.md")
HOOKS_DOC = os.path.join("docs", "hooks-reference.md")
GENERATED = "`python -m tests.generated --write`: do not edit by hand."

_KINDS = {"string": "string", "text": "string", "int": "integer", "number": "number", "bool": "boolean",
          "choice": "string", "table": "table", "list": "list", "either": "either"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _toml(value) -> str:
    """A default as it is written in ``skillsift.toml``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return f"{value:.1f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def _number(value) -> str:
    return str(int(value)) if isinstance(value, float) and value == int(value) else str(value)


def type_words(rule) -> str:
    """The type of a key, for people: ``integer``, ``list of strings``, ``table``."""
    if rule.kind == "list":
        item = type_words(rule.items) if rule.items is not None else "values"
        if rule.one_or_list:
            return f"{item} or list of {item}s"
        return f"list of {item}s" if not item.startswith("table") else "list of tables"
    return _KINDS.get(rule.kind, rule.kind)


def values_words(rule) -> str:
    """The values a key allows: its choices, or its range."""
    if rule.kind == "list" and rule.items is not None:
        return values_words(rule.items)
    choices = rule.choices or tuple(rule.schema.get("enum", ()))
    if choices:
        return ", ".join(f"`{choice}`" for choice in choices)
    if rule.kind in ("int", "number") and (rule.low is not None or rule.high is not None):
        low = "0" if rule.low is None else _number(rule.low)
        return f"{low} to {_number(rule.high)}" if rule.high is not None else f"at least {low}"
    return ""


def key_rows(rule, prefix: str = "", doc: str = "") -> list[tuple[str, object, str]]:
    """``(key path, rule, what it does)`` of every key under ``rule``, depth first in declaration order.

    A nested table gives its keys (``weights.lexical``), a free table one row for any key
    (``severity.<key>``), a list of tables one row per key of an entry (``patterns[].name``).
    A key without a doc of its own takes the doc of the table holding it.
    """
    rows: list[tuple[str, object, str]] = []
    if rule.keys:
        for key, sub in rule.keys.items():
            path = f"{prefix}.{key}" if prefix else key
            if sub.kind == "table" and (sub.keys or sub.values is not None):
                rows += key_rows(sub, path, sub.doc or doc)
            elif sub.kind == "list" and sub.items is not None and sub.items.kind == "table" and sub.items.keys:
                rows += key_rows(sub.items, f"{path}[]", sub.doc or doc)
            else:
                rows.append((path, sub, sub.doc or doc))
    if rule.values is not None:
        path = f"{prefix}.<key>" if prefix else "<key>"
        if rule.values.kind == "table" and rule.values.keys:
            rows += key_rows(rule.values, path, rule.doc or doc)
        else:
            rows.append((path, rule.values, rule.values.doc or rule.doc or doc))
    return rows


def config_reference() -> str:
    """The text of docs/config-keys.md."""
    from skillsift.config.tables import _TABLES, PROJECT_TABLES, USER_TABLES

    out = ["# Configuration keys", "",
           "Generated from the rule tables of `skillsift/config/tables.py` (the ones the loader applies and",
           f"the JSON Schemas are made from) by {GENERATED}",
           "[configuration.md](configuration.md) says where the files are, their precedence, what a repository",
           "may not set and the environment variables; a default of \"\" (or none) is explained there.", ""]
    for name in PROJECT_TABLES:
        rule = _TABLES[name]
        files = "the project config and the user config" if name in USER_TABLES else "the project config only"
        title = f"`[[{name}]]`" if rule.kind == "list" else f"`[{name}]`"
        out += [f"## {title}", ""]
        if rule.doc:
            out += [rule.doc, ""]
        out += [f"Read from {files}.", "", "| Key | Type | Default | Values | What it does |",
                "| --- | --- | --- | --- | --- |"]
        table = rule.items if rule.kind == "list" else rule
        for path, sub, doc in key_rows(table):
            default = "" if sub.default is None else f"`{_toml(sub.default)}`"
            required = " (required)" if sub.required else ""
            out.append(f"| `{path}` | {type_words(sub)}{required} | {_cell(default)} | {_cell(values_words(sub))} | "
                       f"{_cell(doc)} |")
        out.append("")
    return "\n".join(out)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def hooks_reference() -> str:
    """The text of docs/hooks-reference.md."""
    from skillsift.hooks.hook_codes import CODES
    from skillsift.hooks.specs import HOOK_SPECS

    out = ["# The hooks, field by field", "",
           "Generated from the hook registry (`HOOK_SPECS` in `skillsift/hooks/specs.py`, the same rows",
           f"`.pre-commit-hooks.yaml` is written from) by {GENERATED}",
           "[hooks.md](hooks.md) has the snippet to copy, what each hook checks and when it fails.", ""]
    for spec in HOOK_SPECS:
        out += [f"## {spec.id}", "", spec.description, "",
                f"- entry: `{spec.entry}`",
                f"- files: `{spec.files}`" if spec.files else "- files: every file",
                f"- types: {', '.join(spec.types)}" if spec.types else "- types: any",
                f"- types_or: {', '.join(spec.types_or)}" if spec.types_or else "- types_or: none",
                f"- pass_filenames: {_yes(spec.pass_filenames)}; require_serial: {_yes(spec.require_serial)}; "
                f"always_run: {_yes(spec.always_run)}"]
        if spec.name in CODES:
            out.append(f"- codes listed in its description: {CODES[spec.name]}")
        if spec.owns:
            out.append(f"- codes no other hook of the same run repeats: {', '.join(sorted(spec.owns))}")
        out.append("")
    return "\n".join(out)


def expected() -> dict[str, str]:
    """Each reference page (path relative to the repository root) and the text it should hold."""
    return {CONFIG_DOC: config_reference(), HOOKS_DOC: hooks_reference()}

"""JSON Schemas (draft 2020-12) generated from the same rules the validator applies.

``skillsift/schemas/cases.v1.json``, ``config.v1.json`` (``skillsift.toml`` and the
``[tool.skillsift]`` table of ``pyproject.toml``) and ``user-config.v1.json`` are made from the
tables by :mod:`skillsift.validators.document_schemas` (a test regenerates them and compares,
so they cannot drift).  What a schema
cannot say (a regex that must compile, a duplicate case id, a skill the catalog does not
hold) stays with the validator: the editor is told less, never something else.
"""

from __future__ import annotations

import json

from . import Context, Rule

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://skillsift.dev/schemas/"
_TEXT = ["string", "number", "boolean"]  # a YAML scalar read as written: `id: 42` is the text 42


def schema_of(rule: Rule, context: Context | None = None) -> dict:
    """The JSON Schema of one rule."""
    context = context or Context()
    out = _node(rule, context)
    if rule.doc:
        out["description"] = rule.doc
    if rule.default is not None and rule.kind not in ("table",):
        out["default"] = rule.default
    out.update(rule.schema)
    return out


def _nullable(out: dict, rule: Rule) -> dict:
    if not (rule.nullable if rule.schema_null is None else rule.schema_null):
        return out
    if "type" in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        return {**out, "type": types + ["null"]}
    return {"anyOf": [out, {"type": "null"}]}


def _node(rule: Rule, context: Context) -> dict:
    kind = rule.kind
    out: dict
    if kind in ("string", "text"):
        out = {"type": "string" if kind == "string" else _TEXT}
        if rule.nonblank:
            out["pattern"] = r"\S"
    elif kind == "choice":
        out = {"enum": list(rule.choices) + ([""] if rule.empty_ok else [])}
    elif kind in ("int", "number"):
        out = {"type": "integer" if kind == "int" else "number"}
        if rule.low is not None:
            out["minimum"] = rule.low
        if rule.high is not None:
            out["maximum"] = rule.high
    elif kind == "bool":
        out = {"type": "boolean"}
    elif kind == "list":
        out = {"type": "array"}
        if rule.items is not None:
            out["items"] = schema_of(rule.items, context)
        if rule.min_items:
            out["minItems"] = rule.min_items
        if rule.max_items is not None:
            out["maxItems"] = rule.max_items
        if rule.one_or_list and rule.items is not None:
            out = {"anyOf": [schema_of(rule.items, context), out]}
    elif kind == "table":
        out = _table(rule, context)
    elif kind == "either":
        out = {"anyOf": [schema_of(option, context) for option in rule.options]}
    else:
        raise ValueError(f"no JSON Schema for rule kind {kind!r}")
    return _nullable(out, rule)


def _table(rule: Rule, context: Context) -> dict:
    out: dict = {"type": "object"}
    keys = rule.keys or {}
    if keys:
        out["properties"] = {key: schema_of(sub, context) for key, sub in keys.items()}
        required = [key for key, sub in keys.items() if sub.required]
        if required:
            out["required"] = required
    out["additionalProperties"] = schema_of(rule.values, context) if rule.values is not None else False
    names = rule.key_names(context) if rule.key_names is not None else None
    if names:
        out["propertyNames"] = {"enum": sorted(names)}
    return out


def document(rule: Rule, name: str, title: str, context: Context | None = None) -> dict:
    """A shipped schema: ``$schema``, ``$id``, ``title`` and the rule's schema."""
    return {"$schema": DRAFT, "$id": BASE + name, "title": title, **schema_of(rule, context)}


def dumps(schema: dict) -> str:
    """The bytes a shipped schema is written with (sorted nowhere: the tables' order is the docs' order)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"

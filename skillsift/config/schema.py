"""The one pure check of a configuration document: its rule table (:mod:`.tables`) applied by the interpreter.

The functions return ``(key path, message)`` problems; file and line are added in one place,
:func:`skillsift.config.sources.source_diagnostics`.

``jsonschema`` is not the engine here: every command and hook reads the configuration, and
importing it costs about ten times the TOML parser (docs/configuration.md).  The shipped
``config.v1.json`` is generated from the same tables, so editor and loader agree.
"""

from __future__ import annotations

from ..docschema import Context, check
from .tables import (  # noqa: F401  (the names other modules import from here)
    AI_RULEZ_EMBEDDINGS_KEYS,
    EMBEDDINGS,
    PROJECT_TABLES,
    SEARCH,
    USER_TABLES,
    VALIDATE,
    WEIGHT_KEYS,
    document_rule,
    index_dir_problem,
    numeric_ranges,
)
from .validate import ValidateSettings, settings_from_table
from .values import MODE_WORDS

# every numeric key: (lowest, highest) allowed, read from the tables (docs/configuration.md, "Numbers")
RANGES = numeric_ranges()


def mode_problem(source: str, value: str) -> str:
    return f'{source} "{value}" must be {MODE_WORDS}'


def _messages(value, rule, label: str) -> list[str]:
    return [problem.message for problem in check(value, rule, label=label)[1]]


def validate_search_table(table: dict) -> list[str]:
    """Every problem of a parsed ``[search]`` table, in the documented order, then unknown keys.

    Pure: the messages are the AR9D0 texts without file or line.
    """
    return _messages(table, SEARCH, "search")


def validate_embeddings_table(table: dict) -> list[str]:
    """Every problem of a parsed ``[embeddings]`` table (types, values, unknown keys)."""
    return _messages(table, EMBEDDINGS, "embeddings")


def read_settings(table, known_codes=()) -> tuple[ValidateSettings, list[tuple[tuple, str]]]:
    """Read a ``[validate]`` table (None or missing = defaults) against its rules (:data:`.tables.VALIDATE`).

    Returns the settings (bad values replaced by their defaults) and the problems as
    ``(key path inside [validate], message)``: unknown keys first, then in key order.
    """

    if table is None:
        return ValidateSettings(), []
    cleaned, problems = check(table, VALIDATE, label="validate", context=Context(values={"codes": known_codes}))
    if cleaned is None:
        return ValidateSettings(), [(p.path, p.message) for p in problems]
    return settings_from_table(cleaned), [(p.path, p.message) for p in problems]


def validate_result(table, known_codes=None):
    """(settings, problems) of a ``[validate]`` table, checked against the registry's codes."""
    if known_codes is None:
        from .checks import CODES

        known_codes = CODES
    return read_settings(table, known_codes)


def document_problems(doc: dict, tables: tuple[str, ...], ai_rulez: bool = False) -> list[tuple[tuple, str]]:
    """Problems of one parsed config document (already in skillsift's shape), paths relative to the document.

    ``ai_rulez``: the embeddings table sits at ``search.embeddings`` and holds command, model, pass_env.
    """
    if ai_rulez and "embeddings" in doc and isinstance(doc.get("search"), dict):
        doc = {**doc, "search": {**doc["search"], "embeddings": doc["embeddings"]}}
        doc.pop("embeddings")
    context = Context(values={"codes": _codes()} if "validate" in tables and "validate" in doc else {})
    _cleaned, problems = check(doc, document_rule(tables, ai_rulez=ai_rulez), context=context)
    return [(problem.path, problem.message) for problem in problems]


def _codes():
    from .checks import CODES

    return CODES

"""The configuration documents' schema, as data, and the one pure check that applies it.

The tables below say, for every key, its kind, its allowed values and its numeric range
(docs/configuration.md documents each, including the "Numbers" table); the functions apply
them to one parsed document and return ``(key path, message)`` problems.  File and line are
added in one place, :func:`skillsift.config.sources.source_diagnostics`.

``jsonschema`` is not the engine here: every command and hook reads the configuration, and
importing it costs about ten times the TOML parser (docs/configuration.md).
"""

from __future__ import annotations

import os
import posixpath

from .values import DEFAULT_FIELDS, DTYPES, FUSIONS, LONG_QUERIES, MODE_WORDS, MODES, PROVIDERS

# key -> kind, in the order problems are reported (docs/configuration.md, then the keys it does not check)
SEARCH_KINDS = {
    "mode": "string", "fusion": "string", "dtype": "string", "fields": "strings", "body_chars": "integer",
    "rrf_k": "integer", "weights": "table", "vector_min_sim": "number", "candidates": "integer",
    "batch_size": "integer", "query_timeout_ms": "integer", "index_dir": "string", "index_body": "bool",
    "log_queries": "bool", "long_query": "string", "long_query_words": "integer",
    "examples": "strings", "example_weight": "number",
}
WEIGHT_KEYS = ("lexical", "vector")
EMBEDDINGS_KINDS = {
    "provider": "string", "model": "string", "base_url": "string", "api_key_env": "string",
    "command": "strings", "pass_env": "strings", "allow_network": "bool", "max_calls": "integer",
    "max_tokens": "integer", "max_cost_usd": "number", "price_input_per_mtok": "number",
    "timeout_seconds": "number", "max_retries": "integer", "cache": "bool",
}
# the [search.embeddings] keys of an ai-rulez repository config
AI_RULEZ_EMBEDDINGS_KEYS = ("command", "model", "pass_env")
# every numeric key: (lowest, highest) allowed; "between" keys say both bounds in one message,
# the others "must not be negative" / "must be at most" (docs/configuration.md, "Numbers")
RANGES = {
    "search.body_chars": (0, 20000), "search.rrf_k": (0, 10000), "search.weights.lexical": (0, 1000),
    "search.weights.vector": (0, 1000), "search.vector_min_sim": (0, 1), "search.candidates": (0, 1000),
    "search.query_timeout_ms": (0, 60000), "search.batch_size": (0, 2048), "search.long_query_words": (0, 400),
    "embeddings.max_calls": (0, 1_000_000), "embeddings.max_tokens": (0, 1_000_000_000),
    "embeddings.max_cost_usd": (0, 1_000_000), "embeddings.price_input_per_mtok": (0, 1000),
    "embeddings.timeout_seconds": (0, 3600), "embeddings.max_retries": (0, 10),
    "validate.max_flips": (0, 100_000), "validate.max_rank_drops": (0, 100_000),
    "validate.k": (0, 100), "validate.near_duplicate_threshold": (0, 1),
    "validate.near_duplicate_cosine": (0, 1), "validate.description_limits.<agent>": (0, 1_000_000),
}
_BETWEEN = {"search.body_chars", "search.candidates", "search.query_timeout_ms", "search.batch_size",
            "search.long_query_words",
            "embeddings.max_retries"}
# every key with a fixed set of string values ("" = the default)
CHOICES = {"search.mode": MODES, "search.fusion": FUSIONS, "search.dtype": DTYPES, "search.long_query": LONG_QUERIES,
           "embeddings.provider": PROVIDERS}
PROJECT_TABLES = ("search", "embeddings", "catalog", "roles", "secrets", "validate")
USER_TABLES = ("search", "embeddings", "secrets")
_KIND_WORDS = {
    "string": "a string", "integer": "an integer", "number": "a number", "bool": "true or false",
    "strings": "a list of strings", "table": "a table",
}


def range_problem(key: str, value, *, label: str = "") -> str | None:
    """The problem of a finite ``value`` of the numeric ``key`` (``table.key``) against :data:`RANGES`."""
    low, high = RANGES[key]
    label = label or key
    if low <= value <= high:
        return None
    if key in _BETWEEN:
        return f"{label} must be between {low} and {high}"
    return f"{label} must not be negative" if value < low else f"{label} must be at most {high}"


def _either(values) -> str:
    return ", ".join(values[:-1]) + " or " + values[-1]


def choice_problem(key: str, value: str, *, label: str = "") -> str | None:
    """The problem of the string ``value`` of ``key`` against :data:`CHOICES` ("" is the default)."""
    if value == "" or value in CHOICES[key]:
        return None
    return f'{label or key} "{value}" must be {_either(CHOICES[key])}'


def mode_problem(source: str, value: str) -> str:
    return f'{source} "{value}" must be {MODE_WORDS}'


def _not_finite(value) -> bool:
    import math

    return isinstance(value, float) and not math.isfinite(value)


def _is_kind(value, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "strings":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, dict)


def _bad_env_name(name: str) -> bool:
    return not name.strip() or "=" in name or "\x00" in name


def index_dir_problem(value: str) -> str | None:
    """The problem of an ``index_dir`` value, or None ("" is fine: the default)."""
    if value == "":
        return None
    if "\x00" in value or ":" in value or value.startswith(("/", "\\")) or os.path.isabs(value):
        return "search.index_dir must be a relative path inside the config directory"
    cleaned = posixpath.normpath(value.replace("\\", "/"))
    if cleaned in (".", "..") or cleaned.startswith("../") or ".." in value:
        return "search.index_dir must stay inside the config directory"
    return None


def _search_problems(table: dict) -> list[tuple[tuple, str]]:
    """(key path inside the table, message) for every problem of a ``[search]`` table, in report order."""
    out: list[tuple[tuple, str]] = []
    unknown: list[tuple[tuple, str]] = []
    for key, kind in SEARCH_KINDS.items():
        if key not in table:
            continue
        value = table[key]
        if not _is_kind(value, kind):
            out.append(((key,), f"search.{key} must be {_KIND_WORDS[kind]}"))
            continue
        if _not_finite(value):
            out.append(((key,), f"search.{key} must be a finite number"))
            continue
        if f"search.{key}" in CHOICES:
            problem = choice_problem(f"search.{key}", value)
            if problem:
                out.append(((key,), problem))
        elif key == "fields":
            for entry in value:
                if entry not in DEFAULT_FIELDS:
                    out.append(((key,), f'search.fields entry "{entry}" must be name, triggers, keywords or '
                                        "description"))
        elif f"search.{key}" in RANGES and key != "vector_min_sim":
            problem = range_problem(f"search.{key}", value)
            if problem:
                out.append(((key,), problem))
        elif key == "weights":
            negative = False
            for name, weight in value.items():
                if name not in WEIGHT_KEYS:
                    unknown.append(((key, name), f'search.weights: unknown key "{name}"'))
                elif not _is_kind(weight, "number"):
                    out.append(((key, name), f"search.weights.{name} must be a number"))
                elif _not_finite(weight):
                    out.append(((key, name), f"search.weights.{name} must be a finite number"))
                elif weight < 0:
                    negative = True
                else:
                    problem = range_problem(f"search.weights.{name}", weight)
                    if problem:
                        out.append(((key, name), problem))
            if negative:
                out.append(((key,), "search.weights must not be negative"))
        elif key == "vector_min_sim":
            if not 0 <= value <= 1:
                out.append(((key,), "search.vector_min_sim must be between 0 and 1"))
        elif key == "example_weight":
            if not 0 <= value <= 1:
                out.append(((key,), "search.example_weight must be between 0 and 1"))
        elif key == "examples":
            out += [((key,), p) for p in _examples_problems(value)]
        elif key == "index_dir":
            problem = index_dir_problem(value)
            if problem:
                out.append(((key,), problem))
    for key in table:
        if key not in SEARCH_KINDS:
            unknown.append(((key,), f'search: unknown key "{key}"'))
    return out + unknown


def validate_search_table(table: dict) -> list[str]:
    """Every problem of a parsed ``[search]`` table, in the documented order, then unknown keys.

    Pure: the messages are the AR9D0 texts without file or line.
    """
    if not isinstance(table, dict):
        return ["search must be a table"]
    return [message for _path, message in _search_problems(table)]


def _embeddings_problems(table: dict, label: str = "embeddings",
                         allowed: tuple[str, ...] | None = None) -> list[tuple[tuple, str]]:
    """Problems of an ``[embeddings]`` table.

    ``label`` prefixes the messages (``search.embeddings`` for an ai-rulez file, whose table
    holds only ``allowed`` keys).
    """
    out: list[tuple[tuple, str]] = []
    kinds = EMBEDDINGS_KINDS if allowed is None else {k: EMBEDDINGS_KINDS[k] for k in allowed}
    for key, kind in kinds.items():
        if key not in table:
            continue
        value = table[key]
        if not _is_kind(value, kind):
            out.append(((key,), f"{label}.{key} must be {_KIND_WORDS[kind]}"))
            continue
        if _not_finite(value):
            out.append(((key,), f"{label}.{key} must be a finite number"))
            continue
        if key == "provider" and value not in ("", *PROVIDERS):
            out.append(((key,), choice_problem("embeddings.provider", value, label=f"{label}.provider") or ""))
        elif key == "base_url" and value != "" and not value.startswith(("http://", "https://")):
            out.append(((key,), f'{label}.base_url "{value}" must start with http:// or https://'))
        elif key == "api_key_env" and value != "" and _bad_env_name(value):
            out.append(((key,), f'{label}.api_key_env holds an invalid variable name "{value}"'))
        elif key == "command" and value and not value[0].strip():
            out.append(((key,), f"{label}.command must start with a program"))
        elif key == "pass_env":
            for name in value:
                if _bad_env_name(name):
                    out.append(((key,), f'{label}.pass_env holds an invalid variable name "{name}"'))
        elif f"embeddings.{key}" in RANGES:
            problem = range_problem(f"embeddings.{key}", value, label=f"{label}.{key}")
            if problem:
                out.append(((key,), problem))
    for key in table:
        if key not in kinds:
            out.append(((key,), f'{label}: unknown key "{key}"'))
    return out


def validate_embeddings_table(table: dict) -> list[str]:
    """Every problem of a parsed ``[embeddings]`` table (types, values, unknown keys)."""
    if not isinstance(table, dict):
        return ["embeddings must be a table"]
    return [message for _path, message in _embeddings_problems(table)]


def _examples_problems(value) -> list[str]:
    """``search.examples``: repository paths or globs, relative, inside the repository."""
    out = []
    for entry in value:
        if not entry.strip():
            out.append("search.examples holds a blank entry")
            continue
        clean = entry.replace("\\", "/")
        if posixpath.isabs(clean) or ".." in clean.split("/") or (len(clean) > 1 and clean[1] == ":"):
            out.append(f'search.examples entry "{entry}" must be a path inside the repository')
    return out


def _strings_problems(value, label: str) -> list[str]:
    if not _is_kind(value, "strings"):
        return [f"{label} must be a list of strings"]
    if any(not item.strip() for item in value):
        return [f"{label} holds a blank entry"]
    return []


def _catalog_problems(table: dict) -> list[tuple[tuple, str]]:
    out: list[tuple[tuple, str]] = []
    if "skills" in table:
        out += [(("skills",), p) for p in _strings_problems(table["skills"], "catalog.skills")]
    out += [((key,), f'catalog: unknown key "{key}"') for key in table if key != "skills"]
    return out


def _roles_problems(table: dict) -> list[tuple[tuple, str]]:
    out: list[tuple[tuple, str]] = []
    for role, body in table.items():
        if not isinstance(body, dict):
            out.append(((role,), f"roles.{role} must be a table with skills = [names or globs]"))
            continue
        if "skills" not in body:
            out.append(((role,), f"roles.{role} needs skills = [names or globs]"))
        else:
            out += [((role, "skills"), p) for p in _strings_problems(body["skills"], f"roles.{role}.skills")]
        out += [((role, key), f'roles.{role}: unknown key "{key}"') for key in body if key != "skills"]
    return out


def _secrets_problems(table: dict) -> list[tuple[tuple, str]]:

    out: list[tuple[tuple, str]] = []
    patterns = table.get("patterns", [])
    if not isinstance(patterns, list):
        out.append((("patterns",), "secrets.patterns must be a list of {name, regex} tables"))
        patterns = []
    for index, entry in enumerate(patterns):
        where = ("patterns", index)
        label = f"secrets.patterns entry {index + 1}"
        if not isinstance(entry, dict):
            out.append((where, f"{label} must be a table with name and regex"))
            continue
        name, regex = entry.get("name"), entry.get("regex")
        if not isinstance(name, str) or not name.strip():
            out.append((where + ("name",), f"{label}: name must be a non-empty string"))
        if not isinstance(regex, str) or not regex:
            out.append((where + ("regex",), f"{label}: regex must be a non-empty string"))
        else:
            from ..secrets.scan import compile_pattern

            try:
                compile_pattern(regex)  # RE2: linear-time matching, so no pattern can hang a hook
            except ValueError as exc:
                out.append((where + ("regex",), f"{label}: regex does not compile: {exc}"))
        out += [(where + (key,), f'{label}: unknown key "{key}"')
                for key in entry if key not in ("name", "regex")]
    out += [((key,), f'secrets: unknown key "{key}"') for key in table if key != "patterns"]
    return out


def validate_result(table):
    """(settings, problems) of a ``[validate]`` table, checked against the registry's codes."""
    from ..validators import CODES
    from .validate import parse_settings

    return parse_settings(table, CODES)


def document_problems(doc: dict, tables: tuple[str, ...], ai_rulez: bool = False) -> list[tuple[tuple, str]]:
    """Problems of one parsed config document (already in skillsift's shape), paths relative to the document.

    ``ai_rulez``: the embeddings table sits at ``search.embeddings`` and holds command, model, pass_env.
    """
    out: list[tuple[tuple, str]] = []
    for name in tables:
        if name not in doc:
            continue
        table = doc[name]
        if not isinstance(table, dict):
            out.append(((name,), f"{name} must be a table"))
            continue
        if name == "search":
            out += [(("search",) + path, msg) for path, msg in _search_problems(table)]
        elif name == "embeddings":
            if ai_rulez:
                out += [(("search", "embeddings") + path, msg) for path, msg in
                        _embeddings_problems(table, "search.embeddings", AI_RULEZ_EMBEDDINGS_KEYS)]
            else:
                out += [(("embeddings",) + path, msg) for path, msg in _embeddings_problems(table)]
        elif name == "catalog":
            out += [(("catalog",) + path, msg) for path, msg in _catalog_problems(table)]
        elif name == "roles":
            out += [(("roles",) + path, msg) for path, msg in _roles_problems(table)]
        elif name == "secrets":
            out += [(("secrets",) + path, msg) for path, msg in _secrets_problems(table)]
        elif name == "validate":
            out += [(("validate",) + path, msg) for path, msg in validate_result(table)[1]]
    known = ", ".join(tables)
    for name in doc:
        if name not in tables:
            out.append(((name,), f'unknown key "{name}" (known tables: {known})'))
    return out


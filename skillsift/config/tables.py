"""The rules of ``skillsift.toml`` (and ``[tool.skillsift]``, the user file), declared once as data.

Every key's kind, range, allowed values and message is a :class:`skillsift.docschema.Rule`
here; :mod:`.schema` applies them with the one interpreter, the ``[validate]`` settings are
built from what passed (:mod:`.validate`), and ``skillsift/schemas/config.v1.json`` is
generated from the same tables (docs/configuration.md, "Numbers"; "Editor support").
"""

from __future__ import annotations

import os
import posixpath
from functools import lru_cache

from ..catalog.agents import NAMES
from ..diagnostics import SkillsiftError
from ..docschema import Rule
from .model import EMBEDDINGS_DEFAULTS as E
from .model import JUDGE_DEFAULTS as J
from .model import SEARCH_DEFAULTS as S
from .values import (
    DEFAULT_FIELDS,
    DESCRIPTION_LIMIT_MAX,
    DTYPES,
    FUSIONS,
    JUDGE_CACHES,
    LONG_QUERIES,
    MAX_FLIPS_LIMIT,
    MODES,
    PROVIDERS,
    SEVERITIES,
)

PROJECT_TABLES = ("search", "embeddings", "catalog", "roles", "secrets", "validate", "sources", "judge")
USER_TABLES = ("search", "embeddings", "secrets", "judge")
WEIGHT_KEYS = ("lexical", "vector")
AI_RULEZ_EMBEDDINGS_KEYS = ("command", "model", "pass_env")  # the [search.embeddings] keys of an ai-rulez config


def index_dir_problem(value: str) -> str | None:
    """The problem of an ``index_dir`` value, or None ("" is fine: the default)."""
    if value == "":
        return None
    if "\x00" in value or ":" in value or value.startswith(("/", "\\")) or os.path.isabs(value):
        return "search.index_dir must be a relative path inside the config directory"
    cleaned = posixpath.normpath(value.replace("\\", "/"))
    if cleaned in (".", "..") or cleaned.startswith("../") or ".." in value:
        return "search.index_dir must stay inside the config directory"
    if ".git" in cleaned.split("/"):
        return "search.index_dir must not be inside .git/ (git's own files are not the repository's)"
    return None


def _bad_env_name(name: str) -> bool:
    return not name.strip() or "=" in name or "\x00" in name


# -- the checks a kind cannot say ------------------------------------------------------------------


def _index_dir(value, names, _ctx):
    problem = index_dir_problem(value)
    return [((), problem)] if problem else []


def _weights(value, names, _ctx):
    return [((), f"{names['label']} must not be negative")] if any(w < 0 for w in value.values()) else []


def _example_path(value, names, _ctx):
    clean = value.replace("\\", "/")
    if posixpath.isabs(clean) or ".." in clean.split("/") or (len(clean) > 1 and clean[1] == ":"):
        return [((), f'search.examples entry "{value}" must be a path inside the repository')]
    return []


def _base_url(value, names, _ctx):
    if value != "" and not value.startswith(("http://", "https://")):
        return [((), f'{names["label"]} "{value}" must start with http:// or https://')]
    return []


def _api_key_env(value, names, _ctx):
    if value != "" and _bad_env_name(value):
        return [((), f'{names["label"]} holds an invalid variable name "{value}"')]
    return []


def _command(value, names, _ctx):
    return [((), f"{names['label']} must start with a program")] if value and not value[0].strip() else []


def _pass_env(value, names, _ctx):
    return [((), f'{names["label"]} holds an invalid variable name "{n}"') for n in value if _bad_env_name(n)]


def _regex(value, names, _ctx):
    from ..secrets.scan import compile_pattern

    try:
        compile_pattern(value)  # RE2: linear-time matching, so no pattern can hang a hook
    except ValueError as exc:
        return [((), f"{names['where']}: regex does not compile: {exc}")]
    return []


def _min(value, names, _ctx):
    from .minimums import parse_minimums

    try:
        parse_minimums(value)
    except SkillsiftError as exc:
        return [((), "validate.min: " + exc.message.removeprefix("--min "))]
    return []


def _known_code(value, names, ctx):
    codes = ctx.values.get("codes") or ()
    if codes and not any(c.startswith(value.strip().upper()) for c in codes):
        return [((), f'validate.ignore: unknown code "{value}"')]
    return []


def _agent_names() -> tuple[str, ...]:
    return NAMES


def _known_agent(value, names, _ctx):
    known = _agent_names()
    if value not in known:
        return [((), f'validate.agents: unknown agent "{value}" (known: {", ".join(known)})')]
    return []


def _judge_agent(value, names, _ctx):
    known = _agent_names()
    if value not in known:
        return [((), f'judge.agent: unknown agent "{value}" (known: {", ".join(known)})')]
    return []


_SOURCE_NAME = "^[a-z0-9][a-z0-9._-]{0,63}$"
# A URL git may fetch: one of these transports (never ext:: or fd::), or git's scp-like user@host:path.
GIT_URL = r"^(?:(?:https?|ssh|git|file)://[^\s\x00-\x1f]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s\x00-\x1f]+)$"
# A tag, branch or commit name: no option (-...), no range (..), no white space or control character.
GIT_REV = r"^(?!-)(?!.*\.\.)[^\s\x00-\x1f]+$"
# A folder inside the source: relative, no .. part, no drive letter, no NUL.
SUBDIR = r"^(?![/\\])(?![A-Za-z]:)(?!(?:.*[/\\])?\.\.(?:[/\\]|$))[^\x00]*$"


def _matches(pattern: str, value: str) -> bool:
    import re

    return re.match(pattern, value) is not None


def _source_entry(value, names, _ctx):
    where = names["label"]
    has_git, has_path = "git" in value, "path" in value
    problems = []
    if has_git == has_path:
        problems.append(((), f"{where}: set exactly one of git = URL or path = folder"))
    if has_git and not _matches(GIT_URL, value["git"]):
        problems.append((("git",), f"{where}: git must be an https://, http://, ssh://, git:// or file:// URL, or "
                                   "user@host:path, without white space"))
    if has_git and "rev" not in value:
        problems.append(((), f'{where}: a git source needs rev = "<tag, branch or commit>"'))
    if has_path and "rev" in value:
        problems.append((("rev",), f"{where}: rev applies to git sources only"))
    if "rev" in value and not _matches(GIT_REV, value["rev"]):
        problems.append((("rev",), f'{where}: rev "{value["rev"]}" is not a tag, branch or commit name'))
    if "subdir" in value and not _matches(SUBDIR, value["subdir"]):
        problems.append((("subdir",), f"{where}: subdir must be a folder inside the source (relative, without ..)"))
    return problems


def _unique_source_names(value, names, _ctx):
    seen: set[str] = set()
    problems = []
    for index, entry in enumerate(value):
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name in seen:
            problems.append(((index, "name"), f'sources: the name "{name}" is used twice; names must be unique'))
        if isinstance(name, str):
            seen.add(name)
    return problems


# -- the tables ------------------------------------------------------------------------------------


def _int(low, high, default=None, between=False, doc="", **more) -> Rule:
    return Rule("int", low=low, high=high, between=between, default=default, doc=doc, **more)


def _number(low, high, default=None, between=False, doc="", **more) -> Rule:
    return Rule("number", low=low, high=high, between=between, default=default, doc=doc, **more)


def _choice(values, default, doc="") -> Rule:
    return Rule("choice", choices=values, default=default, doc=doc)


_STRINGS = Rule("string")
_ENV_NAME = "^[^=\\u0000]*[^=\\u0000\\s][^=\\u0000]*$"  # an environment variable name: not blank, no = or NUL

SEARCH = Rule("table", doc="Ranking: mode, fusion, what is embedded, limits (docs/configuration.md).", keys={
    "mode": _choice(MODES, S.mode, "Ranking used by search and the primary mode of eval."),
    "fusion": _choice(FUSIONS, S.fusion, "How lexical and vector lists combine in hybrid mode."),
    "dtype": _choice(DTYPES, S.dtype, "Vector storage type."),
    "fields": Rule("list", items=Rule("choice", choices=DEFAULT_FIELDS, empty_ok=False), default=list(S.fields),
                   doc="The text embedded per skill; empty = default."),
    "body_chars": _int(0, 20000, S.body_chars, True, "Characters of body embedded when index_body is on."),
    "rrf_k": _int(0, 10000, S.rrf_k, doc="The RRF constant (0 = default)."),
    "weights": Rule("table", unknown="up", check=_weights, doc="Fusion weights.", keys={
        name: _number(None, 1000, 1.0, schema={"minimum": 0}) for name in WEIGHT_KEYS}),
    "vector_min_sim": _number(0, 1, S.vector_min_sim, True, "Abstain when no cosine reaches it."),
    "candidates": _int(0, 1000, S.candidates, True, "Entries kept per list before fusion."),
    "batch_size": _int(0, 2048, S.batch_size, True, "Texts per embedding call of skillsift index."),
    "query_timeout_ms": _int(0, 60000, S.query_timeout_ms, True, "Limit for embedding the query."),
    "index_dir": Rule("string", check=_index_dir, default=S.index_dir,
                      doc="Where manifest.json and vectors.bin live, relative to the repository."),
    "index_body": Rule("bool", default=S.index_body, doc="Also embed the start of the SKILL.md body."),
    "log_queries": Rule("bool", default=S.log_queries, doc="Record queries for skillsift mine (user scope only)."),
    "long_query": _choice(LONG_QUERIES, S.long_query, "How a query longer than the model reads is embedded."),
    "long_query_words": _int(0, 400, S.long_query_words, True, "Words per piece of a long query."),
    "examples": Rule("list", items=Rule("string", nonblank=True, check=_example_path), default=[],
                     messages={"blank": "{label} holds a blank entry"},
                     doc="Examples files of known requests: paths or globs inside the repository."),
    "example_weight": _number(0, 1, S.example_weight, True, "How much a skill's closest known requests lift it."),
    "mnz_bonus": _number(0, 10, S.mnz_bonus, True, "zscore-mnz: the bonus of a candidate in both lists' first "
                         "mnz_depth."),
    "mnz_depth": _int(0, 1000, S.mnz_depth, True, "zscore-mnz: how deep both lists are read for the bonus "
                      "(at most candidates; 0 = default)."),
    "request_lexical_weight": _number(0, 10, S.request_lexical_weight, True,
                                      "zscore-mnz: the weight of BM25 over the known requests' text."),
})

EMBEDDINGS_KEYS = {
    "provider": _choice(PROVIDERS, E.provider, "The embedding provider."),
    "model": Rule("string", default=E.model, doc="Model name, recorded in the index."),
    "base_url": Rule("string", check=_base_url, default=E.base_url,
                     doc="OpenAI-compatible endpoint (user scope only).", schema={"pattern": "^(https?://.*)?$"}),
    "api_key_env": Rule("string", check=_api_key_env, default=E.api_key_env, schema={"pattern": "^$|" + _ENV_NAME},
                        doc="The environment variable holding the API key (user scope only)."),
    "command": Rule("list", items=_STRINGS, check=_command, default=[],
                    doc="Program of the command provider (argv)."),
    "pass_env": Rule("list", items=Rule("string", schema={"pattern": _ENV_NAME}), check=_pass_env, default=[],
                     doc="Extra variables the command sees."),
    "allow_network": Rule("bool", default=E.allow_network, doc="Let text leave the machine (user scope only)."),
    "max_calls": _int(0, 1_000_000, E.max_calls, doc="Embedding calls per run (0 = unlimited)."),
    "max_tokens": _int(0, 1_000_000_000, E.max_tokens, doc="Estimated input tokens per run (0 = unlimited)."),
    "max_cost_usd": _number(0, 1_000_000, E.max_cost_usd, doc="Spend per run (0 = unlimited)."),
    "price_input_per_mtok": _number(0, 1000, doc="USD per million input tokens (user scope only)."),
    "timeout_seconds": _number(0, 3600, E.timeout_seconds, doc="Per request to the openai endpoint."),
    "max_retries": _int(0, 10, E.max_retries, True, "Retries on 429 and 5xx."),
    "cache": Rule("bool", default=E.cache, doc="On-disk response cache."),
}
EMBEDDINGS = Rule("table", keys=EMBEDDINGS_KEYS, doc="The embedding provider, its budget and gate.")
AI_RULEZ_EMBEDDINGS = Rule("table", keys={k: EMBEDDINGS_KEYS[k] for k in AI_RULEZ_EMBEDDINGS_KEYS})

_PATHS = Rule("list", items=Rule("string", nonblank=True), messages={"blank": "{label} holds a blank entry"},
              doc="Folders or globs holding skills, relative to the root (default: the usual layouts).")
CATALOG = Rule("table", keys={"skills": _PATHS}, doc="Where the skills are: paths or globs.")
ROLES = Rule("table", doc="Roles: each [roles.<name>] names the skills it serves.", values=Rule(
    "table", keys={"skills": Rule("list", items=Rule("string", nonblank=True), required=True,
                                  doc="The skill names or globs the role may use.",
                                  messages={"blank": "{label} holds a blank entry",
                                            "required": "{where} needs skills = [names or globs]"})},
    messages={"kind": "{label} must be a table with skills = [names or globs]"}))
SECRETS = Rule("table", doc="Extra secret patterns (RE2 syntax).", keys={"patterns": Rule(
    "list", entries="indexed", messages={"kind": "{label} must be a list of {{name, regex}} tables"},
    items=Rule("table", messages={"kind": "{label} must be a table with name and regex"}, keys={
        "name": Rule("string", nonblank=True, required=True, doc="The kind its findings name.",
                     messages={"kind": "{where}: name must be a non-empty string",
                               "required": "{where}: name must be a non-empty string"}),
        "regex": Rule("string", required=True, check=_regex, schema={"minLength": 1},
                      doc="The pattern, in RE2 syntax (no backreferences or lookaround).",
                      messages={"kind": "{where}: regex must be a non-empty string",
                                "required": "{where}: regex must be a non-empty string"}),
    }))})

_GE0 = {"kind": "{label} must be an integer >= 0", "low": "{label} must be an integer >= 0"}
_OFF = "{label} must be between 0 and 1 (0 turns it off)"
_PATH_MESSAGES = {"kind": "{label} must be a path"}
VALIDATE = Rule("table", unknown="first", doc="What skillsift validate and the hooks check, and how strictly.", keys={
    "cases": Rule("list", one_or_list=True, items=Rule("string", nonblank=True),
                  messages={"kind": "{label} must be a path or a list of paths"}, doc="The cases files."),
    "min": Rule("string", check=_min, messages={"kind": '{label} must be a string such as "top1=0.6,mrr=0.7"'},
                doc="AR9D4 floors on the primary mode."),
    "baseline": Rule("string", nonblank=True, messages=_PATH_MESSAGES, doc="A saved skillsift eval --output."),
    "secrets_baseline": Rule("string", nonblank=True, messages=_PATH_MESSAGES,
                             default=".skillsift/secrets-baseline.json", doc="Accepted secret findings."),
    "max_flips": _int(0, MAX_FLIPS_LIMIT, 0, messages=_GE0, doc="Cases allowed to regress against the baseline."),
    "max_rank_drops": _int(0, MAX_FLIPS_LIMIT, messages=_GE0, doc="Cases allowed to drop in rank (default: no limit)."),
    "mode": Rule("choice", choices=MODES, doc="Mode the gates rank in (default: [search] mode).",
                 messages={"kind": '{label} "{value}" must be {choices}', "choice": '{label} "{value}" must be '
                                                                                    '{choices}'}),
    "preset": Rule("choice", choices=("recommended", "strict"), default="recommended", empty_ok=False,
                   doc="Checks run: recommended (the default) or strict (every check, the opt-in ones too).",
                   messages={"kind": '{label} "{value}" must be {choices}', "choice": '{label} "{value}" must be '
                                                                                      '{choices}'}),
    "fail_on_gate_change": Rule("bool", default=False, messages={"kind": "{label} must be true or false"},
                                doc="skillsift ci fails when a pull request changes its own gate."),
    "judge_max_flips": _int(0, MAX_FLIPS_LIMIT, messages=_GE0,
                            doc="skillsift ci: cases the agent chose right on the base and not on the head "
                                "(docs/judge.md; default: no judge gate)."),
    "k": _int(0, 100, 0, True, "Cut-off (0 = the cases file's k).",
              messages={"kind": "{label} must be between 0 and 100 (0 = the cases file's k)",
                        "between": "{label} must be between 0 and 100 (0 = the cases file's k)"}),
    "near_duplicate_threshold": _number(0, 1, 0.9, True, "SK009 lexical similarity (0 turns it off).",
                                        finite=False, messages={"kind": _OFF, "between": _OFF}),
    "near_duplicate_cosine": _number(0, 1, 0.97, True, "SK009 cosine when an index exists (0 turns it off).",
                                     finite=False, messages={"kind": _OFF, "between": _OFF}),
    "ignore": Rule("list", items=Rule("string", check=_known_code),
                   messages={"kind": "{label} must be a list of codes"},
                   doc="Codes or prefixes never reported."),
    "agents": Rule("list", items=Rule("string", check=_known_agent, schema={"enum": list(_agent_names())}),
                   doc="Agent profiles checked.",
                   messages={"kind": "{label} must be a list of agent names (" + ", ".join(_agent_names()) + ")"}),
    "description_limits": Rule("table", doc="SK007: characters an agent lists; 0 drops a default.",
                               messages={"kind": "{label} must be a table of agent = characters"},
                               values=_int(0, DESCRIPTION_LIMIT_MAX, messages={
                                   "kind": "{label} must be an integer >= 0 (0 drops the limit)",
                                   "low": "{label} must be an integer >= 0 (0 drops the limit)"})),
    "severity": Rule("table", doc="error | warning | note | off per code.",
                     messages={"kind": "{label} must be a table of CODE = severity",
                               "unknown": 'validate.severity: unknown code "{key}"'},
                     key_names=lambda ctx: ctx.values.get("codes") or None,
                     values=Rule("choice", choices=SEVERITIES, empty_ok=False,
                                 messages={"kind": '{label} "{value}" must be error, warning, note or off',
                                           "choice": '{label} "{value}" must be error, warning, note or off'})),
})

JUDGE = Rule("table", doc="The agent asked which skill it would use (docs/judge.md).", keys={
    "command": Rule("list", items=_STRINGS, check=_command, default=[],
                    doc="The agent's non-interactive command (argv, prompt on stdin); a repository's runs "
                        "only with --allow-exec."),
    "pass_env": Rule("list", items=Rule("string", schema={"pattern": _ENV_NAME}), check=_pass_env, default=[],
                     doc="Extra variables the command sees."),
    "agent": Rule("string", check=_judge_agent, default=J.agent, schema={"enum": list(_agent_names())},
                  doc="The agent profile whose listing the prompt holds."),
    "timeout_seconds": _number(0, 3600, J.timeout_seconds, True, "Per call (0 = default)."),
    "cache": _choice(JUDGE_CACHES, J.cache, "Where answers are kept: .skillsift/judge-cache.jsonl, the user cache, "
                                            "or nowhere."),
    "fetch_in_ci": Rule("bool", default=J.fetch_in_ci, doc="With CI=true, call the agent for a missing answer."),
    "max_calls": _int(0, 1_000_000, J.max_calls, doc="Calls per run (0 = unlimited; --budget overrides)."),
})

_SOURCE_MESSAGES = {"kind": "{label} must be a string", "blank": "{label} must not be blank"}
_ONE_OF_GIT_OR_PATH = {"oneOf": [
    {"required": ["git", "rev"], "not": {"required": ["path"]}},
    {"required": ["path"], "not": {"anyOf": [{"required": ["git"]}, {"required": ["rev"]}]}},
]}
SOURCES = Rule("list", entries="indexed", check=_unique_source_names, max_items=64,
               doc="Skills from other repositories or folders: [[sources]] tables (docs/sources.md).",
               messages={"kind": "sources must be a list of [[sources]] tables with a name and git or path",
                         "many": "sources holds more than {high} entries"},
               items=Rule("table", check=_source_entry, schema=_ONE_OF_GIT_OR_PATH,
                          messages={"kind": "{label} must be a table with a name and git or path"}, keys={
                              "name": Rule("string", nonblank=True, required=True, schema={"pattern": _SOURCE_NAME},
                                           doc="The source's name: lowercase letters, digits, ., _ or -.",
                                           check=lambda v, n, c: [] if _matches(_SOURCE_NAME, v) else [
                                               ((), f'{n["label"]}: "{v}" must be lowercase letters, digits, '
                                                    '".", "_" or "-" (at most 64)')],
                                           messages={**_SOURCE_MESSAGES, "required": "{where}: name is required"}),
                              "git": Rule("string", nonblank=True, schema={"pattern": GIT_URL},
                                          doc="A git URL (https, ssh, git, file).", messages=_SOURCE_MESSAGES),
                              "path": Rule("string", nonblank=True, doc="A folder, relative to the repository root.",
                                           messages=_SOURCE_MESSAGES),
                              "rev": Rule("string", nonblank=True, schema={"pattern": GIT_REV},
                                          doc="Tag, branch or commit of a git source.", messages=_SOURCE_MESSAGES),
                              "subdir": Rule("string", schema={"pattern": SUBDIR},
                                             doc="The folder of the source that holds the skills.",
                                             messages=_SOURCE_MESSAGES),
                          }))

_TABLES = {"search": SEARCH, "embeddings": EMBEDDINGS, "catalog": CATALOG, "roles": ROLES, "secrets": SECRETS,
           "validate": VALIDATE, "sources": SOURCES, "judge": JUDGE}


@lru_cache(maxsize=8)
def document_rule(tables: tuple[str, ...], *, ai_rulez: bool = False) -> Rule:
    """The rule of one config document holding ``tables`` (an ai-rulez file: ``[search.embeddings]``)."""
    keys = {name: _TABLES[name] for name in tables}
    if ai_rulez:
        keys.pop("embeddings", None)
        keys["search"] = Rule("table", keys={**SEARCH.keys, "embeddings": AI_RULEZ_EMBEDDINGS})  # type: ignore[dict-item]
    return Rule("table", keys=keys, messages={"unknown": 'unknown key "{key}" (known tables: '
                                                           + ", ".join(tables) + ")"})


PROJECT = document_rule(PROJECT_TABLES)
USER = document_rule(USER_TABLES)


def numeric_ranges(rule: Rule = PROJECT, label: str = "") -> dict[str, tuple]:
    """``"table.key" -> (low, high)`` for every bounded number of ``rule`` (docs/configuration.md, "Numbers")."""
    out: dict[str, tuple] = {}
    if rule.kind in ("int", "number") and rule.high is not None:
        out[label] = (0 if rule.low is None else rule.low, rule.high)
    for key, sub in (rule.keys or {}).items():
        out.update(numeric_ranges(sub, f"{label}.{key}" if label else key))
    if rule.values is not None and rule.values.kind in ("int", "number"):
        out.update(numeric_ranges(rule.values, f"{label}.<agent>"))
    return out

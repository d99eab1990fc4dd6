"""Configuration: the resolved settings of one run (dataclasses) and their loading.

Loading and validation live below the dataclasses; the dataclasses are what every
other module reads.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic, SkillsiftError

DEFAULT_FIELDS = ("name", "triggers", "keywords", "description")  # the fields that can be embedded
# What is embedded by default: the name is matched lexically, not embedded (docs/ranking-quality.md).
DEFAULT_EMBED_FIELDS = ("description", "triggers", "keywords")
DEFAULT_INDEX_DIR = ".skillsift/index"
LOCAL_DIR = ".skillsift/local"


@dataclass(frozen=True)
class SearchConfig:
    """The resolved ``[search]`` table (defaults applied)."""

    mode: str = "lexical"
    fields: tuple[str, ...] = DEFAULT_EMBED_FIELDS
    index_body: bool = False
    body_chars: int = 1200
    fusion: str = "blend"  # chosen on two development sets: docs/ranking-quality.md
    rrf_k: int = 60
    weight_lexical: float = 1.0
    weight_vector: float = 1.0
    vector_min_sim: float = 0.0
    candidates: int = 50
    query_timeout_ms: int = 800
    batch_size: int = 64
    index_dir: str = DEFAULT_INDEX_DIR
    dtype: str = "float32"
    log_queries: bool = False


@dataclass(frozen=True)
class EmbeddingsConfig:
    """The resolved ``[embeddings]`` table: provider settings, gate and budget."""

    provider: str = "local"  # local | openai | command
    model: str = ""  # "" = the provider's default (local: all-MiniLM-L6-v2)
    base_url: str = ""  # openai: e.g. https://api.openai.com/v1 (user scope only)
    api_key_env: str = ""  # name of the env var holding the key (user scope only)
    command: tuple[str, ...] = ()  # argv of the command provider (user scope only)
    pass_env: tuple[str, ...] = ()
    allow_network: bool = False  # user scope or env only
    max_calls: int = 0  # 0 = unlimited
    max_tokens: int = 0
    max_cost_usd: float = 0.0
    price_input_per_mtok: float | None = None
    timeout_seconds: float = 60.0
    max_retries: int = 3
    cache: bool = True


@dataclass(frozen=True)
class Config:
    """Everything one run resolved: where it came from and what it says."""

    root: str = "."
    search: SearchConfig = field(default_factory=SearchConfig)
    embeddings: EmbeddingsConfig = field(default_factory=EmbeddingsConfig)
    skills: tuple[str, ...] = ()  # paths/globs of skill folders or roots; () = default layouts
    roles: dict = field(default_factory=dict)  # role -> tuple of names/globs
    secret_patterns: tuple[tuple[str, str], ...] = ()  # (name, regex) extra AR001 patterns
    sources: tuple[str, ...] = ()  # config files read, in precedence order (low to high)
    notes: tuple[str, ...] = ()  # things the user should hear once (ignored repository keys...)
    raw: dict = field(default_factory=dict, compare=False, hash=False, repr=False)


# ---------------------------------------------------------------------------
# Allowed values and key sets
# ---------------------------------------------------------------------------

MODES = ("lexical", "hybrid", "vector")
FUSIONS = ("auto", "rrf", "weighted", "blend")
DTYPES = ("float32", "float16")
PROVIDERS = ("local", "openai", "command")
CODE = "AR9D0"

SEARCH_DEFAULTS = SearchConfig()
EMBEDDINGS_DEFAULTS = EmbeddingsConfig()

# key -> kind, in the order problems are reported (reference §9.2, then the keys it does not check)
_SEARCH_KINDS = {
    "mode": "string", "fusion": "string", "dtype": "string", "fields": "strings", "body_chars": "integer",
    "rrf_k": "integer", "weights": "table", "vector_min_sim": "number", "candidates": "integer",
    "batch_size": "integer", "query_timeout_ms": "integer", "index_dir": "string", "index_body": "bool",
    "log_queries": "bool",
}
_WEIGHT_KEYS = ("lexical", "vector")
_EMBEDDINGS_KINDS = {
    "provider": "string", "model": "string", "base_url": "string", "api_key_env": "string",
    "command": "strings", "pass_env": "strings", "allow_network": "bool", "max_calls": "integer",
    "max_tokens": "integer", "max_cost_usd": "number", "price_input_per_mtok": "number",
    "timeout_seconds": "number", "max_retries": "integer", "cache": "bool",
}
# the [search.embeddings] keys of an ai-rulez repository config
_AI_RULEZ_EMBEDDINGS_KEYS = ("command", "model", "pass_env")
_INT_RANGES = {
    "body_chars": (0, 20000), "candidates": (0, 1000), "batch_size": (0, 2048),
    "query_timeout_ms": (0, 60000),
}
MAX_RETRIES_LIMIT = 10
PROJECT_TABLES = ("search", "embeddings", "catalog", "roles", "secrets", "validate")
USER_TABLES = ("search", "embeddings", "secrets")
_KIND_WORDS = {
    "string": "a string", "integer": "an integer", "number": "a number", "bool": "true or false",
    "strings": "a list of strings", "table": "a table",
}

ENV_MODE = "SKILLSIFT_SEARCH_MODE"
ENV_LOG_QUERIES = "SKILLSIFT_LOG_QUERIES"
ENV_ALLOW_NETWORK = "SKILLSIFT_ALLOW_NETWORK"

# trust: repository keys that are ignored, with the reason a repository cannot set them
_TRUST_NOTES = {
    "search.log_queries": f"a repository cannot start recording queries; set it in the user config file or "
                          f"{ENV_LOG_QUERIES}=1",
    "embeddings.allow_network": f"a repository cannot open the network; set it in the user config file or "
                                f"{ENV_ALLOW_NETWORK}=1",
    "embeddings.base_url": "a repository cannot choose where text is sent; set it in the user config file",
    "embeddings.api_key_env": "a repository cannot choose which key is sent; set it in the user config file",
    "embeddings.price_input_per_mtok": "a repository cannot change the price the budget counts; "
                                       "set it in the user config file",
    "embeddings.command": "a repository cannot run a program; "
                          "set it in the user config file or pass --allow-exec",
    "embeddings.pass_env": "a repository cannot choose what a program sees; "
                           "set it in the user config file or pass --allow-exec",
}


def _mode_problem(source: str, value: str) -> str:
    return f'{source} "{value}" must be lexical, hybrid or vector'


# ---------------------------------------------------------------------------
# Pure validation: a table in, problems out
# ---------------------------------------------------------------------------


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
    """The §9.2 problem of an ``index_dir`` value, or None ("" is fine: the default)."""
    if value == "":
        return None
    if "\x00" in value or ":" in value or value.startswith(("/", "\\")) or os.path.isabs(value):
        return "search.index_dir must be a relative path inside the config directory"
    cleaned = posixpath.normpath(value.replace("\\", "/"))
    if cleaned in (".", "..") or cleaned.startswith("../") or ".." in value:
        return "search.index_dir must stay inside the config directory"
    return None


def _clean_index_dir(value: str) -> str:
    return posixpath.normpath(value.replace("\\", "/"))


def _search_problems(table: dict) -> list[tuple[tuple, str]]:
    """(key path inside the table, message) for every problem of a ``[search]`` table, in report order."""
    out: list[tuple[tuple, str]] = []
    unknown: list[tuple[tuple, str]] = []
    for key, kind in _SEARCH_KINDS.items():
        if key not in table:
            continue
        value = table[key]
        if not _is_kind(value, kind):
            out.append(((key,), f"search.{key} must be {_KIND_WORDS[kind]}"))
            continue
        if key in ("mode", "fusion", "dtype"):
            allowed = {"mode": MODES, "fusion": FUSIONS, "dtype": DTYPES}[key]
            if value != "" and value not in allowed:
                if key == "mode":
                    out.append(((key,), _mode_problem("search.mode", value)))
                elif key == "fusion":
                    out.append(((key,), f'search.fusion "{value}" must be auto, rrf, weighted or blend'))
                else:
                    out.append(((key,), f'search.dtype "{value}" must be float32 or float16'))
        elif key == "fields":
            for entry in value:
                if entry not in DEFAULT_FIELDS:
                    out.append(((key,), f'search.fields entry "{entry}" must be name, triggers, keywords or '
                                        "description"))
        elif key in _INT_RANGES:
            low, high = _INT_RANGES[key]
            if not low <= value <= high:
                out.append(((key,), f"search.{key} must be between {low} and {high}"))
        elif key == "rrf_k":
            if value < 0:
                out.append(((key,), "search.rrf_k must not be negative"))
        elif key == "weights":
            negative = False
            for name, weight in value.items():
                if name not in _WEIGHT_KEYS:
                    unknown.append(((key, name), f'search.weights: unknown key "{name}"'))
                elif not _is_kind(weight, "number"):
                    out.append(((key, name), f"search.weights.{name} must be a number"))
                elif weight < 0:
                    negative = True
            if negative:
                out.append(((key,), "search.weights must not be negative"))
        elif key == "vector_min_sim":
            if not 0 <= value <= 1:
                out.append(((key,), "search.vector_min_sim must be between 0 and 1"))
        elif key == "index_dir":
            problem = index_dir_problem(value)
            if problem:
                out.append(((key,), problem))
    for key in table:
        if key not in _SEARCH_KINDS:
            unknown.append(((key,), f'search: unknown key "{key}"'))
    return out + unknown


def validate_search_table(table: dict) -> list[str]:
    """Every problem of a parsed ``[search]`` table, in the reference's order (§9.2), then unknown keys.

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
    kinds = _EMBEDDINGS_KINDS if allowed is None else {k: _EMBEDDINGS_KINDS[k] for k in allowed}
    for key, kind in kinds.items():
        if key not in table:
            continue
        value = table[key]
        if not _is_kind(value, kind):
            out.append(((key,), f"{label}.{key} must be {_KIND_WORDS[kind]}"))
            continue
        if key == "provider" and value != "" and value not in PROVIDERS:
            out.append(((key,), f'{label}.provider "{value}" must be local, openai or command'))
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
        elif key == "max_retries" and not 0 <= value <= MAX_RETRIES_LIMIT:
            out.append(((key,), f"{label}.max_retries must be between 0 and {MAX_RETRIES_LIMIT}"))
        elif kind in ("integer", "number") and key != "max_retries" and value < 0:
            out.append(((key,), f"{label}.{key} must not be negative"))
    for key in table:
        if key not in kinds:
            out.append(((key,), f'{label}: unknown key "{key}"'))
    return out


def validate_embeddings_table(table: dict) -> list[str]:
    """Every problem of a parsed ``[embeddings]`` table (types, values, unknown keys)."""
    if not isinstance(table, dict):
        return ["embeddings must be a table"]
    return [message for _path, message in _embeddings_problems(table)]


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
    import re

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
            try:
                re.compile(regex)
            except re.error as exc:
                out.append((where + ("regex",), f"{label}: regex does not compile: {exc}"))
        out += [(where + (key,), f'{label}: unknown key "{key}"')
                for key in entry if key not in ("name", "regex")]
    out += [((key,), f'secrets: unknown key "{key}"') for key in table if key != "patterns"]
    return out


def _document_problems(doc: dict, tables: tuple[str, ...], ai_rulez: bool = False) -> list[tuple[tuple, str]]:
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
                        _embeddings_problems(table, "search.embeddings", _AI_RULEZ_EMBEDDINGS_KEYS)]
            else:
                out += [(("embeddings",) + path, msg) for path, msg in _embeddings_problems(table)]
        elif name == "catalog":
            out += [(("catalog",) + path, msg) for path, msg in _catalog_problems(table)]
        elif name == "roles":
            out += [(("roles",) + path, msg) for path, msg in _roles_problems(table)]
        elif name == "secrets":
            out += [(("secrets",) + path, msg) for path, msg in _secrets_problems(table)]
    known = ", ".join(tables)
    for name in doc:
        if name not in tables:
            out.append(((name,), f'unknown key "{name}" (known tables: {known})'))
    return out


# ---------------------------------------------------------------------------
# Finding lines in TOML text (for diagnostics)
# ---------------------------------------------------------------------------

_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_key_res: list = []


def _regexes():
    if not _key_res:
        import re

        _key_res.extend([
            re.compile(_KEY_PART),
            re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]"),
            re.compile(rf"^\s*({_DOTTED})\s*=\s*(.?)"),
        ])
    return _key_res


def _split_dotted(text: str) -> tuple[str, ...]:
    if not text:
        return ()
    part_re = _regexes()[0]
    parts = []
    for match in part_re.finditer(text):
        part = match.group(0)
        parts.append(part[1:-1] if part[:1] in ("'", '"') else part)
    return tuple(parts)


def _line_paths(text: str):
    """(line number, full key path, kind, first character of the value) for each header and key line."""
    _part_re, header_re, key_re = _regexes()
    current: tuple = ()
    seen_arrays: dict[tuple, int] = {}
    multiline = ""
    for number, line in enumerate(text.splitlines(), 1):
        if multiline:
            if line.count(multiline) % 2 == 1:
                multiline = ""
            continue
        header = header_re.match(line)
        if header:
            path = _split_dotted(header.group(2))
            if header.group(1) == "[[":
                index = seen_arrays.get(path, 0)
                seen_arrays[path] = index + 1
                yield number, path, "header", ""
                current = path + (index,)
            else:
                current = path
            yield number, current, "header", ""
            continue
        key = key_re.match(line)
        if key:
            yield number, current + _split_dotted(key.group(1)), "key", key.group(2)
            for delimiter in ('"""', "'''"):
                if line.count(delimiter) % 2 == 1:
                    multiline = delimiter
                    break


def _find_path_line(text: str, path: tuple, *, fallback: bool) -> int | None:
    entries = list(_line_paths(text))
    target = tuple(path)
    while target:
        for number, found, _kind, _first in entries:
            if found == target:
                return number
        for number, found, kind, first in entries:
            # an inline table or array of tables holding the target: `weights = { lexical = -1 }`
            inline = kind == "key" and first in ("{", "[")
            if inline and len(found) < len(target) and target[: len(found)] == found:
                return number
        if not fallback:
            return None
        for number, found, _kind, _first in entries:
            # a table only defined through dotted keys: `search.mode = "x"`
            if found[: len(target)] == target:
                return number
        target = target[:-1]
    return None


def find_key_line(text: str, table: str, key: str) -> int | None:
    """The 1-based line where ``key`` of ``table`` is set in TOML ``text`` (``key`` "" = the table header).

    ``table`` and ``key`` are dotted (``tool.skillsift.search``, ``weights.lexical``); a key set
    inside an inline table is found on that table's line.  None when it is not written there.
    """
    return _find_path_line(text, _split_dotted(table) + _split_dotted(key), fallback=False)


# ---------------------------------------------------------------------------
# Reading the files
# ---------------------------------------------------------------------------


class _Source:
    """One config file that was read: its text, its table in skillsift's shape, where that table sits.

    ``doc`` holds the tables search, embeddings, catalog, roles, secrets, validate; ``prefix`` is
    where that table starts in the file (pyproject: ``tool.skillsift``); ``index_base`` is the
    directory a repository ``index_dir`` is relative to ("" = the root, ``.ai-rulez``).
    """

    __slots__ = ("path", "display", "text", "doc", "prefix", "ai_rulez", "index_base")

    def __init__(self, path: Path, display: str, text: str, doc: dict, prefix: tuple = (),
                 ai_rulez: bool = False, index_base: str = ""):
        self.path, self.display, self.text, self.doc = path, display, text, doc
        self.prefix, self.ai_rulez, self.index_base = prefix, ai_rulez, index_base


def _load_toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _read_toml(path: Path, display: str, problems: list[Diagnostic]) -> tuple[str, dict] | None:
    """(text, parsed document), or None after adding the AR9D0 problem that stopped it."""
    import re

    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        problems.append(Diagnostic(code=CODE, file=display,
                                   message=f"{display} cannot be read: {exc.strerror}"))
        return None
    except UnicodeDecodeError:
        problems.append(Diagnostic(code=CODE, file=display, message=f"{display} is not UTF-8 text"))
        return None
    tomllib = _load_toml()
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        detail = str(exc)
        line = column = None
        where = re.search(r"\s*\(at line (\d+), column (\d+)\)", detail)
        if where:
            line, column = int(where.group(1)), int(where.group(2))
            detail = detail[: where.start()] + detail[where.end():]
        elif "(at end of document)" in detail:
            line = max(1, len(text.splitlines()))
            detail = detail.replace(" (at end of document)", "")
        at = f" (line {line})" if line else ""
        problems.append(Diagnostic(code=CODE, file=display, line=line, column=column,
                                   message=f"{display} is not valid TOML{at}: {detail.strip()}",
                                   hint="fix the TOML syntax at that line"))
        return None


def _ai_rulez_doc(parsed: dict) -> dict | None:
    """Map an ai-rulez ``.ai-rulez/config.toml`` onto skillsift's tables (its ``[search]`` is ours)."""
    search = parsed.get("search")
    if search is None:
        return None
    if not isinstance(search, dict):
        return {"search": search}
    search = dict(search)
    doc: dict = {"search": search}
    if "embeddings" in search:
        doc["embeddings"] = search.pop("embeddings")
    return doc


def _effective_doc(source: _Source) -> dict:
    """The document to merge: an ai-rulez ``[search.embeddings]`` command selects the command provider."""
    embeddings = source.doc.get("embeddings")
    if source.ai_rulez and isinstance(embeddings, dict) and embeddings.get("command"):
        return {**source.doc, "embeddings": {"provider": "command", **embeddings}}
    return source.doc


def _project_source(root: Path, config_file, problems: list[Diagnostic]) -> _Source | None:
    if config_file is not None:
        path = Path(config_file)
        display = _display(path, root)
        if not path.is_file():
            problems.append(Diagnostic(code=CODE, file=display,
                                       message=f"config file {display} does not exist",
                                       hint="check the --config path"))
            return None
        candidates = [path]
    else:
        candidates = [root / "skillsift.toml", root / "pyproject.toml", root / ".ai-rulez" / "config.toml"]
    for path in candidates:
        if not path.is_file():
            continue
        display = _display(path, root)
        is_pyproject = path.name == "pyproject.toml"
        is_ai_rulez = path.name == "config.toml" and path.parent.name == ".ai-rulez"
        if is_pyproject and config_file is None:
            try:
                if "tool.skillsift" not in path.read_text(encoding="utf-8", errors="replace"):
                    continue
            except OSError:
                continue
        read = _read_toml(path, display, problems)
        if read is None:
            return None
        text, parsed = read
        if is_pyproject:
            tool = parsed.get("tool", {})
            table = tool.get("skillsift") if isinstance(tool, dict) else None
            if table is None:
                if config_file is not None:
                    return _Source(path, display, text, {}, ("tool", "skillsift"))
                continue
            if not isinstance(table, dict):
                line = find_key_line(text, "tool", "skillsift")
                problems.append(Diagnostic(code=CODE, file=display, line=line,
                                           message="tool.skillsift must be a table"))
                return None
            return _Source(path, display, text, table, ("tool", "skillsift"))
        if is_ai_rulez:
            doc = _ai_rulez_doc(parsed)
            if doc is None and config_file is None:
                continue
            # ai-rulez resolves index_dir against the config directory
            base = _display(path.parent, root) if _inside(path.parent, root) else ""
            return _Source(path, display, text, doc or {}, (), ai_rulez=True,
                           index_base="" if base == "." else base)
        return _Source(path, display, text, parsed)
    return None


def user_config_file(env=None) -> Path | None:
    """Where the user config lives: ``$XDG_CONFIG_HOME/skillsift/config.toml``, else ``~/.config/...``."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "skillsift" / "config.toml"
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        return Path(home) / ".config" / "skillsift" / "config.toml"
    return None


def _user_source(root: Path, env, user_config_path, problems: list[Diagnostic]) -> _Source | None:
    path = Path(user_config_path) if user_config_path is not None else user_config_file(env)
    if path is None or not path.is_file():
        return None
    display = _display(path, root) if path.is_absolute() and _inside(path, root) else str(path)
    read = _read_toml(path, display, problems)
    if read is None:
        return None
    text, parsed = read
    return _Source(path, display, text, parsed)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False


def _source_problems(source: _Source, tables: tuple[str, ...]) -> list[Diagnostic]:
    out = []
    for path, message in _document_problems(source.doc, tables, source.ai_rulez):
        line = _find_path_line(source.text, source.prefix + path, fallback=True)
        out.append(Diagnostic(code=CODE, file=source.display, line=line, message=message))
    return out


def config_error(problems: list[Diagnostic]) -> SkillsiftError:
    """One AR9D0 error carrying every problem (message ``AR9D0: p1; p2; ...``)."""
    return SkillsiftError(f"{CODE}: " + "; ".join(d.message for d in problems), diagnostics=problems,
                          hint="see docs/configuration.md for every key and its allowed values", exit_code=1)


# ---------------------------------------------------------------------------
# Merging (pure): repository table, user table, env, flag -> Config
# ---------------------------------------------------------------------------


def _env_flag(env, name: str) -> bool | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    return value == "1" or value.lower() == "true"


def _table(doc: dict, name: str) -> dict:
    value = doc.get(name)
    return value if isinstance(value, dict) else {}


def _tighten(repo_value, user_value):
    """The lower non-zero limit of the two (0 = unlimited)."""
    set_values = [v for v in (repo_value, user_value) if v and v > 0]
    return min(set_values) if set_values else 0


def _merge_search(repo: dict, user: dict, index_base: str, env, notes: list[str]) -> dict:
    out: dict = {}
    for key in ("mode", "fusion", "dtype"):
        out[key] = user.get(key) or repo.get(key) or getattr(SEARCH_DEFAULTS, key)
    if user.get("index_dir"):
        out["index_dir"] = _clean_index_dir(user["index_dir"])
    elif repo.get("index_dir"):
        cleaned = _clean_index_dir(repo["index_dir"])
        out["index_dir"] = posixpath.join(index_base, cleaned) if index_base else cleaned
    else:
        out["index_dir"] = DEFAULT_INDEX_DIR
    out["fields"] = tuple(user.get("fields") or repo.get("fields") or DEFAULT_EMBED_FIELDS)
    for key in ("body_chars", "rrf_k", "candidates", "query_timeout_ms", "batch_size"):
        value = user.get(key, 0) if user.get(key, 0) > 0 else repo.get(key, 0)
        out[key] = value or getattr(SEARCH_DEFAULTS, key)
    out["index_body"] = bool(repo.get("index_body", False)) or bool(user.get("index_body", False))
    repo_weights, user_weights = _table(repo, "weights"), _table(user, "weights")
    for name in _WEIGHT_KEYS:
        value = user_weights.get(name, 0) if user_weights.get(name, 0) > 0 else repo_weights.get(name, 0)
        out[f"weight_{name}"] = float(value or 1.0)
    out["vector_min_sim"] = float(user["vector_min_sim"] if "vector_min_sim" in user
                                  else repo.get("vector_min_sim", 0.0))
    if repo.get("log_queries") is True:
        notes.append(_ignored("search.log_queries"))
    log_queries = bool(user.get("log_queries", False))
    env_log = _env_flag(env, ENV_LOG_QUERIES)
    out["log_queries"] = log_queries if env_log is None else env_log
    return out


def _ignored(key: str) -> str:
    return f"{key} in the repository config is ignored: {_TRUST_NOTES[key]}"


def _merge_embeddings(repo: dict, user: dict, env, allow_exec: bool, notes: list[str]) -> dict:
    d = EMBEDDINGS_DEFAULTS
    out: dict = {
        "provider": user.get("provider") or repo.get("provider") or d.provider,
        "model": user.get("model") or repo.get("model") or d.model,
        # user scope only
        "base_url": user.get("base_url", ""),
        "api_key_env": user.get("api_key_env", ""),
        "price_input_per_mtok": (float(user["price_input_per_mtok"]) if "price_input_per_mtok" in user
                                 else None),
    }
    env_network = _env_flag(env, ENV_ALLOW_NETWORK)
    out["allow_network"] = bool(user.get("allow_network", False)) if env_network is None else env_network
    if repo.get("allow_network") is True:
        notes.append(_ignored("embeddings.allow_network"))
    for key in ("base_url", "api_key_env"):
        if repo.get(key):
            notes.append(_ignored(f"embeddings.{key}"))
    if "price_input_per_mtok" in repo:
        notes.append(_ignored("embeddings.price_input_per_mtok"))
    # the command provider: the user's command (with its pass_env) replaces;
    # the repository's runs only with --allow-exec
    if user.get("command"):
        out["command"], out["pass_env"] = tuple(user["command"]), tuple(user.get("pass_env", ()))
    elif repo.get("command") and allow_exec:
        out["command"] = tuple(repo["command"])
        out["pass_env"] = tuple(user.get("pass_env") or repo.get("pass_env", ()))
    else:
        out["command"], out["pass_env"] = (), tuple(user.get("pass_env", ()))
    if not allow_exec:
        if repo.get("command"):
            notes.append(_ignored("embeddings.command"))
        if repo.get("pass_env"):
            notes.append(_ignored("embeddings.pass_env"))
    # budgets: a repository can only tighten
    out["max_calls"] = int(_tighten(repo.get("max_calls", 0), user.get("max_calls", 0)))
    out["max_tokens"] = int(_tighten(repo.get("max_tokens", 0), user.get("max_tokens", 0)))
    out["max_cost_usd"] = float(_tighten(repo.get("max_cost_usd", 0), user.get("max_cost_usd", 0)))
    timeout = user.get("timeout_seconds", 0)
    if not timeout > 0:
        timeout = repo.get("timeout_seconds", 0)
    out["timeout_seconds"] = float(timeout or d.timeout_seconds)
    out["max_retries"] = int(user.get("max_retries", repo.get("max_retries", d.max_retries)))
    out["cache"] = bool(user.get("cache", repo.get("cache", d.cache)))
    return out


def _patterns(doc: dict) -> list[tuple[str, str]]:
    return [(entry["name"], entry["regex"]) for entry in _table(doc, "secrets").get("patterns", [])]


def resolve(repo_doc: dict, user_doc: dict, *, root: str = ".", env=None, mode: str | None = None,
            allow_exec: bool = False, index_base: str = "", sources: tuple[str, ...] = ()) -> Config:
    """Merge validated documents (skillsift's shape) into a Config: §9.3 precedence, trust, defaults.

    Pure apart from reading ``env`` (a mapping).  ``mode`` is the ``--mode`` flag.
    """
    env = {} if env is None else env
    notes: list[str] = []
    search = _merge_search(_table(repo_doc, "search"), _table(user_doc, "search"), index_base, env, notes)
    env_mode = env.get(ENV_MODE, "").strip()
    if env_mode:
        search["mode"] = env_mode
    if mode is not None:
        search["mode"] = mode.strip()
    embeddings = _merge_embeddings(_table(repo_doc, "embeddings"), _table(user_doc, "embeddings"), env,
                                   allow_exec, notes)
    roles = {name: tuple(body.get("skills", ())) for name, body in sorted(_table(repo_doc, "roles").items())}
    return Config(
        root=root,
        search=SearchConfig(**search),
        embeddings=EmbeddingsConfig(**embeddings),
        skills=tuple(_table(repo_doc, "catalog").get("skills", ())),
        roles=roles,
        secret_patterns=tuple(_patterns(repo_doc) + _patterns(user_doc)),
        sources=sources,
        notes=tuple(notes),
        raw={"project": repo_doc, "user": user_doc},
    )


def load_config(root=".", *, config_file=None, mode: str | None = None, env=None, user_config_path=None,
                allow_exec: bool = False) -> Config:
    """Read, validate and merge the project and user config of ``root`` (reference §9, adapted).

    Project config: ``config_file`` (``--config``), else ``<root>/skillsift.toml``, else
    ``[tool.skillsift]`` of ``<root>/pyproject.toml``, else the ``[search]`` table of
    ``<root>/.ai-rulez/config.toml``.  User config: ``user_config_path``, else
    ``$XDG_CONFIG_HOME/skillsift/config.toml``, else ``~/.config/skillsift/config.toml``.
    ``env`` defaults to ``os.environ``; ``mode`` is the ``--mode`` flag.

    Raises SkillsiftError (AR9D0, exit 1) carrying every problem at once.
    """
    env = os.environ if env is None else env
    root_path = Path(root).resolve()
    problems: list[Diagnostic] = []
    project = _project_source(root_path, config_file, problems)
    user = _user_source(root_path, env, user_config_path, problems)
    if project is not None:
        problems += _source_problems(project, PROJECT_TABLES)
    if user is not None:
        problems += _source_problems(user, USER_TABLES)
    env_mode = env.get(ENV_MODE, "").strip()
    # the mode that takes effect is checked: the flag when given, else the environment
    if mode is None and env_mode and env_mode not in MODES:
        problems.append(Diagnostic(code=CODE, message=_mode_problem(ENV_MODE, env_mode),
                                   hint=f"unset {ENV_MODE} or set it to lexical, hybrid or vector"))
    if mode is not None and mode.strip() not in MODES:
        problems.append(Diagnostic(code=CODE, message=_mode_problem("--mode", mode),
                                   hint="pass --mode lexical, hybrid or vector"))
    if problems:
        raise config_error(problems)
    sources = tuple(s.display for s in (project, user) if s is not None)
    config = resolve(_effective_doc(project) if project else {}, user.doc if user else {},
                     root=str(root_path), env=env, mode=mode, allow_exec=allow_exec,
                     index_base=project.index_base if project else "", sources=sources)
    config.raw["project"] = project.doc if project else {}
    config.raw["project_file"] = project.display if project else ""
    config.raw["user_file"] = user.display if user else ""
    return config


# ---------------------------------------------------------------------------
# Paths derived from a Config
# ---------------------------------------------------------------------------

_MACHINE_LOCAL = (LOCAL_DIR, ".ai-rulez/local")


def committed_index(config: Config) -> bool:
    """True when the index directory is meant to be committed (not under ``.skillsift/local``)."""
    index_dir = _clean_index_dir(config.search.index_dir or DEFAULT_INDEX_DIR)
    return not any(index_dir == local or index_dir.startswith(local + "/") for local in _MACHINE_LOCAL)


def index_path(config: Config) -> Path:
    """``<root>/<index_dir>``."""
    return Path(config.root) / (config.search.index_dir or DEFAULT_INDEX_DIR)


def local_dir(config: Config) -> Path:
    """``<root>/.skillsift/local``: response cache and query log (machine-local, gitignored)."""
    return Path(config.root) / LOCAL_DIR

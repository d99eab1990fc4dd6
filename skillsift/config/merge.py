"""Merging (pure): repository document, user document, environment and flag -> :class:`Config`.

Precedence, trust (what a repository cannot set) and defaults; docs/configuration.md.
"""

from __future__ import annotations

import posixpath

from .model import (
    EMBEDDINGS_DEFAULTS,
    JUDGE_DEFAULTS,
    SEARCH_DEFAULTS,
    Config,
    EmbeddingsConfig,
    JudgeConfig,
    SearchConfig,
    SkillSource,
    clean_index_dir,
)
from .schema import WEIGHT_KEYS, validate_result
from .values import (
    DEFAULT_EMBED_FIELDS,
    DEFAULT_EXAMPLE_WEIGHT,
    DEFAULT_INDEX_DIR,
    ENV_ALLOW_NETWORK,
    ENV_LOG_QUERIES,
    ENV_MODE,
)

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
    for key in ("mode", "fusion", "dtype", "long_query"):
        out[key] = user.get(key) or repo.get(key) or getattr(SEARCH_DEFAULTS, key)
    if user.get("index_dir"):
        out["index_dir"] = clean_index_dir(user["index_dir"])
    elif repo.get("index_dir"):
        cleaned = clean_index_dir(repo["index_dir"])
        out["index_dir"] = posixpath.join(index_base, cleaned) if index_base else cleaned
    else:
        out["index_dir"] = DEFAULT_INDEX_DIR
    out["fields"] = tuple(user.get("fields") or repo.get("fields") or DEFAULT_EMBED_FIELDS)
    for key in ("body_chars", "rrf_k", "candidates", "query_timeout_ms", "batch_size", "long_query_words"):
        value = user.get(key, 0) if user.get(key, 0) > 0 else repo.get(key, 0)
        out[key] = value or getattr(SEARCH_DEFAULTS, key)
    out["index_body"] = bool(repo.get("index_body", False)) or bool(user.get("index_body", False))
    repo_weights, user_weights = _table(repo, "weights"), _table(user, "weights")
    for name in WEIGHT_KEYS:
        value = user_weights.get(name, 0) if user_weights.get(name, 0) > 0 else repo_weights.get(name, 0)
        out[f"weight_{name}"] = float(value or 1.0)
    out["vector_min_sim"] = float(user["vector_min_sim"] if "vector_min_sim" in user
                                  else repo.get("vector_min_sim", 0.0))
    # known requests: files of the repository (docs/ranking-quality.md, "Known requests")
    out["examples"] = tuple(repo.get("examples") or ())
    out["example_weight"] = float(user["example_weight"] if "example_weight" in user
                                  else repo.get("example_weight", DEFAULT_EXAMPLE_WEIGHT))
    for key in ("mnz_bonus", "request_lexical_weight"):  # the zscore-mnz fusion's weights (0 turns one off)
        out[key] = float(user[key] if key in user else repo.get(key, getattr(SEARCH_DEFAULTS, key)))
    value = user.get("mnz_depth", 0) if user.get("mnz_depth", 0) > 0 else repo.get("mnz_depth", 0)
    out["mnz_depth"] = value or SEARCH_DEFAULTS.mnz_depth
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


def _merge_judge(repo: dict, user: dict, allow_exec: bool) -> JudgeConfig:
    """``[judge]``: the user's command replaces the repository's, which runs only with ``--allow-exec`` but
    still names the answers cached for it (docs/judge.md, "Trust").  No note here: only the judge says,
    when it would call the command, why it may not."""
    d = JUDGE_DEFAULTS
    named = tuple(user.get("command") or repo.get("command") or ())
    if user.get("command"):
        command, pass_env = tuple(user["command"]), tuple(user.get("pass_env", ()))
    elif repo.get("command") and allow_exec:
        command, pass_env = tuple(repo["command"]), tuple(user.get("pass_env") or repo.get("pass_env", ()))
    else:
        command, pass_env = (), tuple(user.get("pass_env", ()))
    timeout = user.get("timeout_seconds", 0)
    if not timeout > 0:
        timeout = repo.get("timeout_seconds", 0)
    return JudgeConfig(
        command=command, named_command=named, pass_env=pass_env,
        agent=user.get("agent") or repo.get("agent") or d.agent,
        timeout_seconds=float(timeout or d.timeout_seconds),
        cache=user.get("cache") or repo.get("cache") or d.cache,
        fetch_in_ci=bool(repo.get("fetch_in_ci", False)) or bool(user.get("fetch_in_ci", False)),
        max_calls=int(_tighten(repo.get("max_calls", 0), user.get("max_calls", 0))),
    )


def _patterns(doc: dict) -> list[tuple[str, str]]:
    return [(entry["name"], entry["regex"]) for entry in _table(doc, "secrets").get("patterns", [])]


def _repository_values(repo_doc: dict) -> tuple[str, tuple[str, ...]]:
    """(model, command) as the project config's ``[embeddings]`` names them."""
    embeddings = _table(repo_doc, "embeddings")
    model, command = embeddings.get("model", ""), embeddings.get("command", ())
    return (model if isinstance(model, str) else "",
            tuple(command) if isinstance(command, list) and all(isinstance(a, str) for a in command) else ())


def resolve(repo_doc: dict, user_doc: dict, *, root: str = ".", env=None, mode: str | None = None,
            allow_exec: bool = False, index_base: str = "", sources: tuple[str, ...] = (),
            project_file: str = "", user_file: str = "") -> Config:
    """Merge validated documents (skillsift's shape) into a Config: precedence, trust, defaults (docs/configuration.md).

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
    repository_model, repository_command = _repository_values(repo_doc)
    judge = _merge_judge(_table(repo_doc, "judge"), _table(user_doc, "judge"), allow_exec)
    return Config(
        root=root,
        search=SearchConfig(**search),
        embeddings=EmbeddingsConfig(**embeddings),
        skills=tuple(_table(repo_doc, "catalog").get("skills", ())),
        roles=roles,
        secret_patterns=tuple(_patterns(repo_doc) + _patterns(user_doc)),
        sources=sources,
        notes=tuple(notes),
        validate=validate_result(repo_doc.get("validate"))[0],
        project_file=project_file,
        user_file=user_file,
        repository_model=repository_model,
        repository_command=repository_command,
        skill_sources=tuple(SkillSource(**{k: v for k, v in entry.items() if k in _SOURCE_KEYS})
                            for entry in repo_doc.get("sources", ()) if isinstance(entry, dict)),
        judge=judge,
    )


_SOURCE_KEYS = ("name", "git", "path", "rev", "subdir")

"""The resolved configuration of one run: typed, frozen, what every other module reads.

Nothing outside :mod:`skillsift.config` sees a parsed TOML table: the loader checks the
documents whole (:mod:`.schema`), merges them (:mod:`.merge`) into these dataclasses.
"""

from __future__ import annotations

import os
import posixpath

from ..files import path_str
from ..records import field, record
from .validate import ValidateSettings
from .values import (
    DEFAULT_EMBED_FIELDS,
    DEFAULT_EXAMPLE_WEIGHT,
    DEFAULT_INDEX_DIR,
    DEFAULT_MNZ_BONUS,
    DEFAULT_MNZ_DEPTH,
    DEFAULT_REQUEST_LEXICAL_WEIGHT,
    LOCAL_DIR,
)

TYPE_CHECKING = False  # (mypy reads it as true; pathlib is not imported on the hooks' path)
if TYPE_CHECKING:
    from pathlib import Path


@record(frozen=True)
class SearchConfig:
    """The resolved ``[search]`` table (defaults applied)."""

    mode: str = "lexical"
    fields: tuple[str, ...] = DEFAULT_EMBED_FIELDS
    index_body: bool = False
    body_chars: int = 1200
    fusion: str = "zscore-mnz"  # since 2026-12-07 (before: "zscore"): docs/ranking-quality.md, "Fusion channels"
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
    # a query longer than the model's window: embedded in pieces of long_query_words words, each
    # skill scored by its best piece ("max-piece"), or cut as before ("truncate"); docs/ranking-quality.md
    long_query: str = "max-piece"
    long_query_words: int = 80
    # known requests (docs/ranking-quality.md, "Known requests"): examples files of the repository,
    # and how much a skill's best example cosine counts next to its own cosine
    examples: tuple[str, ...] = ()
    example_weight: float = DEFAULT_EXAMPLE_WEIGHT
    # the zscore-mnz fusion (docs/ranking-quality.md, "Fusion channels"): + mnz_bonus for a candidate in both
    # lists' first mnz_depth, + request_lexical_weight x the excess of the query's terms the known requests'
    # top match holds over the skills' own top match x the z-score of BM25 over the known requests
    mnz_bonus: float = DEFAULT_MNZ_BONUS
    mnz_depth: int = DEFAULT_MNZ_DEPTH
    request_lexical_weight: float = DEFAULT_REQUEST_LEXICAL_WEIGHT


@record(frozen=True)
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


@record(frozen=True)
class JudgeConfig:
    """The resolved ``[judge]`` table: the agent command asked which skill it would use (docs/judge.md)."""

    command: tuple[str, ...] = ()  # argv that may run now (the user's, or the repository's with --allow-exec)
    named_command: tuple[str, ...] = ()  # argv the config names (user's first): the cache key's, run or not
    pass_env: tuple[str, ...] = ()
    agent: str = "claude-code"  # whose listing the prompt holds
    timeout_seconds: float = 120.0  # per call
    cache: str = "repository"  # repository | user | off
    fetch_in_ci: bool = False  # with CI=true, call the agent for a missing answer (default: cache only)
    max_calls: int = 0  # 0 = unlimited; --budget overrides


@record(frozen=True)
class SkillSource:
    """One ``[[sources]]`` entry: skills that live in another repository or folder (docs/sources.md).

    Exactly one of ``git`` (a URL, fetched with git at ``rev``) and ``path`` (a folder, relative to
    the repository root or absolute) is set; ``subdir`` is the folder inside it that holds the skills
    ("" = the default layouts of an agent repository).
    """

    name: str
    git: str = ""
    path: str = ""
    rev: str = ""
    subdir: str = ""

    @property
    def location(self) -> str:
        return self.git or self.path


@record(frozen=True)
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
    validate: ValidateSettings = field(default_factory=ValidateSettings)  # the [validate] table
    project_file: str = ""  # the project config file read ("" = none), as displayed
    user_file: str = ""  # the user config file read ("" = none), as displayed
    repository_model: str = ""  # [embeddings] model as the project config names it
    # [embeddings] command of the project config (it runs only with --allow-exec)
    repository_command: tuple[str, ...] = ()
    skill_sources: tuple[SkillSource, ...] = ()  # the [[sources]] of the project config, in order
    # what skill_sources.attach found: the mounted folders (relative, in [[sources]] order) and the
    # sources' findings (SK050-SK053), both empty until a use case attaches the sources
    source_folders: tuple[str, ...] = ()
    source_findings: tuple = ()
    judge: JudgeConfig = field(default_factory=JudgeConfig)  # the [judge] table (docs/judge.md)


SEARCH_DEFAULTS = SearchConfig()
EMBEDDINGS_DEFAULTS = EmbeddingsConfig()
JUDGE_DEFAULTS = JudgeConfig()


def clean_index_dir(value: str) -> str:
    """``index_dir`` with ``/`` separators, normalised."""
    return posixpath.normpath(value.replace("\\", "/"))


# ---------------------------------------------------------------------------
# Paths derived from a Config
# ---------------------------------------------------------------------------

_MACHINE_LOCAL = (LOCAL_DIR, ".ai-rulez/local")


def committed_index(config: Config) -> bool:
    """True when the index directory is meant to be committed (not under ``.skillsift/local``)."""
    index_dir = clean_index_dir(config.search.index_dir or DEFAULT_INDEX_DIR)
    return not any(index_dir == local or index_dir.startswith(local + "/") for local in _MACHINE_LOCAL)


def index_path(config: Config) -> Path:
    """``<root>/<index_dir>``."""
    from pathlib import Path

    return Path(index_folder(config))


def index_folder(config: Config) -> str:
    """``str(index_path(config))`` without :mod:`pathlib` (the hooks' path)."""
    return path_str(os.path.join(config.root, config.search.index_dir or DEFAULT_INDEX_DIR))


def local_dir(config: Config) -> Path:
    """``<root>/.skillsift/local``: response cache and query log (machine-local, gitignored)."""
    from pathlib import Path

    return Path(local_folder(config))


def local_folder(config: Config) -> str:
    """``str(local_dir(config))`` without :mod:`pathlib`."""
    return path_str(os.path.join(config.root, LOCAL_DIR))

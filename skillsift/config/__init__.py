"""Configuration: the typed settings of one run and the one loader every command uses.

The package (docs/configuration.md):

* :mod:`.values` the allowed values (the list of modes...), written once;
* :mod:`.model` the frozen dataclasses every other module reads (no parsed TOML table leaves
  this package) and the paths derived from them;
* :mod:`.validate` the ``[validate]`` table's settings;
* :mod:`.schema` every key's kind, allowed values and range, as data, and the pure check;
* :mod:`.sources` the files looked for, read bounded, and the lines of keys for diagnostics;
* :mod:`.merge` precedence, trust and defaults;
* here: :func:`load_config` (root check, read, check whole, merge) and the names other
  modules import from ``skillsift.config``.
"""

from __future__ import annotations

import os
import stat

from ..diagnostics import Diagnostic, SkillsiftError
from ..files import path_mode, path_str, refused_target, resolved
from .merge import resolve
from .model import (
    EMBEDDINGS_DEFAULTS,
    SEARCH_DEFAULTS,
    Config,
    EmbeddingsConfig,
    SearchConfig,
    committed_index,
    index_folder,
    index_path,
    local_dir,
    local_folder,
)
from .schema import (
    PROJECT_TABLES,
    RANGES,
    USER_TABLES,
    index_dir_problem,
    mode_problem,
    validate_embeddings_table,
    validate_search_table,
)
from .sources import (
    MAX_CONFIG_BYTES,
    MAX_TOML_DEPTH,
    effective_doc,
    find_key_line,
    link_problems,
    project_source,
    source_problems,
    user_source,
)
from .user_file import user_config_file
from .validate import ValidateSettings
from .values import (
    CODE,
    DEFAULT_EMBED_FIELDS,
    DEFAULT_FIELDS,
    DEFAULT_INDEX_DIR,
    DTYPES,
    ENV_ALLOW_NETWORK,
    ENV_LOG_QUERIES,
    ENV_MODE,
    FUSIONS,
    LOCAL_DIR,
    MODE_WORDS,
    MODES,
    PROVIDERS,
)

TYPE_CHECKING = False  # (mypy reads it as true; pathlib is not imported on the hooks' path)
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CODE", "DEFAULT_EMBED_FIELDS", "DEFAULT_FIELDS", "DEFAULT_INDEX_DIR", "DTYPES", "EMBEDDINGS_DEFAULTS",
    "ENV_ALLOW_NETWORK",
    "ENV_LOG_QUERIES", "ENV_MODE", "FUSIONS", "LOCAL_DIR", "MAX_CONFIG_BYTES", "MAX_TOML_DEPTH", "MODES",
    "MODE_WORDS", "PROJECT_TABLES", "PROVIDERS", "RANGES", "SEARCH_DEFAULTS", "USER_TABLES", "Config",
    "EmbeddingsConfig", "RootNotFound", "SearchConfig", "ValidateSettings", "check_root", "committed_index",
    "config_error", "find_key_line", "index_dir_problem", "index_path", "load_config", "local_dir", "resolve",
    "user_config_file", "validate_embeddings_table", "validate_search_table",
]


class RootNotFound(SkillsiftError):
    """``--root`` names no directory: every command refuses it the same way (README, exit codes)."""


def check_root(root) -> Path:
    """The resolved ``root``; raises :class:`RootNotFound` (exit 1) when it is not a directory."""
    from pathlib import Path

    return Path(root_folder(root))


def root_folder(root) -> str:
    """``str(check_root(root))`` without :mod:`pathlib` (the hooks' path): ``Path.resolve`` is
    :func:`skillsift.files.resolved`, and ``is_dir``/``exists`` answer as :func:`skillsift.files.path_mode` does."""
    path = path_str(root)  # Path(root): "" is "."
    mode = path_mode(path)
    if mode is None or not stat.S_ISDIR(mode):
        state = "is a file" if mode is not None else "does not exist"
        raise RootNotFound(f"--root {root} is not a directory", hint=f"it {state}; pass the repository holding "
                                                                     "the skills")
    return resolved(path)


def config_error(problems: list[Diagnostic]) -> SkillsiftError:
    """One AR9D0 error carrying every problem (message ``AR9D0: p1; p2; ...``)."""
    return SkillsiftError(f"{CODE}: " + "; ".join(d.message for d in problems), diagnostics=problems,
                          hint="see docs/configuration.md for every key and its allowed values", exit_code=1)


def load_config(root=".", *, config_file=None, mode: str | None = None, env=None, user_config_path=None,
                allow_exec: bool = False) -> Config:
    """Read, validate and merge the project and user config of ``root`` (docs/configuration.md).

    Project config: ``config_file`` (``--config``), else ``<root>/skillsift.toml``, else
    ``[tool.skillsift]`` of ``<root>/pyproject.toml``, else the ``[search]`` table of
    ``<root>/.ai-rulez/config.toml``.  User config: ``user_config_path``, else
    ``$XDG_CONFIG_HOME/skillsift/config.toml``, else ``~/.config/skillsift/config.toml``.
    ``env`` defaults to ``os.environ``; ``mode`` is the ``--mode`` flag.

    Raises :class:`RootNotFound` when ``root`` is not a directory, else SkillsiftError
    (AR9D0, exit 1) carrying every problem at once.
    """
    env = os.environ if env is None else env
    root_path = root_folder(root)
    problems: list[Diagnostic] = []
    project = project_source(root_path, config_file, problems)
    user = user_source(root_path, env, user_config_path, problems)
    if project is not None:
        problems += source_problems(project, PROJECT_TABLES)
        problems += link_problems(project, root_path)
    if user is not None:
        problems += source_problems(user, USER_TABLES)
    env_mode = env.get(ENV_MODE, "").strip()
    # the mode that takes effect is checked: the flag when given, else the environment
    if mode is None and env_mode and env_mode not in MODES:
        problems.append(Diagnostic(code=CODE, message=mode_problem(ENV_MODE, env_mode),
                                   hint=f"unset {ENV_MODE} or set it to {MODE_WORDS}"))
    if mode is not None and mode.strip() not in MODES:
        problems.append(Diagnostic(code=CODE, message=mode_problem("--mode", mode),
                                   hint=f"pass --mode {MODE_WORDS}"))
    if problems:
        raise config_error(problems)
    sources = tuple(s.display for s in (project, user) if s is not None)
    config = resolve(effective_doc(project) if project else {}, user.doc if user else {},
                     root=root_path, env=env, mode=mode, allow_exec=allow_exec,
                     index_base=project.index_base if project else "", sources=sources,
                     project_file=project.display if project else "", user_file=user.display if user else "")
    problems = folder_link_problems(config)
    if problems:
        raise SkillsiftError(f"{CODE}: " + "; ".join(d.message for d in problems), diagnostics=problems,
                             hint=problems[0].hint, exit_code=1)
    return config


def folder_link_problems(config: Config) -> list[Diagnostic]:
    """AR9D0 when links take the folders skillsift writes in outside the repository or into ``.git/``.

    The index folder (``index_dir``) and the machine-local folder (``.skillsift/local``: the
    query log, the response cache) are written by ``index``, the index hook, ``search`` and
    the MCP server; a committed link (``.skillsift -> /elsewhere``) would make them write,
    and read an index from, a place the repository does not hold (docs/bounded-input.md,
    "Files a repository holds").  Judged on the resolved config, so the default folders are
    judged too.
    """
    problems = []
    seen = set()
    folders = (("search.index_dir", index_folder(config)), ("the machine-local folder", local_folder(config)))
    for label, folder in folders:
        target = refused_target(folder, config.root)
        if target is None:
            continue
        rel = os.path.relpath(folder, config.root).replace(os.sep, "/")
        link = _first_link(config.root, rel)
        if (link or rel) in seen:  # ``.skillsift -> /elsewhere`` takes both folders: one problem
            continue
        seen.add(link or rel)
        git = os.path.join(os.path.realpath(config.root), ".git")
        where = "into .git/" if os.path.commonpath([git, target]) == git else "outside the repository"
        how = f"leads {where} (to {target}) through the symbolic link {link}" if link else f"lies {where}"
        problems.append(Diagnostic(
            code=CODE, file=link or rel,
            message=f'{label} "{rel}" {how}; skillsift writes only inside the repository',
            hint=f"replace the link {link or rel} with a folder of the repository (git rm it)"
                 + (", or set search.index_dir to a folder the repository holds" if "index" in label else "")))
    return problems


def _first_link(root: str, rel: str) -> str:
    """The first component of ``rel`` (under ``root``) that is a symbolic link, relative; "" when none is."""
    parts = [p for p in rel.split("/") if p]
    for i in range(1, len(parts) + 1):
        if os.path.islink(os.path.join(root, *parts[:i])):
            return "/".join(parts[:i])
    return ""

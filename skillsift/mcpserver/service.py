"""What the MCP tools do, without the MCP SDK: rank, list and load skills of one repository.

A :class:`SkillService` keeps a ranker for the repository and re-creates it when the
catalog (the SKILL.md paths with their modification times and sizes), the resolved config
(project file, user file, environment) or the index files' (mtime, size) change.  Those are
checked before a tool call at most once per ``recheck_interval`` seconds (default 1 s:
discovering 2,000 skills takes about 0.2 s, which a burst of calls should not pay each time).  It never
builds the index and never embeds a skill: the ranker loads the index files and embeds
only queries.  A search that cannot use vectors ranks lexically and says why in
``degraded``; each reason is warned about once on stderr.  Query logging follows
``[search] log_queries`` (user scope only).
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..cache.secret_scans import ScanCache
from ..catalog.agents import source_name
from ..catalog.load import Catalog, discover
from ..checks.secrets import CODE, check_files
from ..config import Config, index_path
from ..diagnostics import ERROR, SkillsiftError
from ..evaluate.examples import example_files
from ..evaluate.querylog import open_log
from ..files import MAX_SKILL_BYTES, read_skill_bytes
from ..index.manifest import MANIFEST_FILE, VECTORS_FILE
from ..ranker.degraded import refused_note
from ..ranker.result import Hit, SearchResult
from ..ranker.search import NO_INDEX, Ranker
from ..ranker.view_index import open_view_ranker
from ..render.search import degraded_line, result_to_json
from ..skill_sources.configured import open_config
from ..usecases.project import config_messages, open_project
from ..validators.workspace import Workspace

if TYPE_CHECKING:
    from ..catalog.load import Catalog
    from ..config import Config
    from ..evaluate.querylog import QueryLog
    from ..ranker.search import Ranker

MAX_LIMIT = 20
MAX_QUERY_CHARS = 16384  # a request or an agent's task instruction; longer queries are refused (docs/mcp.md)
RECHECK_INTERVAL = 1.0
LIST_MAX_LIMIT = 100
WARN_PREFIX = "skillsift mcp: "


class ToolRefused(ValueError):
    """A tool call the server refuses; the message is shown to the client as the tool's error."""


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _stat_key(path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def catalog_fingerprint(root, patterns) -> tuple:
    """The discovered SKILL.md paths with their (mtime, size): changes when a skill is added,
    removed or edited."""

    return tuple((str(path), domain, _stat_key(path)) for path, domain in discover(root, patterns))


def index_fingerprint(config) -> tuple:
    """(mtime, size) of the index files (None for a missing file)."""

    directory = index_path(config)
    return tuple(_stat_key(directory / name) for name in (MANIFEST_FILE, VECTORS_FILE))


def examples_fingerprint(config) -> tuple:
    """(path, mtime, size) of each examples file (``[search] examples``): changes when one is edited."""

    if not config.search.examples:
        return ()
    try:
        files = example_files(config.root, config.search.examples)
    except SkillsiftError as exc:  # the ranker reports it (it ranks without known requests)
        return (exc.message,)
    return tuple((rel, _stat_key(os.path.join(config.root, rel))) for rel in files)


def check_skill_name(name) -> str:
    """``name`` when it can only be a catalog name; raises :class:`ToolRefused` for a path."""
    if not isinstance(name, str) or not name.strip():
        raise ToolRefused("load_skill needs the name of a skill (see find_skill or search_skills)")
    if ("/" in name or "\\" in name or "\x00" in name or ".." in name or os.path.isabs(name)
            or (len(name) > 1 and name[1] == ":")):
        raise ToolRefused(f'"{name}" is not a skill name: a name never holds a path separator, ".." or a drive')
    return name


def check_query(query, tool: str, *, blank_ok: bool = False) -> str:
    """``query`` when it is text a search can take; raises :class:`ToolRefused` (never echoing it)."""
    if not isinstance(query, str) or (not blank_ok and not query.strip()):
        raise ToolRefused(f"{tool} needs a query, for example \"deploy to staging\"")
    if len(query) > MAX_QUERY_CHARS:
        raise ToolRefused(f"the query is {len(query)} characters long; {tool} takes at most {MAX_QUERY_CHARS} "
                          "(describe the task in a few sentences)")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolRefused("the query is not valid Unicode text (it holds a lone surrogate); send UTF-8 text") from None
    return query


def check_limit(limit, maximum: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= maximum:
        raise ToolRefused(f"limit must be an integer between 1 and {maximum}, got {limit!r}")
    return limit


class SkillService:
    """The state behind the MCP tools for the repository at ``root``.

    ``warn`` receives one-line messages for stderr; ``clock`` is the query log's clock;
    ``recheck_interval`` is how long (seconds, on ``monotonic``) a check for changes holds.
    """

    def __init__(self, root: str = ".", config_file: str | None = None, *, session_id: str | None = None,
                 warn: Callable[[str], None] = _stderr, clock=None, recheck_interval: float = RECHECK_INTERVAL,
                 monotonic: Callable[[], float] = time.monotonic, agent: str | None = None, view: str = "full",
                 context_window: int | None = None):
        self.root = str(Path(root).resolve())
        self.agent = agent  # serve only what this agent lists (skillsift/catalog/agents.py)
        self.view = view  # full: rank every field; listing: exactly what the agent lists (skillsift/catalog/listing.py)
        self.context_window = context_window
        self.view_info: dict | None = None  # the listing view's agent, window and budget (None: full view)
        self.config_file = config_file
        self.session_id = session_id if session_id is not None else secrets.token_hex(16)
        self.warn = warn
        self.clock = clock
        self.recheck_interval = recheck_interval
        self.monotonic = monotonic
        self._checked_at: float | None = None
        self._lock = threading.RLock()
        self._warned: set[str] = set()
        self._key: tuple | None = None
        self.config: Config | None = None
        self.catalog: Catalog | None = None
        self.ranker: Ranker | None = None
        self.log: QueryLog | None = None
        self.reloads = 0

    # -- state ---------------------------------------------------------------------------------
    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self.warn(WARN_PREFIX + message)

    def _load_config(self):
        try:
            config = open_config(self.root, self.config_file)
        except SkillsiftError as exc:
            self._warn_once(f"{exc.message}; ranking lexically with the default settings until it is fixed")
            return Config(root=self.root)
        self._warn_messages(config_messages(config))
        return config

    def _warn_messages(self, messages) -> None:
        for message in messages:
            self._warn_once(f"{message.severity}: {message.text}")

    def refresh(self) -> bool:
        """Re-create the ranker when the catalog, config or index files changed; True when it did."""
        with self._lock:
            now = self.monotonic()
            if (self.ranker is not None and self._checked_at is not None
                    and now - self._checked_at < self.recheck_interval):
                return False
            self._checked_at = now
            config = self._load_config()
            key = (config, catalog_fingerprint(self.root, config.skills), index_fingerprint(config),
                   examples_fingerprint(config))
            if key == self._key and self.ranker is not None:
                return False
            self._build(config)
            self._key = key
            return True

    def _build(self, config) -> None:
        project = open_project(self.root, config=config, view=self.view, agent=self.agent,
                               context_window=self.context_window)
        self._warn_messages(project.messages)  # the catalog's findings (the config's were warned when it loaded)
        view = dataclasses.replace(project.view, catalog=self._without_secrets(project.catalog))
        catalog = view.catalog
        try:
            # stale or missing vectors (skills, known requests of an edited examples file) are
            # embedded in memory with the local model, as in `skillsift search`
            ranker = open_view_ranker(view, config, embed_stale=True)
        except Exception as exc:  # an index that cannot even be read: rank lexically (no_index)
            self._warn_once(f"the search index cannot be read ({exc}); ranking lexically")
            ranker = Ranker(catalog, config)
        if ranker.index_problem and config.search.mode != "lexical":
            self._warn_once(ranker.index_problem)
        if ranker.index_refused and config.search.mode != "lexical":
            self._warn_once(refused_note(ranker.index_refused))
        if ranker.examples_problem:  # an invalid examples file is left out, never used silently
            self._warn_once(ranker.examples_problem)
        for line in ranker.refresh.notes() if ranker.refresh is not None else ():
            self._warn_once(line)
        if config.search.mode != "lexical":  # load the model now, not on the first query
            problem = ranker.prepare()
            if problem is not None and problem.reason != NO_INDEX:
                self._warn_once("vector search cannot be used: " + " ".join(problem.notes or (problem.reason,)))
        kwargs = {"clock": self.clock} if self.clock is not None else {}
        self.log = open_log(config, self.session_id, warn=lambda m: self.warn(WARN_PREFIX + m), **kwargs)
        self.config, self.catalog, self.ranker = config, catalog, ranker
        self.view_info = view.to_dict()
        self.reloads += 1

    def _without_secrets(self, catalog: Catalog) -> Catalog:
        """``catalog`` less every skill whose SKILL.md has an error-level secret finding (AR001).

        Allowed lines (``skillsift: allow-secret``) and the secrets baseline count as for
        ``validate``; ``[validate] ignore`` and ``severity`` do not (they decide what fails a
        check, not what an agent is handed).  Scans of unchanged texts come from the scan cache.
        """

        ws = Workspace(self.root, config_file=self.config_file)
        findings = check_files(ws, [skill.path for skill in catalog.skills], parse=True, cache=ScanCache(self.root))
        held = {d.file for d in findings if d.code == CODE and d.severity == ERROR}
        if not held:
            return catalog
        for path in sorted(held):
            self._warn_once(f"{path} holds a secret (AR001); that skill is not served until it is removed "
                            "(skillsift validate shows where)")
        return Catalog(root=catalog.root, skills=tuple(s for s in catalog.skills if s.path not in held),
                       diagnostics=catalog.diagnostics)

    def _current(self) -> tuple[Config, Catalog, Ranker, QueryLog]:
        """Refresh, then the loaded state (a refresh always leaves one)."""
        self.refresh()
        config, catalog, ranker, log = self.config, self.catalog, self.ranker, self.log
        assert config is not None and catalog is not None and ranker is not None and log is not None
        return config, catalog, ranker, log

    @property
    def view_words(self) -> str:
        """``, view listing (claude-code)`` for the start-up line; "" in the full view."""
        info = self.view_info
        return f", view listing ({info['agent']})" if info else ""

    # -- tools ---------------------------------------------------------------------------------
    def find_skill(self, query: str, limit: int = 5, role: str | None = None) -> dict:
        """Rank the skills for ``query`` as ``skillsift search --format json`` does (search.v1).

        With ``role`` the skills that role serves come first, the others after them.
        """

        query = check_query(query, "find_skill")
        limit = check_limit(limit, MAX_LIMIT)
        with self._lock:
            config, catalog, ranker, log = self._current()
            served = self._role_members(catalog, config, role) if role else None
            before = len(ranker.rows_refused_now)

            def shown(result):  # the hits handed out: their rows are re-embedded once per machine
                if served is None:
                    return result.hits[:limit]
                return ([h for h in result.hits if h.name in served] + [h for h in result.hits
                                                                         if h.name not in served])[:limit]

            # the config's mode
            result = ranker.checked_search(query, limit=None if served is not None else limit, shown=shown)
            if len(ranker.rows_refused_now) > before:
                self._warn_once(ranker.rows_refused_note)
            if served is not None:
                from dataclasses import replace

                hits = [h for h in result.hits if h.name in served] + \
                       [h for h in result.hits if h.name not in served]
                result = replace(result, hits=tuple(hits[:limit]))
            if result.degraded:
                self._warn_once(degraded_line(result.degraded))
            log.record_query(query, result.ranking, result.names)
            view = self.view_info
            sources = {s.name: source_name(s.path) for s in catalog if source_name(s.path)}
        doc = result_to_json(result, sources)
        if view:
            doc["view"] = dict(view)
        if ranker.examples_problem:
            doc["examples_problem"] = ranker.examples_problem
        return doc

    @staticmethod
    def _role_members(catalog: Catalog, config: Config, role: str) -> set[str]:
        from ..evaluate.session import role_resolver

        try:
            return set(role_resolver(catalog, config.roles)(role))
        except SkillsiftError as exc:
            raise ToolRefused(exc.message) from None

    def search_skills(self, query: str = "", limit: int = 10) -> dict:
        """A lexical listing (search.v1): the BM25F hits of ``query``, or every skill by name when blank."""

        limit = check_limit(limit, LIST_MAX_LIMIT)
        query = check_query(query if isinstance(query, str) else "", "search_skills", blank_ok=True)
        with self._lock:
            _config, catalog, ranker, _log = self._current()
            if query.strip():
                result = ranker.search(query, limit=limit, mode="lexical")
            else:
                skills = sorted(catalog.skills, key=lambda s: s.name)[:limit]
                hits = tuple(Hit(name=s.name, score=0.0, description=s.description, domain=s.domain,
                                 digest=s.digest) for s in skills)
                result = SearchResult(query="", ranking="lexical", hits=hits)
        return result_to_json(result)

    def load_skill(self, name: str) -> str:
        """The SKILL.md text of the catalog skill ``name``; names outside the catalog are refused."""
        name = check_skill_name(name)
        with self._lock:
            _config, catalog, _ranker, log = self._current()
            skill = catalog.get(name)
            if skill is None:
                raise ToolRefused(f'no skill named "{name}" is served here; find_skill and search_skills '
                                  "list the skills")
            root = os.path.realpath(self.root)
            path = os.path.realpath(os.path.join(root, skill.path))
            if os.path.commonpath([root, path]) != root:
                raise ToolRefused(f'the SKILL.md of "{name}" lies outside the repository; it is not served')

            try:  # a file of the skill's own folder only, never under .git (SK020)
                text = read_skill_bytes(os.path.join(root, skill.path), MAX_SKILL_BYTES,
                                        real_root=root).decode("utf-8", "replace")
            except OSError as exc:
                raise ToolRefused(f"cannot read {skill.path}: {exc.strerror or exc}") from None
            log.record_load(name)
        return text

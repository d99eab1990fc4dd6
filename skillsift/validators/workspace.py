"""The I/O edge of validation: what one run reads from the repository, read once and lazily.

A :class:`Workspace` resolves the config, finds and reads every SKILL.md (keeping
duplicates, which the catalog drops), and on demand the cases files, the committed index
and the baselines.  The checks are pure functions over what it holds; each check module's
``run(workspace)`` only picks its inputs from here.  Nothing is read that no check asks
for, so a hook that runs one check pays only for that check's inputs.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from functools import cached_property, lru_cache

from ..config import DEFAULT_INDEX_DIR, RootNotFound, committed_index, find_key_line
from ..config.validate import DEFAULT_CASES, ValidateSettings
from ..diagnostics import ERROR, Diagnostic, SkillsiftError
from ..files import MAX_SKILL_BYTES, as_posix, posix_parts, read_skill_bytes, refused_target
from ..records import replace
from ..skill_sources.configured import open_config
from .folders import LISTINGS, FolderWalks, plain_path, simple_path

SKILL_FILE = "SKILL.md"
CONFIG_NAMES = ("skillsift.toml", "pyproject.toml", ".ai-rulez/config.toml")
CASES_GLOB = "*cases*.y*ml"


@lru_cache(maxsize=65536)
def posix_name(rel: str) -> str:
    """``PurePosixPath(rel).name``, each path parsed once (the checks ask it of every file)."""
    if plain_path(rel):
        return rel.rsplit("/", 1)[-1]
    from pathlib import PurePosixPath  # only for an odd path (the hooks' path imports no pathlib)
    return PurePosixPath(rel).name


@lru_cache(maxsize=65536)
def posix_parent(rel: str) -> str:
    """``PurePosixPath(rel).parent.as_posix()``, each path parsed once."""
    if plain_path(rel):
        return rel.rsplit("/", 1)[0] if "/" in rel else "."
    from pathlib import PurePosixPath  # only for an odd path (the hooks' path imports no pathlib)
    return PurePosixPath(rel).parent.as_posix()


def rel_posix(path, root) -> str:
    """``path`` relative to ``root`` with ``/`` (kept as given when it lies outside)."""
    absolute = os.path.abspath(os.path.join(root, path))
    rel = os.path.relpath(absolute, os.path.abspath(root))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return as_posix(path)
    return as_posix(rel)


@lru_cache(maxsize=1)  # (an import statement in a function runs the fromlist handling at each call)
def _catalog():
    """:mod:`skillsift.catalog.load` (with the discovery, frontmatter and cache modules it imports), loaded on
    the first skill a workspace reads: a hook that reads files only (``hook secrets``) loads none of them."""
    from ..catalog import load
    return load


class Workspace:
    """Everything one validation run reads, resolved lazily and cached.

    ``env`` and ``user_config_path`` are passed to the config loader (tests isolate the
    user config through them).
    """

    def __init__(self, root=".", *, config_file=None, env=None, user_config_path=None):
        self.root = os.path.abspath(root)
        self.config_file = config_file
        self.env = env
        self.user_config_path = user_config_path
        self._texts: dict = {}  # relative path -> text or None
        self._parsed: dict = {}  # relative path -> (skill or None, diagnostics)
        self._cases: dict = {}  # relative path -> (CaseFile or None, SkillsiftError or None)
        self._splits: dict = {}  # relative path -> (LF text, frontmatter block, key lines) or None
        self._blocks: dict = {}  # relative path -> (LF text, frontmatter block) or None
        self.folders = FolderWalks(self.root)  # the walks of the skills' folders and their listings
        self._modes: dict = {}  # relative path -> st_mode (links followed) or None
        # re-embed every committed index row, none taken as verified by an earlier run (skillsift ci)
        self.verify_every_row = False
        # keep the per-file findings in the text-check cache (a hook over a few staged files does not:
        # reading and writing the cache costs it more than the checks)
        self.text_check_cache = True

    # -- config -------------------------------------------------------------------------
    @cached_property
    def _config_result(self):
        try:
            config = open_config(self.root, self.config_file, env=self.env, user_config_path=self.user_config_path)
        except RootNotFound:  # not a config problem: the command reports it (README, exit codes)
            raise
        except SkillsiftError as exc:
            problems = exc.diagnostics or [Diagnostic(code="AR9D0", message=exc.message, hint=exc.hint)]
            return None, problems
        return config, []

    @property
    def config(self):
        """The resolved Config, or None when it does not load (see :attr:`config_problems`)."""
        return self._config_result[0]

    @property
    def config_problems(self) -> list[Diagnostic]:
        return list(self._config_result[1])

    @cached_property
    def project_file(self) -> str:
        config = self.config
        return config.project_file if config is not None else ""

    @cached_property
    def project_text(self) -> str:
        if not self.project_file:
            return ""
        return self.read_text(self.project_file) or ""

    @cached_property
    def project_prefix(self) -> str:
        """Dotted table holding skillsift's tables in the project file ("tool.skillsift" in pyproject)."""
        return "tool.skillsift" if self.project_file.endswith("pyproject.toml") else ""

    def key_line(self, table: str, key: str = "") -> int | None:
        """Line of ``table.key`` in the project config file (None when not written there)."""
        if not self.project_text:
            return None
        full = f"{self.project_prefix}.{table}" if self.project_prefix else table
        return find_key_line(self.project_text, full, key) or find_key_line(self.project_text, full, "")

    @property
    def settings(self) -> ValidateSettings:
        """The ``[validate]`` settings (checked with the rest of the config when it loaded)."""
        return self.config.validate if self.config is not None else ValidateSettings()

    # -- files --------------------------------------------------------------------------
    def abspath(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    def _mode(self, rel: str):
        if rel not in self._modes:
            try:
                self._modes[rel] = os.stat(self.abspath(rel)).st_mode
            except (OSError, ValueError):  # (what os.path.exists and os.path.isfile take as no file)
                self._modes[rel] = None
        return self._modes[rel]

    def exists(self, rel: str) -> bool:
        """``os.path.exists`` of a path under the root, asked of the file system once per workspace (the
        checks of one SKILL.md each ask), not at all when a folder walk's listing tells."""
        if rel not in self._modes:
            kind = self.folders.seen(rel)
            if kind is not None and kind != "l":
                return kind != ""
        return self._mode(rel) is not None

    def is_file(self, rel: str) -> bool:
        """``os.path.isfile`` of a path under the root, asked once per workspace, not at all when a folder
        walk's listing tells (a regular file listed, or nothing there: no file, or no folder on the way)."""
        if rel not in self._modes:
            kind = self.folders.seen(rel)
            if kind is not None and kind != "l":
                return kind == "f"
        mode = self._mode(rel)
        return mode is not None and stat.S_ISREG(mode)

    def lexists(self, rel: str, skill: str | None = None) -> bool:
        """``os.path.lexists`` of a path under the root: from the listing of the folder of SKILL.md ``skill``
        (walked for it, once: the walk the folder checks share) when that tells, else asked of the file system."""
        if skill is not None and LISTINGS:
            self.skill_folder_files(skill)
        kind = self.folders.seen(rel)
        if kind is not None:
            return kind != ""
        return os.path.lexists(self.abspath(rel))

    def folder_linked(self, folder: str) -> bool:
        """Whether the path from the root to ``folder`` passes through a symbolic link: known for the folder
        of a SKILL.md that discovery reached by its real path, else one ``realpath`` per folder."""
        def direct() -> bool:
            found = self.__dict__.get("discovery")
            skill = "SKILL.md" if folder == "." else f"{folder}/SKILL.md"
            return found is not None and simple_path(skill) and tuple(skill.split("/")) in found.direct

        return self.folders.linked(folder, direct)

    def read_text(self, rel: str) -> str | None:
        """The UTF-8 text of a file under the root (None when unreadable or not UTF-8); cached."""
        if rel not in self._texts:
            # a SKILL.md is read only as a file of its own skill folder (SK020)
            skill = posix_name(rel) == "SKILL.md"
            try:
                data = read_skill_bytes(self.abspath(rel)) if skill else self.folders.read(rel, MAX_SKILL_BYTES)
                # (the bytes are not kept: a skill's digest, read by no check, is taken of the text's UTF-8
                # bytes, which are these bytes again, on first read)
                self._texts[rel] = data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts[rel] = None
        return self._texts[rel]

    def split_text(self, rel: str):
        """``(LF text, frontmatter block, key lines)`` of a file's text, split once for every check
        (None when the file cannot be read); key lines as :func:`~skillsift.catalog.frontmatter.key_lines`."""
        if rel not in self._splits:
            blocks = self._block(rel)
            if blocks is None:
                self._splits[rel] = None
            else:
                lf, block = blocks
                self._splits[rel] = (lf, block, _catalog().block_key_lines(block))
        return self._splits[rel]

    def _block(self, rel: str):
        """``(LF text, frontmatter block)`` of a file's text, split once (None when unreadable):
        what :meth:`split_text` and the parse of a SKILL.md share."""
        if rel not in self._blocks:
            text = self.read_text(rel)
            if text is None:
                self._blocks[rel] = None
            else:
                self._blocks[rel] = _catalog().split_blocks(text)
        return self._blocks[rel]

    # -- skills -------------------------------------------------------------------------
    @cached_property
    def discovery(self):
        """The :class:`~skillsift.catalog.discovery.Discovery` of this root (configured paths or every agent's).

        It walks past the agents' folder limit: the limit decides what an agent lists, not what
        is checked, so every per-file check sees the skills beyond it too (they are left out of
        :attr:`all_skills`, the skills an agent is served).
        """
        patterns = tuple(self.config.skills) if self.config is not None else ()
        extra = tuple(self.config.source_folders) if self.config is not None else ()
        found = _catalog().discover_to_check(self.root, patterns, extra)
        # the lstat discovery took of each SKILL.md that is no link (taken at its real path) is its stat
        # too: :meth:`exists` and :meth:`is_file` of it ask the file system no second time
        for parts, info in found.stats.items():
            self._modes.setdefault("/".join(parts), info.st_mode)
        return found

    @cached_property
    def _discovered(self) -> list[tuple[str, str]]:
        """(relative SKILL.md path, domain) of every skill found, in path order."""
        return [("/".join(parts), domain) for parts, domain in self.discovery.found]

    def parsed(self, rel: str, domain: str | None = None):
        """``(skill or None, SK001 diagnostics)`` of one SKILL.md, parsed once."""
        if rel not in self._parsed:
            load = _catalog()
            if domain is None:
                domain = load.domain_of(posix_parts(rel))
            text = self.read_text(rel)
            reader = self._yaml_cache.read_yaml
            if text is None:
                self._parsed[rel] = load.read_skill(self.abspath(rel), self.root, domain, yaml_reader=reader)
            else:
                dir_id = posix_name(posix_parent(rel)) or rel
                self._parsed[rel] = load.parse_skill(text, dir_id, path=rel, domain=domain, yaml_reader=reader,
                                                split=self._block(rel))
        return self._parsed[rel]

    @cached_property
    def _yaml_cache(self):
        """Frontmatter parsed by an earlier run (skillsift/cache/frontmatter.py); saved after a full pass."""
        return _catalog().frontmatter_cache(self.root)

    @cached_property
    def all_skills(self) -> list:
        """Every skill that was read and is served, in path order, duplicates included."""
        skills = []
        beyond = {"/".join(parts) for parts in self.discovery.beyond_cap}
        for rel, domain in self._discovered:
            if rel in beyond:
                continue
            skill, _problems = self.parsed(rel, domain)
            if skill is not None:
                plugin = self.discovery.plugins.get(rel)  # a skill a plugin manifest names
                skills.append(skill if plugin is None else replace(skill, plugin=plugin))
        self._yaml_cache.save()
        folders = tuple(self.config.source_folders) if self.config is not None else ()
        served, self._source_clashes = _catalog().served_skills(skills, folders)
        return served

    @property
    def source_clashes(self) -> list:
        """SK054: the source skills :attr:`all_skills` left out because their name is taken."""
        self.all_skills  # noqa: B018 - computes them
        return self._source_clashes

    @property
    def skill_paths(self) -> list[str]:
        """Every SKILL.md found (relative, ``/``), readable or not (nothing is parsed for this)."""
        return list(self._skill_paths)

    @cached_property
    def _skill_paths(self) -> tuple[str, ...]:
        return tuple(rel for rel, _domain in self._discovered)

    def skill_folder_files(self, rel: str) -> list[str]:
        """The other regular files of the folder of SKILL.md ``rel`` (relative, ``/``, sorted), bounded.

        Symlinks inside the folder are not followed, ``.git``, ``node_modules`` and ``__pycache__``
        are skipped, at most :data:`~.folders.MAX_FOLDER_FILES` files and :data:`~.folders.MAX_FOLDER_DEPTH`
        folders deep (:meth:`.folders.FolderWalks.walk`, one walk per folder and workspace).
        """
        return self._walk(rel)[0]

    def skill_folder_links(self, rel: str) -> list[str]:
        """The symbolic links inside the folder of SKILL.md ``rel`` (never followed; ``rel`` itself left out),
        found by the same bounded walk as :meth:`skill_folder_files` (SK021 judges them)."""
        return self._walk(rel)[1]

    def _walk(self, rel: str) -> tuple[list[str], list[str]]:
        """(files, links) of the folder of SKILL.md ``rel``: its walk, made once (the parent path is cut only
        for the first ask)."""
        return self.folders.walks.get(rel) or self.folders.walk(rel, posix_parent(rel))

    @cached_property
    def skill_folders(self) -> dict[str, str]:
        """Folder (relative, ``/``) of every SKILL.md found -> that SKILL.md."""
        return {posix_parent(rel): rel for rel in self.skill_paths}

    def skill_of(self, rel: str) -> str | None:
        """The SKILL.md whose folder holds the file ``rel`` (the nearest), else None."""
        folders = self.skill_folders
        parts = posix_parts(rel)[:-1]
        for end in range(len(parts), 0, -1):
            found = folders.get("/".join(parts[:end]))
            if found is not None:
                return found
        return None

    def skill_at(self, rel: str):
        """The skill read from ``rel`` (None when it could not be read)."""
        return self.parsed(rel)[0]

    def parse_problems(self, rel: str) -> list[Diagnostic]:
        """The SK001 problems found while reading one SKILL.md."""
        return list(self.parsed(rel)[1])

    @cached_property
    def unparsable(self) -> tuple[str, ...]:
        """The SKILL.md files (relative, path order) whose frontmatter does not parse or cannot be read
        (an SK001 error): what the index and the gates would be built from is not what was written."""
        return tuple(rel for rel in self.skill_paths
                     if any(d.code == "SK001" and d.severity == ERROR for d in self.parse_problems(rel)))

    @cached_property
    def catalog(self):
        """The catalog as the ranker sees it (a repeated name keeps its first skill)."""
        built = _catalog().catalog_from_skills(self.all_skills, root=self.root)
        return type(built)(root=built.root, skills=built.skills)

    # -- cases --------------------------------------------------------------------------
    @cached_property
    def cases_paths(self) -> tuple[str, ...]:
        """The cases files to check: [validate] cases, else search-cases.yaml when present."""
        settings = self.settings
        if settings.cases_configured:
            return tuple(rel_posix(p, self.root) for p in settings.cases)
        if os.path.isfile(self.abspath(DEFAULT_CASES)):
            return (DEFAULT_CASES,)
        return ()

    @cached_property
    def examples(self) -> tuple[tuple[str, ...], SkillsiftError | None]:
        """(the examples files of ``[search] examples``, relative, sorted; the error naming them, or None)."""
        if self.config is None or not self.config.search.examples:
            return (), None
        from ..ranker.known import example_files
        try:
            return tuple(example_files(self.root, self.config.search.examples)), None
        except SkillsiftError as exc:
            return (), exc

    @property
    def examples_paths(self) -> tuple[str, ...]:
        return self.examples[0]

    def case_file(self, rel: str):
        """(CaseFile or None, SkillsiftError or None) for one cases or examples file, cached.

        Both are read by the one bounded reader and the one strict parser (AR9D2)."""
        if rel not in self._cases:
            from ..casefile.files import load_file

            examples = rel in self.examples_paths and rel not in self.cases_paths
            try:
                if refused_target(self.abspath(rel), self.root) is not None:
                    raise SkillsiftError(f"{'examples' if examples else 'cases'} file {rel} is a link that leaves the "
                                         "repository (or enters .git/); skillsift reads only files the repository "
                                         "holds", hint=f"replace the link {rel} with the file itself")
                self._cases[rel] = (load_file(self.abspath(rel), "examples" if examples else "cases",
                                              rel if examples else self.abspath(rel),
                                              hint="" if examples else "Pass the path of a YAML cases file"), None)
            except SkillsiftError as exc:
                self._cases[rel] = (None, exc)
        return self._cases[rel]

    # -- index --------------------------------------------------------------------------
    @cached_property
    def index_dir(self) -> str:
        if self.config is None:
            return DEFAULT_INDEX_DIR
        from pathlib import PurePosixPath  # here, not at the top: the hooks' path imports no pathlib
        return PurePosixPath(self.config.search.index_dir or DEFAULT_INDEX_DIR).as_posix()

    @cached_property
    def index_committed(self) -> bool:
        return self.config is not None and committed_index(self.config)

    @cached_property
    def index_load(self):
        """:class:`~skillsift.index.store.LoadResult` of the index directory (numpy is imported here)."""
        from ..index.store import IndexReadError, LoadResult, load_index
        try:
            return load_index(self.abspath(self.index_dir))
        except IndexReadError as exc:
            return LoadResult(None, exc.message, found=True)

    def index_exists(self) -> bool:
        return os.path.isfile(os.path.join(self.abspath(self.index_dir), "manifest.json"))

    # -- paths --------------------------------------------------------------------------
    def path_kinds(self, rel: str) -> set[str]:
        """What kind of file ``rel`` is for the checks (see the registry's triggers)."""
        kinds = {"any"}
        name = posix_name(rel)
        if name == SKILL_FILE:
            kinds.add("skill")
        elif self.skill_of(rel) is not None:
            kinds.add("skill-file")
        if rel in CONFIG_NAMES or (self.project_file and rel == self.project_file):
            kinds.add("config")
        if rel in self.cases_paths or rel in self.examples_paths or fnmatch.fnmatch(name, CASES_GLOB):
            kinds.add("cases")
        if rel == rel_posix(self.settings.baseline, self.root) and self.settings.baseline:
            kinds.add("baseline")
        if rel == rel_posix(self.settings.secrets_baseline, self.root):
            kinds.add("secrets-baseline")
        index_dir = self.index_dir.rstrip("/") + "/"
        if rel.startswith(index_dir):
            kinds.add("index")
        return kinds


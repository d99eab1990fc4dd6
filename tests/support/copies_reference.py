"""SK002/SK014 as they were computed before the copies were looked for within one name and one text
length (every text hashed): kept word for word as the reference the faster
:func:`skillsift.checks.duplicates.duplicate_names` is compared with
(tests/checks/test_duplicates.py)."""

from __future__ import annotations

from collections import defaultdict

from skillsift.checks.duplicates import COPIES, DUPLICATE, _no_line, namespace
from skillsift.diagnostics import Diagnostic
from skillsift.validators.names import skeleton


def duplicate_names(skills, line_of=_no_line, text_of=None) -> list[Diagnostic]:
    """One SK002 per file of each name used more than once in one namespace (path order; the first
    is served), and one SK014 note per group of byte-identical copies of one skill.

    Names are compared as agents and people read them: NFKC, case-folded, look-alike letters of
    other scripts taken as the Latin ones (:func:`skillsift.validators.names.skeleton`).  A plugin's
    skills are their own namespace (:func:`namespace`).  ``line_of(skill, key)`` gives the file line
    of a frontmatter key (None when unknown); ``text_of(skill)`` its file's text (copies are found only
    with it).
    """

    out = []
    representatives = list(skills)
    if text_of is not None:
        copies: dict[tuple[str, str], list] = defaultdict(list)
        for skill in skills:
            text = text_of(skill)
            if text is not None:
                copies[(skill.name, text)].append(skill)
        dropped: set[int] = set()
        for group in copies.values():
            if len(group) < 2:
                continue
            dropped.update(id(s) for s in group[1:])
            others = ", ".join(s.path for s in group[1:])
            out.append(COPIES.report(
                file=group[0].path, line=line_of(group[0], "name"),
                message=f'skill "{group[0].name}" has {len(group) - 1} byte-identical '
                        f'cop{"y" if len(group) == 2 else "ies"}: {others}; whichever is served, it is the same '
                        "skill",
                hint="keep one copy and link the others to it (a symlink), or leave them when each is "
                     "shipped on its own (plugins)"))
        representatives = [s for s in skills if id(s) not in dropped]
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for skill in representatives:
        groups[(namespace(skill), skeleton(skill.name))].append(skill)
    for (_plugin, _key), group in groups.items():
        if len(group) < 2:
            continue
        paths = [s.path for s in group]
        for skill in group:
            alike = [s for s in group if s.name != skill.name]
            others = ", ".join(p for p in paths if p != skill.path)
            served = ("this one is served" if skill is group[0] else f"only {paths[0]} is served") + (
                " (the first in path order)")
            if alike:
                message = (f'skill name "{skill.name}" reads the same as "{alike[0].name}" once Unicode forms, case '
                           f"and look-alike letters are folded (used by {others}); agents load both, and neither "
                           "people nor models can tell them apart")
            else:
                message = f'skill name "{skill.name}" is also used by {others}; {served}'
            out.append(DUPLICATE.report(
                file=skill.path, line=line_of(skill, "name"), message=message,
                hint="a skill's name is its id: give each skill its own `name:` in the frontmatter"))
    return out

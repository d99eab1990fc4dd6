"""One cause found in many skills is one finding listing them (docs/checks-skills.md, "One cause, one finding").

A file that several skills name and that is missing (each runs ``../shared/scripts/build.py``,
each links ``../shared/guide.md``) is one mistake: adding that one file fixes every finding.
:func:`group_repeated` turns the findings of one code that name the same missing file (the path
their message closes with, in parentheses, resolved from the repository root) in :data:`MIN_GROUP`
or more files into one finding, at the first file, naming every file.  A file missing from each
skill's own folder (``scripts/x.py`` in every skill) is a finding per skill: each folder lacks it.
"""

from __future__ import annotations

from ..cache import regexes
from ..diagnostics import Diagnostic
from ..records import replace

MIN_GROUP = 2
MAX_NAMED = 5
_MISSING = regexes.compile(r" \(([^()]*)\)$")


def group_repeated(diagnostics: list[Diagnostic], codes: tuple[str, ...]) -> list[Diagnostic]:
    """``diagnostics`` with each group of :data:`MIN_GROUP` or more findings of one of ``codes`` that name
    the same missing file from different files made one finding (module docstring); order kept."""
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    for diag in diagnostics:
        missing = _MISSING.search(diag.message) if diag.code in codes and diag.file else None
        if missing is not None:
            groups.setdefault((diag.code, missing.group(1)), []).append(diag)
    merged: dict[int, Diagnostic] = {}
    dropped: set[int] = set()
    for found in groups.values():
        files = sorted({d.file for d in found if d.file})
        if len(files) < MIN_GROUP:
            continue
        first = min(found, key=lambda d: (d.file or "", d.line or 0))
        named = ", ".join(files[:MAX_NAMED]) + (f" and {len(files) - MAX_NAMED} more" if len(files) > MAX_NAMED
                                                 else "")
        merged[id(first)] = replace(first, message=f"{first.message}, named by {len(files)} skills: {named}")
        dropped.update(id(d) for d in found if d is not first)
    return [merged.get(id(d), d) for d in diagnostics if id(d) not in dropped]

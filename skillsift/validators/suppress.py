"""SK015: inline suppressions in a SKILL.md, and the ones that suppress nothing.

A skill's author can silence a finding where it is written, with a reason::

    <!-- skillsift: ignore SK304, SK305 -- the examples show Claude Code's own syntax -->

(in the body; ``# skillsift: ignore SK212 -- ...`` in the frontmatter).  It silences those
codes on that SKILL.md and on the other files of its folder.  A suppression without a
reason silences nothing and is itself reported (SK015), as is one whose codes found nothing
in a run that checked them, so suppressions never outlive their cause.  Secrets keep their
own marker (``skillsift: allow-secret``, docs/validate.md); AR001 cannot be silenced here.
"""

from __future__ import annotations

from ..cache import regexes
from ..config.checks import check
from ..diagnostics import NOTE, Diagnostic
from ..records import record
from . import BY_CODE
from .workspace import Workspace

UNUSED = check("SK015", "suppression-unused", NOTE,
               summary="every inline `skillsift: ignore CODE -- reason` in a SKILL.md gives a reason and silences a "
                       "finding")
CODE = UNUSED.code
NOT_SUPPRESSIBLE = frozenset({"AR001", "AR9D0", CODE})
_MARK = regexes.compile(r"skillsift:\s*ignore\s+([A-Za-z0-9]+(?:\s*,\s*[A-Za-z0-9]+)*)\s*"
                        r"(?:(?:--(?!>)|—|:)\s*(.*?))?\s*(?:-->|$)")


@record(frozen=True)
class Suppression:
    file: str
    line: int
    codes: tuple[str, ...]
    reason: str


def suppressions(file: str, text: str) -> list[Suppression]:
    """Every ``skillsift: ignore`` comment of a SKILL.md text (bounded: lines naming it only)."""
    out: list[Suppression] = []
    if "skillsift:" not in text:
        return out
    for number, line in enumerate(text.split("\n"), start=1):
        if "skillsift:" not in line or len(line) > 2000:
            continue
        match = _MARK.search(line)
        if match:
            codes = tuple(dict.fromkeys(c.strip().upper() for c in match.group(1).split(",") if c.strip()))
            out.append(Suppression(file, number, codes, (match.group(2) or "").strip()))
    return out


def _marks_by_skill(ws, owners) -> dict[str, list[Suppression]]:
    """The suppressions of every SKILL.md (of those in ``owners`` when given)."""
    by_skill: dict[str, list[Suppression]] = {}
    for rel in ws.skill_paths:
        if owners is not None and rel not in owners:
            continue
        text = ws.read_text(rel)
        if text:
            found = suppressions(rel, text)
            if found:
                by_skill[rel] = found
    return by_skill


def _mark_problems(mark: Suppression, used: set, ran, known) -> list[Diagnostic]:
    """SK015 for one suppression: no reason, a code it cannot silence, or (``ran`` given) nothing to silence."""
    if not mark.reason:
        return [UNUSED.report(
            file=mark.file, line=mark.line,
            message=f"this suppression of {', '.join(mark.codes)} gives no reason, so it silences nothing",
            hint=f"say why after --: <!-- skillsift: ignore {', '.join(mark.codes)} -- <why> -->")]
    out = []
    unknown = [c for c in mark.codes if c not in known or c in NOT_SUPPRESSIBLE]
    if unknown:
        out.append(UNUSED.report(
            file=mark.file, line=mark.line,
            message=f"{', '.join(unknown)} cannot be silenced here (unknown, or a secret: use "
                    "`skillsift: allow-secret` on its line)",
            hint="name codes from 'skillsift validate --list'"))
    idle = [c for c in mark.codes if c in known and c not in NOT_SUPPRESSIBLE
            and (mark.file, mark.line, c) not in used and (ran is None or c in ran)]
    if ran is not None and idle:
        out.append(UNUSED.report(
            file=mark.file, line=mark.line,
            message=f"this suppression of {', '.join(idle)} silences nothing: no such finding is left",
            hint="remove it (or the codes that no longer fire)"))
    return out


def apply(ws, diagnostics, *, ran=None, wanted=None) -> list[Diagnostic]:
    """``diagnostics`` less those an inline suppression silences, plus SK015 for the suppressions
    without a reason or (when ``ran``, the codes that ran, is given) without a finding to silence."""

    skill_of: dict[str, str | None] = {}

    def owner(file: str) -> str | None:
        if file not in skill_of:
            skill_of[file] = file if file.endswith("SKILL.md") else ws.skill_of(file)
        return skill_of[file]

    by_skill = _marks_by_skill(ws, None if wanted is None else {owner(w) for w in wanted})
    if not by_skill:
        return list(diagnostics)
    used: set[tuple[str, int, str]] = set()
    out = []
    for diag in diagnostics:
        skill = owner(diag.file) if diag.file else None
        silenced = False
        for mark in by_skill.get(skill or "", ()):
            if diag.code in mark.codes and mark.reason and diag.code not in NOT_SUPPRESSIBLE:
                used.add((mark.file, mark.line, diag.code))
                silenced = True
        if not silenced:
            out.append(diag)
    for marks in by_skill.values():
        for mark in marks:
            out += _mark_problems(mark, used, ran, BY_CODE)
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    """Nothing on its own: the runner applies the suppressions to every other check's findings (:func:`apply`)."""
    return []


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    return []

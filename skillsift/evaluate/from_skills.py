"""Cases derived from the skills themselves: frontmatter ``examples`` and ``not_for``.

A skill may list the queries it must answer and the ones it must not win::

    examples:
      - refund the duplicate charge on order 1042
      - query: customer wants their money back
        role: billing              # rank only the skills this role serves
        also: [invoice-correction] # other skills that answer it too
    not_for:
      - dispute a chargeback from the bank
      - query: the customer disputes the charge with their bank
        instead: chargeback-dispute  # the skill (or skills) that should answer it

``examples`` entry N becomes case ``<skill>/example-N`` expecting the skill (and ``also``);
``not_for`` entry N becomes ``<skill>/not-for-N`` that avoids the skill and expects
``instead`` (nothing when absent: a negative case).  Every case is tagged ``from-skills``.
A single string counts as a one-entry list.

Problems (a wrong type, a blank or too long query, an unknown key, YAML beyond plain data, an
unknown skill or role) are AR9D2 diagnostics on the SKILL.md with the line of the offending
entry, all reported together: the entries are read by the one reader of the two fields
(:func:`skillsift.casefile.frontmatter.read_fields`, the one the ranker's known requests use),
then what it cannot say (a name unknown to the catalog, with "did you mean", a role that does
not serve it) is checked entry by entry.
:func:`skill_cases` is pure: the SKILL.md text is only used to find lines.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from ..casefile.frontmatter import EXAMPLE_KEYS, FIELDS, HINT, NOT_FOR_KEYS, read_fields  # noqa: F401
from ..diagnostics import NOTE, Diagnostic, SkillsiftError, sort_diagnostics
from ..docschema import near
from ..files import MAX_SKILL_BYTES, read_bounded
from . import CASES_INVALID
from .cases import Case, CaseFile, Expected

TAG = "from-skills"
NO_CASES = "no skill lists examples or not_for, so --from-skills derives no case"
NO_CASES_HINT = "add `examples: [a query the skill must answer]` to a SKILL.md frontmatter"


@dataclass(frozen=True)
class RoleCheck:
    """What the derivation needs to know about roles.

    ``resolve(role)`` returns the names a role serves and raises (SkillsiftError,
    KeyError or ValueError) for an unknown role.
    """

    configured: bool = False
    resolve: Callable[[str], Collection[str]] | None = None


# -- derivation -----------------------------------------------------------------------------------


def skill_cases(skill, text: str | None = None, *, known: Collection[str] = (),
                roles: RoleCheck = RoleCheck()) -> tuple[list[Case], list[Diagnostic]]:
    """The cases ``skill``'s frontmatter ``examples`` and ``not_for`` describe, and their problems.

    ``text`` is the SKILL.md text (for line numbers and the strict YAML checks; without it problems
    point at the frontmatter's first line); ``known`` the catalog's skill names.  The entries are
    read by the one reader of the two fields (:func:`skillsift.casefile.frontmatter.read_fields`).
    """
    read = read_fields(skill.frontmatter, text, first_line=skill.frontmatter_line)
    known = set(known) | {skill.name}
    problems: list[Diagnostic] = [
        Diagnostic(file=skill.path, line=line or skill.frontmatter_line or None, code=CASES_INVALID, severity=NOTE,
                   message=f'skill "{skill.name}": {message}') for line, message in read.notes]

    def problem(line: int, message: str) -> None:
        problems.append(Diagnostic(file=skill.path, line=line or skill.frontmatter_line or None,
                                   code=CASES_INVALID, message=f'skill "{skill.name}": {message}', hint=HINT))

    for line, message in read.problems:
        problem(line, message)
    cases: list[Case] = []
    served_cache: dict[str, frozenset[str] | None] = {}
    for entry in read.entries:
        case = _entry_case(skill, entry, known, roles, served_cache, problem)
        if case is not None:
            cases.append(case)
    return cases, sorted(problems, key=lambda d: d.line or 0)


def _entry_case(skill, entry, known, roles, served_cache, problem):
    """The case of one entry that passed the rules, or None after its problems (what a table cannot say)."""
    id_word, _allowed, names_key = FIELDS[entry.field]
    line, label, others = entry.line, f"{entry.field} entry {entry.number}", list(entry.names)
    names_line = entry.names_line or line
    ok = True
    for other in others:
        if other == skill.name:
            problem(names_line, f'{label}: {names_key} names the skill itself')
            ok = False
        elif other not in known:
            problem(names_line, f'{label}: {names_key} names unknown skill "{other}"{near(other, known)}')
            ok = False
    if len(set(others)) != len(others):
        problem(names_line, f"{label}: {names_key} lists a skill twice")
        ok = False
    role = entry.role
    if role:
        served = _served_by(role, entry.role_line or line, label, roles, served_cache, problem)
        if served is None:
            ok = False
        else:
            wanted = ([skill.name] if entry.field == "examples" else []) + others
            for name in wanted:
                if name in known and name not in served:
                    problem(entry.role_line or line, f'{label}: role "{role}" does not serve "{name}"')
                    ok = False
    if not ok:
        return None
    if entry.field == "examples":
        expect = (Expected(id=skill.name, line=line),) + tuple(Expected(id=o, line=line) for o in others)
        avoid: tuple[str, ...] = ()
    else:
        expect = tuple(Expected(id=o, line=line) for o in others)
        avoid = (skill.name,)
    return Case(id=f"{skill.name}/{id_word}-{entry.number}", query=entry.query, expect=expect, avoid=avoid,
                role=role, tags=(TAG,), line=line, avoid_lines=(line,) * len(avoid), role_line=entry.role_line)


def _served_by(role, line, label, roles, served_cache, problem):
    if role not in served_cache:
        if not roles.configured or roles.resolve is None:
            problem(line, f'{label} sets role "{role}", but no roles are configured')
            served_cache[role] = None
        else:
            try:
                served_cache[role] = frozenset(roles.resolve(role))
            except (SkillsiftError, KeyError, ValueError):
                problem(line, f'{label}: unknown role "{role}"')
                served_cache[role] = None
    return served_cache[role]


def derive_cases(skills: Iterable, texts: Mapping[str, str] | None = None, *, known: Collection[str] = (),
                 roles: RoleCheck = RoleCheck()) -> tuple[list[Case], list[Diagnostic]]:
    """The derived cases of every skill, in catalog order, and every problem (sorted by file and line).

    ``texts`` maps a skill's name to its SKILL.md text (for line numbers).
    """
    texts = texts or {}
    cases: list[Case] = []
    problems: list[Diagnostic] = []
    for skill in skills:
        got, bad = skill_cases(skill, texts.get(skill.name), known=known, roles=roles)
        cases.extend(got)
        problems.extend(bad)
    return cases, sort_diagnostics(problems)


def examples_error(problems: list[Diagnostic]) -> SkillsiftError:
    """One AR9D2 error listing every problem as ``file:line: message``."""
    text = "; ".join(f"{d.location()}: {d.message}" for d in problems)
    return SkillsiftError(f"{CASES_INVALID}: invalid examples in SKILL.md frontmatter: {text}",
                          diagnostics=problems, hint=HINT, exit_code=1)


def skill_cases_and_notes(catalog, roles: RoleCheck = RoleCheck()) -> tuple[list[Case], list[Diagnostic]]:
    """Read the SKILL.md of each skill that lists examples or not_for and derive its cases, with the
    notes on entries it ignored (an ``examples`` entry of another shape, such as ``{title, input,
    output}``), each with its file and line.

    Raises the AR9D2 :class:`SkillsiftError` when any entry is invalid.
    """
    import os

    texts: dict[str, str] = {}
    listed = [s for s in catalog.skills if any(k in (s.frontmatter or {}) for k in FIELDS)]
    for skill in listed:
        try:
            texts[skill.name] = read_bounded(os.path.join(catalog.root, skill.path),
                                             MAX_SKILL_BYTES).decode("utf-8", "replace")
        except OSError:
            pass  # lines then fall back to the frontmatter's first line
    cases, problems = derive_cases(listed, texts, known=catalog.names, roles=roles)
    errors = [p for p in problems if p.severity != NOTE]
    if errors:
        raise examples_error(errors)
    return cases, [p for p in problems if p.severity == NOTE]


def merge_cases(case_file: CaseFile | None, derived: Iterable[Case],
                path: str = "from-skills") -> tuple[CaseFile, int, int]:
    """The file's cases followed by the derived ones whose id is not taken.

    Returns ``(case file, derived count, skipped count)``.
    """
    derived = list(derived)
    base = list(case_file.cases) if case_file is not None else []
    taken = {c.id for c in base}
    added = [c for c in derived if c.id not in taken]
    merged = CaseFile(version=1, k=case_file.k if case_file is not None else 0, cases=tuple(base + added),
                      path=case_file.path if case_file is not None else path)
    return merged, len(added), len(derived) - len(added)

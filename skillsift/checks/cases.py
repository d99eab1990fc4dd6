"""AR9D2: a cases or examples file is invalid (every problem at once, each with its line).

The examples files of ``[search] examples`` have the cases-file format and are checked by
the same rules, plus their own (:func:`skillsift.ranker.known.example_problems`); a name in
``[search] examples`` that does not lead to a file of the repository is a finding on the
config.  A skill's frontmatter ``examples`` are known requests too, read by the same strict
rules (:func:`skillsift.ranker.known.skill_requests`): each problem is a finding on its SKILL.md line.

The evaluation parser (:mod:`skillsift.evaluate.cases`) reads the file strictly; the cases
(as far as they read, so every problem comes in one round) are then checked against the
catalog (unknown skills, with "did you mean", unknown roles, expected skills a role does not
serve).  A file that cannot be read at all is reported too, on the file.
"""

from __future__ import annotations

from ..config.checks import check as declare
from ..diagnostics import ERROR, Diagnostic, SkillsiftError
from ..validators.workspace import Workspace

INVALID = declare("AR9D2", "search-cases-invalid", ERROR, scope="repo", triggers=("cases", "skill", "config"),
                  files="the cases files ([validate] cases, default search-cases.yaml), the examples files ([search] "
                        "examples), SKILL.md, the config",
                  summary="the cases and examples files are valid and name only skills and roles that exist (every "
                          "problem, with lines)")
CODE = INVALID.code


def _from_error(rel: str, exc: SkillsiftError) -> list[Diagnostic]:
    if exc.diagnostics:
        return [INVALID.report(file=rel, line=d.line, column=d.column, message=d.message,
                               hint=d.hint or exc.hint) for d in exc.diagnostics]
    message = exc.message.replace(f"{CODE}: ", "", 1)
    return [INVALID.report(file=rel, message=message, hint=exc.hint)]


def check(rel: str, loaded, catalog, *, roles=None) -> list[Diagnostic]:
    """AR9D2 findings of one cases file.

    ``loaded`` is ``(CaseFile or None, SkillsiftError or None)``; ``catalog`` the
    repository's catalog; ``roles`` the configured ``[roles]`` table.
    """
    from ..evaluate.session import check_cases, with_catalog_problems

    case_file, error = loaded
    if error is not None:  # the catalog's problems of the cases as far as they read join the same round
        return _from_error(rel, with_catalog_problems(error, catalog, roles or {}))

    try:
        check_cases(case_file, catalog, roles or {})
    except SkillsiftError as exc:
        return _from_error(rel, exc)
    return []


def check_paths(ws, paths) -> list[Diagnostic]:
    roles = ws.config.roles if ws.config is not None else {}
    out = []
    for rel in paths:
        found = check(rel, ws.case_file(rel), ws.catalog, roles=roles)
        case_file = ws.case_file(rel)[0]
        if rel in ws.examples_paths and case_file is not None:
            found += [INVALID.report(file=rel, line=line, message=message,
                                     hint="Fix the lines listed (the examples file has the cases-file format, "
                                          "docs/evaluation.md)")
                      for line, message in _known().example_problems(case_file)]
        out.extend(sorted(found, key=lambda d: d.line or 0))
    return out


def _known():
    """:mod:`skillsift.ranker.known`, loaded when a check needs it (HEAVY in tests/test_layers.py)."""
    from ..ranker import known

    return known


def examples_config_problems(ws) -> list[Diagnostic]:
    """``[search] examples`` naming no file of the repository (missing, outside it, a directory)."""
    error = ws.examples[1]
    if error is None:
        return []
    return [INVALID.report(file=ws.project_file or "skillsift.toml", message=error.message,
                           hint=error.hint)]


def frontmatter_problems(ws) -> list[Diagnostic]:
    """The skills' frontmatter ``examples`` that break a rule of known requests, each with its SKILL.md line.

    The one reader the ranker uses (:func:`skillsift.ranker.known.skill_requests`): a skill reported
    here is one whose frontmatter requests a search leaves out, saying why.
    """
    out = []
    for skill in ws.all_skills:
        # a skill listing no examples has none (skill_requests' own first test): most skills, and
        # then the ranker's reader is not loaded at all
        if not isinstance(skill.frontmatter, dict) or "examples" not in skill.frontmatter:
            continue
        for d in _known().skill_requests(skill, ws.root)[1]:
            out.append(INVALID.report(file=d.file, line=d.line, message=d.message, hint=d.hint))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    found = frontmatter_problems(ws)
    if ws.config is None:
        return found
    import os

    paths = list(dict.fromkeys([*ws.cases_paths, *ws.examples_paths]))
    # a configured path that exists but is no regular file (a directory, a dangling link) is a finding
    return examples_config_problems(ws) + check_paths(ws, [p for p in paths if os.path.lexists(ws.abspath(p))]) + found

"""AR9D2: a cases or examples file is invalid (every problem at once, each with its line).

The examples files of ``[search] examples`` have the cases-file format and are checked by
the same rules, plus their own (:func:`skillsift.ranker.known.example_problems`); a name in
``[search] examples`` that does not lead to a file of the repository is a finding on the
config.

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
            from ..ranker.known import example_problems

            found += [INVALID.report(file=rel, line=line, message=message,
                                     hint="Fix the lines listed (the examples file has the cases-file format, "
                                          "docs/evaluation.md)")
                      for line, message in example_problems(case_file)]
        out.extend(sorted(found, key=lambda d: d.line or 0))
    return out


def examples_config_problems(ws) -> list[Diagnostic]:
    """``[search] examples`` naming no file of the repository (missing, outside it, a directory)."""
    error = ws.examples[1]
    if error is None:
        return []
    return [INVALID.report(file=ws.project_file or "skillsift.toml", message=error.message,
                           hint=error.hint)]


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None:
        return []
    import os

    paths = list(dict.fromkeys([*ws.cases_paths, *ws.examples_paths]))
    # a configured path that exists but is no regular file (a directory, a dangling link) is a finding
    return examples_config_problems(ws) + check_paths(ws, [p for p in paths if os.path.lexists(ws.abspath(p))])

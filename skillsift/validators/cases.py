"""AR9D2: a cases file is invalid (every problem at once, each with its line).

The evaluation parser (:mod:`skillsift.evaluate.cases`) reads the file strictly; the cases
(as far as they read, so every problem comes in one round) are then checked against the
catalog (unknown skills, with "did you mean", unknown roles, expected skills a role does not
serve).  A file that cannot be read at all is reported too, on the file.
"""

from __future__ import annotations

from ..config.checks import check as declare
from ..diagnostics import ERROR, Diagnostic, SkillsiftError
from .workspace import Workspace

CODE = "AR9D2"
CHECKS = (  # declared here; reported below with Diagnostic(...) until the module is converted
    declare("AR9D2", "search-cases-invalid", ERROR, scope="repo", triggers=("cases", "skill", "config"),
            files="the cases files ([validate] cases, default search-cases.yaml), SKILL.md, the config",
            summary="the cases file is valid and names only skills and roles that exist (every problem, with lines)"),
)


def _from_error(rel: str, exc: SkillsiftError) -> list[Diagnostic]:
    if exc.diagnostics:
        return [Diagnostic(file=rel, line=d.line, column=d.column, code=CODE, severity=ERROR, message=d.message,
                           hint=d.hint or exc.hint) for d in exc.diagnostics]
    message = exc.message.replace(f"{CODE}: ", "", 1)
    return [Diagnostic(file=rel, code=CODE, severity=ERROR, message=message, hint=exc.hint)]


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
        out.extend(check(rel, ws.case_file(rel), ws.catalog, roles=roles))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None:
        return []
    import os

    return check_paths(ws, [p for p in ws.cases_paths if os.path.isfile(ws.abspath(p))])

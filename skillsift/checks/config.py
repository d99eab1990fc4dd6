"""AR9D0: the configuration is invalid.

The config loader reports every problem of every table (``[validate]`` included) with file
and line, for every command alike (docs/configuration.md); this check adds the files
``[validate]`` names that do not exist.
"""

from __future__ import annotations

import os

from ..config.checks import check
from ..diagnostics import ERROR, Diagnostic
from ..validators.workspace import Workspace

INVALID = check("AR9D0", "search-config-invalid", ERROR, scope="repo", triggers=("any",),
                files="skillsift.toml, pyproject.toml [tool.skillsift], .ai-rulez/config.toml, the user config",
                summary="the configuration parses and every key has an allowed value (including [validate])",
                details="Every problem of the config files, each at its file and line (the loader's own checks "
                        "of [search], [embeddings], [catalog], [roles], [secrets] and [validate]), and a "
                        "[validate] cases or baseline file that does not exist; a config that does not load stops "
                        "the run with exit code 2 (docs/checks-repository.md, \"AR9D0 — the configuration\").")


def missing_file_diagnostics(settings, exists, *, file: str, line_of) -> list[Diagnostic]:
    """AR9D0 for configured files that do not exist: cases files and the evaluation baseline.

    ``exists(path)`` tells whether a path (as written, relative to the root) is a file.
    The secrets baseline may be absent (no finding accepted yet).
    """
    out = []
    if settings.cases_configured:
        for path in settings.cases:
            if not exists(path):
                out.append(INVALID.report(file=file, line=line_of(("cases",)),
                                          message=f'validate.cases names "{path}", which does not exist',
                                          hint="fix the path (relative to the repository root) or create the file"))
    if settings.baseline and not exists(settings.baseline):
        cases = settings.cases[0] if settings.cases_configured and settings.cases else "search-cases.yaml"
        out.append(INVALID.report(file=file, line=line_of(("baseline",)),
                                  message=f'validate.baseline names "{settings.baseline}", which does not exist',
                                  hint=f"write the first one: skillsift eval {cases} --output {settings.baseline}, "
                                       "and commit it"))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None:
        return ws.config_problems

    def line_of(path) -> int | None:
        return ws.key_line("validate", ".".join(str(p) for p in path))

    return missing_file_diagnostics(ws.settings, lambda p: os.path.isfile(ws.abspath(p)),
                                    file=ws.project_file, line_of=line_of)

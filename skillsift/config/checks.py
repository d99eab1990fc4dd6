"""The check registry: every check skillsift runs, with its code, a short name,
its default severity, its scope, its preset and the files that trigger it.

Each check is declared once, beside its code, in its check module
(``skillsift/checks/<module>.py``)::

    EMPTY = check("SK302", "body-empty", WARNING, summary="the body holds instructions",
                  details="an empty body gives an agent that uses the skill nothing to follow")
    ...
    out.append(EMPTY.report(file=path, line=3, message="the body is empty"))

The severity of a finding comes from its declaration; a finding that differs on purpose says so
(``EMPTY.report(..., level=NOTE)``).  The rows below (:data:`CHECKS`) are generated from the
declarations into :mod:`.check_table`, so the cheap paths (the hooks, ``--list``, the config, the
renderers) read them without importing a check module; ``python -m skillsift.validators.declared
--write`` writes that table, the table and reference of the docs from them, and
``tests/validators/test_declared.py`` fails while any of them is stale (docs/development.md, "The
check contract").  It sits in the config layer because the config (``[validate.severity]``,
``select``, ``preset``) and the renderers read the codes.

Scope
    ``file``: the diagnostics belong to one file each; with paths, ``skillsift validate``
    keeps only those on the given files.  ``repo``: a repository-level check; with paths,
    it runs when one of the paths is of a kind that triggers it and all its findings are
    reported.

Triggers (the kinds of path that make a check run when paths are given)
    ``skill`` a ``SKILL.md`` (also a deleted one), ``skill-file`` another file of a skill's
    folder, ``config`` the project config file,
    ``cases`` a cases file, ``index`` a file of the committed index, ``baseline`` the
    evaluation baseline, ``secrets-baseline`` the accepted-secrets file, ``any`` any
    file at all.

Presets (``[validate] preset``, ``--preset``)
    ``recommended`` (the default) runs every check declared ``preset="recommended"``;
    ``strict`` runs every check, the opt-in ones (``preset="strict"``) included, each at its
    declared severity.
"""

from __future__ import annotations

import sys

from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..records import field, record
from .check_table import ROWS

RECOMMENDED, STRICT = "recommended", "strict"
PRESETS = (RECOMMENDED, STRICT)
SCOPES = ("file", "repo")
TRIGGERS = ("skill", "skill-file", "config", "cases", "index", "baseline", "secrets-baseline", "any")


@record(frozen=True)
class Check:
    """One registered check: its row in the registry, and how a check module reports it."""

    code: str
    name: str
    severity: str  # the default; [validate.severity] overrides it
    scope: str  # "file" | "repo"
    module: str  # the module holding run(workspace), relative to skillsift: checks.<name> (validators.suppress)
    triggers: tuple[str, ...]
    files: str  # what triggers it, for people (docs, --list)
    summary: str  # one line: what it checks
    preset: str = RECOMMENDED  # "strict": opt-in, runs only with the strict preset, --select or a severity
    details: str = field(default="", compare=False)  # the documentation (explain, docs/checks.md)

    @property
    def opt_in(self) -> bool:
        """Runs only when selected (--select), given a severity in [validate.severity] or under the strict preset."""
        return self.preset == STRICT

    def report(self, file: str = "", line: int | None = None, column: int | None = None, message: str = "",
               hint: str = "", *, level: str | None = None, rule: str = "") -> Diagnostic:
        """A finding of this check, at its declared severity unless ``level`` names a variant."""
        return Diagnostic(file=file, line=line, column=column, code=self.code, message=message,
                          severity=level or self.severity, hint=hint, rule=rule)


#: Every check declared so far, in the order the modules were imported (see :func:`check`).
DECLARED: list[Check] = []


def check(code: str, name: str, severity: str, *, summary: str, details: str = "", scope: str = "file",
          triggers: tuple[str, ...] = ("skill",), files: str = "SKILL.md", preset: str = RECOMMENDED,
          module: str = "") -> Check:
    """Declare a check in its module (the caller's, named without ``skillsift.``: ``checks.<name>``).

    The defaults are a file-scope check of a SKILL.md in the recommended preset; the arguments are
    checked here, so a bad declaration fails on import, in every test.
    """
    if not module:
        module = sys._getframe(1).f_globals.get("__name__", "").removeprefix("skillsift.")
    problems = [what for what, bad in (
        (f"severity {severity!r}", severity not in (ERROR, WARNING, NOTE)),
        (f"scope {scope!r}", scope not in SCOPES),
        (f"preset {preset!r}", preset not in PRESETS),
        (f"triggers {triggers!r}", not triggers or any(t not in TRIGGERS for t in triggers)),
        (f"code {code!r}", not (len(code) == 5 and code[:2] in ("SK", "AR") and code.isalnum() and code.isupper())),
        (f"summary {summary!r}", not summary.strip()),
        (f"code {code!r} declared twice", any(c.code == code for c in DECLARED)),
    ) if bad]
    if problems:
        raise ValueError(f"check {code} in {module}: bad {', '.join(problems)}")
    declared = Check(code, name, severity, scope, module, tuple(triggers), files, summary, preset, details)
    DECLARED.append(declared)
    return declared


CHECKS: tuple[Check, ...] = tuple(Check(*row) for row in ROWS)

BY_CODE: dict[str, Check] = {check.code: check for check in CHECKS}
#: The checks of the strict preset only, which run only when asked for (docs/validate.md, "Presets").
OPT_IN: frozenset[str] = frozenset(check.code for check in CHECKS if check.opt_in)
CODES: tuple[str, ...] = tuple(check.code for check in CHECKS)
SEVERITY_CHOICES = (ERROR, WARNING, NOTE, "off")


def get(code: str) -> Check:
    """The registered check of ``code`` (KeyError when unknown)."""
    return BY_CODE[code]


def expand_codes(spec) -> tuple[set[str], list[str]]:
    """Codes named by ``spec`` (a comma string or an iterable of them): exact codes or prefixes.

    ``SK`` selects every SK check, ``AR9D`` the AR9D ones.  Returns (codes, unknown
    entries); matching is case-insensitive.
    """
    if spec is None:
        return set(), []
    parts = spec.split(",") if isinstance(spec, str) else [p for item in spec for p in str(item).split(",")]
    codes: set[str] = set()
    unknown: list[str] = []
    for part in parts:
        word = part.strip().upper()
        if not word:
            continue
        matched = {code for code in CODES if code.startswith(word)}
        if matched:
            codes |= matched
        else:
            unknown.append(part.strip())
    return codes, unknown

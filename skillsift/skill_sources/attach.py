"""Attach a project's sources to its config: read them as the lock pins them, mount them, keep the findings.

:func:`attach` is what opening a project does when ``[[sources]]`` is set (docs/sources.md): it never
fetches; a source that is not in the cache, not locked as configured, or whose skills differ from the
lock gives findings (SK050-SK053) and serves nothing the lock does not admit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..config.model import Config
from ..diagnostics import ERROR, WARNING, Diagnostic
from .lockfile import LOCK_FILE
from .mount import mount
from .sync import cache_folder, read_sources

if TYPE_CHECKING:
    from .sync import SourceProblem
# the modules that read sources (json, git, the index lock, shutil, tempfile) are imported only
# when a config names [[sources]]: a hook or a command on a project without them does not pay for them

SEVERITY = {"SK050": ERROR, "SK051": ERROR, "SK052": WARNING, "SK053": WARNING}
HINTS = {
    "SK050": "review the change, then `skillsift sources update` and commit skillsift.lock",
    "SK051": "run `skillsift sources update` and commit skillsift.lock",
    "SK052": "links in a source are never followed; put the file itself in the source",
    "SK053": "run `skillsift sources fetch` (CI: before the other steps)",
}


def _diagnostic(problem: SourceProblem) -> Diagnostic:
    return Diagnostic(file=LOCK_FILE, code=problem.code, severity=SEVERITY[problem.code], message=problem.message,
                      hint=HINTS[problem.code])


def attach(config: Config, env=None, *, as_locked: bool = False) -> Config:
    """``config`` with its sources' mounted folders and findings (unchanged when it has no sources).

    ``as_locked``: the sources as the repository's own ``skillsift.lock`` pins them, whatever the
    config's ``[[sources]]`` say (``skillsift ci`` reads a base commit so).
    """
    if not config.skill_sources and not as_locked:
        return config

    view = read_sources(config, cache_folder(env), as_locked=as_locked)
    findings = [_diagnostic(p) for p in view.problems]
    try:
        folders = mount(config.root, view.roots)
    except OSError as exc:
        folders = []
        findings.append(Diagnostic(file=LOCK_FILE, code="SK053", severity=WARNING,
                                   message=f"the sources could not be copied under .skillsift/local: {exc}",
                                   hint="make .skillsift/local a writable folder of the repository (not a link); "
                                        "no source skill is served meanwhile"))
    return replace(config, source_folders=tuple(folders), source_findings=tuple(findings))

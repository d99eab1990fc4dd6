"""Run the registered checks over a workspace: selection, paths, severities, order.

:func:`run_checks` is what ``skillsift validate`` and the hooks call.  Check modules are
imported only when one of their codes is selected and triggered, so a hook that needs
one check does not pay for the others; :mod:`.contract` holds the typed contract they keep
and the table they are loaded from.
"""

from __future__ import annotations

from dataclasses import replace

from .. import catalog
from ..config.checks import STRICT
from ..diagnostics import NOTE, Diagnostic, sort_diagnostics, sort_key
from . import BY_CODE, CHECKS, OPT_IN, expand_codes, suppress, text_cache
from .contract import run_module
from .parsed import shared_views
from .workspace import Workspace


def select_codes(select=None, ignore=None, configured_ignore=(), preset: str = "recommended"
                 ) -> tuple[set[str], list[str]]:
    """(codes to run, unknown entries) from ``--select`` / ``--ignore``, ``[validate] ignore`` and the preset.

    No ``select`` means every check of the preset: ``recommended`` leaves out the opt-in checks,
    ``strict`` runs them too.  Entries are codes or prefixes (``SK``, ``AR9D``); under
    ``recommended`` a prefix does not switch on an opt-in check, a code named exactly does.
    """
    unknown: list[str] = []
    strict = preset == STRICT
    if select:
        codes, bad = expand_codes(select)
        unknown += bad
        named = {part.strip().upper() for item in ([select] if isinstance(select, str) else select)
                 for part in str(item).split(",")}
        if not strict:
            codes -= {code for code in OPT_IN if code not in named}  # a prefix does not switch on an opt-in check
    else:
        codes = {check.code for check in CHECKS} - (set() if strict else OPT_IN)
    for spec in (ignore, configured_ignore):
        if spec:
            dropped, bad = expand_codes(spec)
            unknown += bad
            codes -= dropped
    return codes, unknown


def _triggered(check, kinds: set[str]) -> bool:
    return "any" in check.triggers or bool(kinds.intersection(check.triggers))


def _modules_to_run(codes: set, kinds: set[str], wanted) -> list[str]:
    """The check modules that report one of ``codes`` (and, for a run on some paths, are triggered by them)."""
    modules: list[str] = []
    for check in CHECKS:
        if check.code in codes and (wanted is None or _triggered(check, kinds)) and check.module not in modules:
            modules.append(check.module)
    return modules


def _reported(diag: Diagnostic, codes: set, wanted, severity, folders) -> Diagnostic | None:
    """A finding as reported: None when its code is not selected or its file not asked for; else at the
    configured ``severity`` (a note on a skill of one of the sources' ``folders``)."""
    known = BY_CODE.get(diag.code)
    if known is not None:
        if diag.code not in codes:
            return None
        if wanted is not None and known.scope == "file" and diag.file and diag.file not in wanted:
            return None
        level = severity.get(diag.code)
        if level and level != diag.severity:
            diag = replace(diag, severity=level)
    if folders and _from_a_source(diag, folders):
        diag = replace(diag, severity=NOTE)
    return diag


def run_checks(ws: Workspace, *, codes=None, paths=None, preset: str | None = None) -> list[Diagnostic]:
    """Every diagnostic of the selected checks, sorted (file, line, column, code).

    ``codes``: the codes to report (default those of ``preset``, else ``[validate] preset``, minus
    ``[validate] ignore``; callers that pass codes apply that table themselves, see :func:`select_codes`).  ``paths``:
    relative paths (``/``); when given, a file-scope check reports only on those files and
    a check runs only when one of the paths is of a kind that triggers it (a path that no
    longer exists, such as a deleted SKILL.md, still triggers the repository-level checks).
    A config that does not load yields its AR9D0 problems and nothing else.
    """
    if ws.config is None:
        return sort_diagnostics(ws.config_problems)
    severity = ws.settings.severity
    if codes is None:
        codes, _unknown = select_codes(configured_ignore=ws.settings.ignore, preset=preset or ws.settings.preset)
        codes |= {code for code in OPT_IN if severity.get(code) not in (None, "off")}  # asked for by severity
    codes = {code for code in codes if severity.get(code) != "off"}
    kinds: set[str] = set()
    wanted = None
    if paths is not None:
        wanted = set(paths)
        for rel in paths:
            kinds |= ws.path_kinds(rel)
    modules = _modules_to_run(codes, kinds, wanted)

    found: list[Diagnostic] = []
    # the text-check cache is written once, after every module; what several modules compute of one text, once;
    # on the command line, the cyclic collector paused while the checks run (:data:`skillsift.catalog.collector_pause`:
    # they make millions of short-lived objects and almost no cycles, and its passes were 3-4% of a cold validate)
    with text_cache.deferred(ws), catalog.collector_paused(), shared_views():
        for name in modules:
            found.extend(run_module(name, ws, None if wanted is None else sorted(wanted)))

    ran = {check.code for check in CHECKS if check.module in modules and check.code in codes}
    found = suppress.apply(ws, found, ran=ran, wanted=wanted)
    folders = ws.config.source_folders
    out = [diag for diag in (_reported(d, codes, wanted, severity, folders) for d in found) if diag is not None]
    return sorted_unique(out)


# Findings on a source's skills that keep their severity (docs/sources.md, "Checks"): a secret, and the
# source checks; every other finding there is a note, so a project never fails on another repository's style.
KEPT_ON_SOURCES = ("AR001", "SK050", "SK051", "SK052", "SK053", "SK054")


def _from_a_source(diag: Diagnostic, folders) -> bool:
    return (diag.severity != NOTE and diag.code not in KEPT_ON_SOURCES and bool(diag.file)
            and any(diag.file.startswith(folder + "/") for folder in folders))


def sorted_unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """:func:`~skillsift.diagnostics.sort_diagnostics` of ``diagnostics`` with each repeated finding left out
    (the first kept), without hashing every finding.

    Equal findings have equal sort keys, and the sort is stable: the repeats of a finding are among the
    findings of its key, in their first order, so only those are compared.
    """
    keys = [sort_key(d) for d in diagnostics]
    out: list[Diagnostic] = []
    previous = None
    group: list[Diagnostic] = []
    for i in sorted(range(len(diagnostics)), key=keys.__getitem__):
        diag, key = diagnostics[i], keys[i]
        if key != previous:
            previous, group = key, [diag]
        elif diag in group:
            continue
        else:
            group.append(diag)
        out.append(diag)
    return out

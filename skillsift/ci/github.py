"""What the GitHub runner reads: step outputs, annotations and the job summary.

* Outputs are appended to ``$GITHUB_OUTPUT`` as ``key=value`` lines; a value holding a line
  break is written as ``key<<DELIMITER`` ... ``DELIMITER`` with a delimiter that is not a
  line of the value.
* Annotations are workflow commands on stdout, rendered by the shared ``github`` reporter
  (escaping, at most 10 of each kind per step): the regressed cases first, at their line
  in the cases file, then the validation findings.  Paths are made relative to the
  repository's top level, which is what GitHub resolves them against.
* The summary is appended to ``$GITHUB_STEP_SUMMARY``, cut to what the step may still
  write of GitHub's 1 MiB.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import replace

from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..evaluate.verdict import CiRun
from ..render.diagnostics import render_github
from ..render.diagnostics import render_sarif as sarif
from ..render.pull_request import SUMMARY_LIMIT, cap_summary

EVAL_REGRESSION = "AR9D4"
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


# -- outputs ----------------------------------------------------------------------------------------


def _delimiter(value: str) -> str:
    lines = set(value.splitlines())
    n = 0
    while True:
        candidate = "SKILLSIFT_EOF" if n == 0 else f"SKILLSIFT_EOF_{n}"
        if candidate not in lines:
            return candidate
        n += 1


def format_outputs(pairs: Iterable[tuple[str, str]]) -> str:
    """The ``$GITHUB_OUTPUT`` text of ``pairs`` (multiline values in the delimiter form)."""
    out = []
    for key, value in pairs:
        if not _KEY.match(key):
            raise ValueError(f"output name {key!r} must be letters, digits, '_' or '-'")
        value = str(value)
        if "\n" in value or "\r" in value:
            delimiter = _delimiter(value)
            out.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            out.append(f"{key}={value}\n")
    return "".join(out)


def _metric(value) -> str:
    return "" if value is None else f"{value:.4f}"


def outputs_of(run: CiRun, report_path: str = "", sarif_path: str = "") -> list[tuple[str, str]]:
    """The step outputs: head metrics (primary mode), flip counts and ids, verdict, report paths.

    Every name here is declared under ``outputs:`` in ``action.yml`` (a test keeps the two equal).
    """
    metrics = run.head.primary.metrics if run.head is not None else None
    c = run.comparison
    return [
        ("verdict", run.status),
        ("top1", _metric(metrics.top1 if metrics else None)),
        ("mrr", _metric(metrics.mrr if metrics else None)),
        ("hit-at-k", _metric(metrics.hit_at_k if metrics else None)),
        ("recall-at-k", _metric(metrics.recall_at_k if metrics else None)),
        ("k", str(run.k) if run.head is not None else ""),
        ("regressed", str(run.regressed)),
        ("fixed", str(run.fixed)),
        ("rank-changes", str(len(c.regressed) + len(c.fixed) + len(c.moved)) if c is not None else "0"),
        ("regressed-cases", "\n".join(ch.id for ch in c.regressed) if c is not None else ""),
        ("fixed-cases", "\n".join(ch.id for ch in c.fixed) if c is not None else ""),
        ("findings", str(len(run.findings))),
        ("report-path", report_path),
        ("sarif-path", sarif_path),
    ]


# -- annotations ------------------------------------------------------------------------------------


def _rank(rank) -> str:
    return "not retrieved" if rank is None else f"rank {rank}"


def case_annotations(run: CiRun, cases_file: str) -> list[Diagnostic]:
    """One diagnostic per regressed case (error when the flip gate failed, else warning) and per fixed one."""
    c = run.comparison
    if c is None:
        return []
    severity = ERROR if run.flips_failed else WARNING
    out = []
    for ch in c.regressed:
        first = f'; "{ch.first_after}" ranks first now' if ch.first_after else ""
        out.append(Diagnostic(file=cases_file, line=ch.line or None, code=EVAL_REGRESSION, severity=severity,
                              message=f'case "{ch.id}" regressed against the {run.base_word}: expected '
                                      f"{', '.join(ch.expected)}, {_rank(ch.before)} -> {_rank(ch.after)}{first}"))
    for ch in c.fixed:
        out.append(Diagnostic(file=cases_file, line=ch.line or None, code=EVAL_REGRESSION, severity=NOTE,
                              message=f'case "{ch.id}" fixed: {", ".join(ch.expected)} '
                                      f"{_rank(ch.before)} -> {_rank(ch.after)}"))
    return out


def relocate(diagnostics: Iterable[Diagnostic], prefix: str) -> list[Diagnostic]:
    """Diagnostics with their files prefixed (paths relative to the root -> to the repository)."""
    if not prefix:
        return list(diagnostics)
    prefix = prefix if prefix.endswith("/") else prefix + "/"
    return [replace(d, file=prefix + d.file) if d.file else d for d in diagnostics]


def _located(run: CiRun, prefix: str) -> list[Diagnostic]:
    return relocate([*case_annotations(run, run.cases_path), *run.findings], prefix)


def render_annotations(run: CiRun, *, prefix: str = "") -> str:
    """The workflow commands for the regressed/fixed cases and the validation findings."""

    return render_github(_located(run, prefix))


def render_sarif(run: CiRun, *, prefix: str = "") -> str:
    """The same findings as the annotations, as a SARIF 2.1.0 log for code scanning.

    Paths are relative to the repository's top level (``%SRCROOT%``), as code scanning
    resolves them; see docs/github-action.md for the upload step.
    """

    return sarif(_located(run, prefix))


# -- files --------------------------------------------------------------------------------------------


def summary_text(path: str, markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """``markdown`` cut to what the summary file at ``path`` may still hold of ``limit``."""
    try:
        used = os.path.getsize(path)
    except OSError:
        used = 0
    return cap_summary(markdown, max(limit - used, 0))

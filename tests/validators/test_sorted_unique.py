"""The runner's one pass that sorts the findings and drops the repeated ones equals sorting the findings
left after the set-based pass it replaced (seeded random findings, repeats and near-repeats)."""

from __future__ import annotations

import random

from skillsift.diagnostics import Diagnostic, sort_diagnostics
from skillsift.validators.runner import sorted_unique


def _unique_before(diagnostics):
    """The runner's pass as it was: the first of each finding, by hash and equality, in the given order."""
    seen = set()
    out = []
    for diag in diagnostics:
        if diag not in seen:
            seen.add(diag)
            out.append(diag)
    return out


def _random_findings(rng: random.Random) -> list[Diagnostic]:
    pool = [Diagnostic(file=rng.choice(("", "a/SKILL.md", "b/SKILL.md", "a/x.md")),
                       line=rng.choice((None, 0, 1, 2, 30)), column=rng.choice((None, 0, 1, 4)),
                       code=rng.choice(("SK001", "SK002", "AR001")), message=rng.choice(("m", "n", "")),
                       severity=rng.choice(("error", "warning", "note")), hint=rng.choice(("", "h")),
                       rule=rng.choice(("", "aws")))
            for _ in range(rng.randint(0, 12))]
    return [rng.choice(pool) if pool and rng.random() < 0.5 else
            Diagnostic(**{**vars(rng.choice(pool))}) if pool else Diagnostic() for _ in range(rng.randint(0, 40))]


def test_sorted_unique_is_sort_of_unique_on_random_findings():
    rng = random.Random(61)
    repeats = 0
    for _ in range(3_000):
        findings = _random_findings(rng)
        expected = sort_diagnostics(_unique_before(findings))
        got = sorted_unique(findings)
        assert [id(d) for d in got] == [id(d) for d in expected]
        repeats += len(findings) - len(got)
    assert repeats > 10_000  # the repeats were there to drop


def test_none_and_zero_lines_sort_alike_and_stay_apart():
    a, b = Diagnostic(file="f", line=None, code="X"), Diagnostic(file="f", line=0, code="X")
    assert sorted_unique([b, a, b, a]) == [b, a]

"""The text report written with its lines' test inline and each hint's line made once, against the loop
it replaced (seeded random findings: control characters, workflow commands, shared and repeated hints)."""

from __future__ import annotations

import random

from skillsift.diagnostics import ERROR, Diagnostic
from skillsift.render.diagnostics import render_text, summary_line
from skillsift.render.sanitise import plain


def _render_text_before(diagnostics, *, checked=None) -> str:
    diagnostics = list(diagnostics)
    lines: list[str] = []
    current = None
    for i, diag in enumerate(diagnostics):
        if diag.file != current:
            if current is not None:
                lines.append("")
            current = diag.file
        suffix = "" if diag.severity == ERROR else f" ({diag.severity})"
        lines.append(plain(diag.render()) + suffix)
        following = diagnostics[i + 1] if i + 1 < len(diagnostics) else None
        shared = (following is not None and following.hint == diag.hint and following.file == diag.file
                  and following.code == diag.code)
        if diag.hint and not shared:
            lines.append(f"    hint: {plain(diag.hint)}")
    if lines:
        lines.append("")
    lines.append(summary_line(diagnostics, checked))
    return "\n".join(lines) + "\n"


class _Own(Diagnostic):
    def render(self) -> str:
        return f"own {self.code}"


_TEXTS = ("", "plain", "::error::x", "  ::warning x", "a ##[group] b", "esc \x1b[31m", "new\nline", "bidi \u202e",
          "caf\u00e9", "tab\tx")


def _finding(rng: random.Random) -> Diagnostic:
    kind = _Own if rng.random() < 0.05 else Diagnostic
    return kind(file=rng.choice(("", "a/SKILL.md", "b/SKILL.md", "::x.md")), line=rng.choice((None, 0, 3, 12)),
                column=rng.choice((None, 0, 5)), code=rng.choice(("", "SK001", "SK002")),
                message=rng.choice(_TEXTS), severity=rng.choice(("error", "warning", "note")),
                hint=rng.choice(_TEXTS + ("h", "h")))


def test_text_report_is_the_loop_it_replaced():
    rng = random.Random(81)
    for _ in range(2_000):
        findings = sorted((_finding(rng) for _ in range(rng.randint(0, 14))), key=lambda d: d.file)
        checked = rng.choice((None, 0, 3))
        assert render_text(findings, checked=checked) == _render_text_before(findings, checked=checked)

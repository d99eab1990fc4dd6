"""What ``skillsift explain CODE`` prints: a check's registry entry and its documentation.

The documentation of a check is written once, in its declaration (``check(..., details=...)``
beside its code); :func:`skillsift.validators.declared.details` finds it, importing only that
check's module.  docs/checks.md is generated from the same text.
"""

from __future__ import annotations

import textwrap

from .declared import details, preset_words


def explain(check) -> str:
    """The text ``skillsift explain`` prints for one check."""
    docs = details(check)
    parts = [
        f"{check.code} {check.name}",
        f"  default severity: {check.severity} (change it with [validate.severity] {check.code} = \"...\")",
        f"  preset: {preset_words(check)}",
        f"  scope: {check.scope}; runs on: {check.files}",
        f"  checks that {check.summary}",
    ]
    if docs:
        parts.append("")
        parts.extend(textwrap.wrap(docs, width=96, initial_indent="  ", subsequent_indent="  "))
    parts.append("")
    parts.append(f"  silence it: [validate] ignore = [\"{check.code}\"], --ignore {check.code}, or in a SKILL.md "
                 f"<!-- skillsift: ignore {check.code} -- why -->")
    parts.append("  more: docs/checks.md and docs/validate.md, \"The checks\"")
    return "\n".join(parts) + "\n"

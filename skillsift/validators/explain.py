"""What ``skillsift explain CODE`` prints: a check's registry entry and its documentation.

The documentation of a rule is written once, next to its code: the bullet of the check
module's docstring that starts with the code (``* SK304 ...``).  This module only finds it.
"""

from __future__ import annotations

import importlib
import re


def rule_docs(check) -> str:
    """The docstring bullet of ``check``'s module that describes it ("" when the module has none)."""
    module = importlib.import_module(f"skillsift.validators.{check.module}")
    doc = module.__doc__ or ""
    lines = doc.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if re.match(r"^\* (?:[A-Z]{2}[0-9A-Z]+[, -]+)*" + re.escape(check.code) + r"\b", line):
            out.append(line[2:].strip())
            for more in lines[i + 1:]:
                if not more.startswith("  ") or not more.strip():
                    break
                out.append(more.strip())
            break
    return " ".join(out)


def explain(check) -> str:
    """The text ``skillsift explain`` prints for one check."""
    docs = rule_docs(check)
    parts = [
        f"{check.code} {check.name}",
        f"  default severity: {check.severity} (change it with [validate.severity] {check.code} = \"...\")",
        f"  scope: {check.scope}; runs on: {check.files}",
        f"  checks that {check.summary}",
    ]
    if docs:
        import textwrap

        parts.append("")
        parts.extend(textwrap.wrap(docs, width=96, initial_indent="  ", subsequent_indent="  "))
    parts.append("")
    parts.append(f"  silence it: [validate] ignore = [\"{check.code}\"], --ignore {check.code}, or in a SKILL.md "
                 f"<!-- skillsift: ignore {check.code} -- why -->")
    parts.append("  more: docs/validate.md, \"The checks\"")
    return "\n".join(parts) + "\n"

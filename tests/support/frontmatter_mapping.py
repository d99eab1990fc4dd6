"""Frontmatter YAML that must be a mapping, read the way the catalog reads it, for the tests that
pin ``read_yaml`` and ``not_a_mapping`` together."""

from __future__ import annotations

from skillsift.catalog.frontmatter import not_a_mapping, read_yaml
from skillsift.diagnostics import Diagnostic


def parse_yaml_mapping(
    raw: str, *, file: str = "", first_line: int = 1
) -> tuple[dict | None, list[Diagnostic]]:
    """Read frontmatter YAML that must be a mapping, as the catalog does (read_yaml, then not_a_mapping).

    Returns ``(mapping, [])``; a blank or null document gives ``({}, [])``.  A YAML error, a
    document that is not a mapping (a list, a string, a number) or a hostile document gives
    ``(None, [diagnostic])`` with code SK001, the file line (``first_line`` is the file line
    of the first line of ``raw``) and column.  Never raises.
    """
    doc = read_yaml(raw, file=file, first_line=first_line)
    if doc.diagnostics:
        return None, list(doc.diagnostics)
    if doc.value is None:
        return {}, []
    if not isinstance(doc.value, dict):
        return None, [not_a_mapping(doc.value, file=file, line=first_line)]
    return doc.value, []

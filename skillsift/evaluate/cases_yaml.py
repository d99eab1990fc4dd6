"""Write cases as a cases file that :func:`skillsift.evaluate.cases.parse_cases` reads back.

Layout: ``version: 1``, ``k`` only when set, then ``cases`` indented by two spaces.  An
expected skill is its plain name unless it is graded (``{grade: 3, id: name}``); empty
fields are left out, except ``expect: []`` on a negative case, so that it reads as one.
Strings are quoted whenever a plain scalar would read as something else.  A string holding a
control character (C0 but tab, DEL, C1), a bidi control, a line or paragraph separator or a
byte-order mark (a mined query can hold anything an agent typed) is written double-quoted with
each such character as a ``\\uXXXX`` escape: the file holds none of them raw, and reads back to
the same string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Characters never written raw: C0 but tab and line feed, DEL, C1, bidi controls, U+2028/9, BOM.
RISKY = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                   "\u2066-\u2069\ufeff]")


def _dumper():
    import yaml

    class IndentedDumper(yaml.SafeDumper):
        """Indents a list under its key (``cases:\\n  - id: ...``)."""

        def increase_indent(self, flow=False, indentless=False):
            return super().increase_indent(flow, False)

    def _str(dumper, value):
        style = '"' if RISKY.search(value) or "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    IndentedDumper.add_representer(str, _str)
    return IndentedDumper


def _escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04X}"


def case_to_dict(case) -> dict:
    """One case as a plain mapping, keys in the order the cases format documents."""
    out: dict = {"id": case.id, "query": case.query}
    expect = [{"grade": e.grade, "id": e.id} if e.graded else e.id for e in case.expect]
    out["expect"] = expect
    if case.avoid:
        out["avoid"] = list(case.avoid)
    if case.role:
        out["role"] = case.role
    if case.tags:
        out["tags"] = list(case.tags)
    return out


def cases_to_yaml(cases: Iterable, k: int = 0, *, header: str = "") -> str:
    """The text of a cases file holding ``cases`` (``k`` written when > 0).

    ``header`` lines are written first as ``#`` comments.
    """
    import yaml

    doc: dict = {"version": 1}
    if k > 0:
        doc["k"] = k
    doc["cases"] = [case_to_dict(c) for c in cases]
    text = yaml.dump(doc, Dumper=_dumper(), sort_keys=False, allow_unicode=True, default_flow_style=False,
                     indent=2, width=4096)
    # risky characters stand only inside double-quoted scalars (the representer), where an escape reads back
    text = RISKY.sub(_escape, text)
    lines = [RISKY.sub("?", f"# {line}".rstrip()) for line in header.splitlines()]
    return "".join(line + "\n" for line in lines) + text

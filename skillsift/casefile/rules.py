"""The rules of a cases file (docs/evaluation.md, "The cases file"), declared once as data.

:mod:`.parse` applies :data:`CASES` with the one interpreter (:mod:`skillsift.docschema`) to the
plain tree of the YAML, then checks what a table cannot say (a duplicate id, a skill both
expected and avoided...) while it builds the cases; ``skillsift/schemas/cases.v1.json`` is
generated from the same table.
"""

from __future__ import annotations

from ..docschema import Rule, quoted, text_of

DEFAULT_K = 5
MAX_K = 100
MAX_CASES = 10_000
MAX_QUERY_BYTES = 4096
MAX_EXPECTED = 50
MAX_GRADE = 9
TOP_KEYS = ("version", "k", "cases")
CASE_KEYS = ("id", "query", "expect", "avoid", "role", "tags")


def case_label(value, index: int, _list_label: str = "") -> str:
    """``case "<id>"`` when the case has a non-empty scalar id, else ``case <index>``."""
    case_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(case_id, (str, int)) and not isinstance(case_id, bool) and text_of(case_id) != "":
        return f"case {quoted(text_of(case_id))}"
    return f"case {index}"


def _text(name: str, doc: str = "", **more) -> Rule:
    return Rule("text", nullable=True, doc=doc, messages={"kind": "{where}: " + name + " must be a string"},
                **more)


_NAME = {"pattern": r"\S"}  # a name or query: not blank (checked while the cases are built)


_SKILL = Rule("text", nonblank=True, doc="A skill's catalog name.",
              messages={"kind": "{where}: an avoid entry is a skill name"})
_EXPECT_ENTRY = Rule(
    "either", same_label=True, nullable=True, schema_null=False,
    messages={"kind": "{label}: an expect entry is a skill name or {{id, grade}}"},
    options=(
        Rule("text", doc="A skill name (grade 1, ungraded).", schema=_NAME),
        Rule("table", strict=True, unknown="first", doc="A graded skill.", schema={"required": ["id"]},
             messages={"unknown": "{where}: unknown key {qkey} in an expect entry (want id and grade)"},
             keys={"id": Rule("text", nullable=True, schema_null=False, schema=_NAME,
                              messages={"kind": "{where}: the id of an expect entry must be a skill name"}),
                   "grade": Rule("int", messages={"kind": "{where}: grade {shown} is not an integer"},
                                 doc=f"1-{MAX_GRADE}; any grade makes the case graded (nDCG).",
                                 schema={"minimum": 1, "maximum": MAX_GRADE})}),
    ))
CASE = Rule(
    "table", unknown="first", label=case_label, doc="One labelled query.",
    messages={"kind": "{label}: a case is a mapping with id, query and expect",
              "unknown": "{label}: unknown key {qkey} (want " + ", ".join(CASE_KEYS) + ")"},
    schema={"required": ["id", "query"]},
    keys={
        "id": _text("id", "Unique within the file.", schema_null=False, schema=_NAME),
        "query": _text("query", f"The query, at most {MAX_QUERY_BYTES} bytes.", schema_null=False,
                       schema={**_NAME, "type": ["string", "boolean"], "maxLength": MAX_QUERY_BYTES}),
        "expect": Rule("list", nullable=True, entries="indexed", max_items=MAX_EXPECTED, items=_EXPECT_ENTRY,
                       doc="The relevant skills; none makes a negative case.", same_label=True,
                       messages={"kind": "{where}: expect must be a list",
                                 "many": "{label}: more than " + str(MAX_EXPECTED) + " expected skills"}),
        "avoid": Rule("list", nullable=True, entries="indexed", items=_SKILL, same_label=True,
                      doc="Skills that must not rank first.", messages={"kind": "{where}: avoid must be a list"}),
        "role": _text("role", "Rank only the skills this role serves."),
        "tags": Rule("list", nullable=True, entries="indexed", same_label=True, doc="Metrics are also per tag.",
                     items=Rule("text", messages={"kind": "{where}: a tag is a string"}),
                     messages={"kind": "{where}: tags must be a list"}),
    })
_VERSION = "version must be 1 (got {got})"
CASES = Rule(
    "table", unknown="first", nullable=True, schema_null=False,
    doc="A skillsift cases file: labelled queries (docs/evaluation.md).",
    messages={"kind": "the cases file must be a mapping with version, k and cases",
              "unknown": "unknown key {qkey} (want version, k and cases)"},
    keys={
        "version": Rule("int", nullable=True, schema_null=False, required=True, low=1, high=1, between=True,
                        doc="Must be 1.",
                        messages={"kind": _VERSION, "between": "version must be 1 (got {value})",
                                  "required": "version must be 1 (got 0)"}),
        "k": Rule("int", nullable=True, low=0, high=MAX_K, between=True, default=0,
                  doc=f"Cut-off of recall@k, hit@k and nDCG@k (0 or absent: {DEFAULT_K}).",
                  messages={"kind": f"k must be between 1 and {MAX_K} (got {{got}})",
                            "between": f"k must be between 1 and {MAX_K}"}),
        "cases": Rule("list", nullable=True, schema_null=False, required=True, min_items=1, max_items=MAX_CASES,
                      entries="indexed",
                      items=CASE, doc=f"At most {MAX_CASES} cases.",
                      messages={"kind": "cases must be a list of cases", "required": "cases is empty",
                                "few": "cases is empty", "many": f"more than {MAX_CASES} cases"}),
    })

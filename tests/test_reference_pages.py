"""The reference pages written from the code's tables (docs/config-keys.md, docs/hooks-reference.md).

Their freshness is :func:`tests.validators.test_declared.test_the_generated_files_are_fresh`; here,
that they hold every key and every hook, and that the walk over a rule table names nested, free
and list-of-table keys as a person writes them.
"""

from __future__ import annotations

import re

from skillsift.config.tables import _TABLES, PROJECT_TABLES, USER_TABLES
from skillsift.docschema import Rule
from skillsift.hooks.specs import HOOK_SPECS
from tests.reference_pages import config_reference, hooks_reference, key_rows, type_words, values_words


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_table_and_every_key_has_its_row():
    sections = _sections(config_reference())
    assert len(sections) == len(PROJECT_TABLES)
    for name in PROJECT_TABLES:
        rule = _TABLES[name]
        section = sections[f"`[[{name}]]`" if rule.kind == "list" else f"`[{name}]`"]
        rows = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
        assert rows == [path for path, _sub, _doc in key_rows(rule.items if rule.kind == "list" else rule)]
        assert rows, name
        where = "the user config" if name in USER_TABLES else "the project config only"
        assert where in section


def test_a_row_holds_the_default_the_range_and_the_doc_of_its_rule():
    section = _sections(config_reference())["`[search]`"]
    rule = _TABLES["search"].keys["body_chars"]
    assert (f"| `body_chars` | integer | `{rule.default}` | 0 to {int(rule.high)} | {rule.doc} |"
            in section.splitlines())


def test_the_walk_names_nested_free_and_list_keys():
    inner = Rule("int", low=0, high=9, doc="a number")
    table = Rule("table", doc="outer", keys={
        "plain": Rule("bool", default=True, doc="a flag"),
        "nested": Rule("table", keys={"deep": inner}),
        "free": Rule("table", doc="any key", values=Rule("choice", choices=("a", "b"))),
        "entries": Rule("list", items=Rule("table", keys={"name": Rule("string", required=True)})),
    })
    rows = [(path, doc) for path, _rule, doc in key_rows(table)]
    assert rows == [("plain", "a flag"), ("nested.deep", "a number"), ("free.<key>", "any key"),
                    ("entries[].name", "")]
    assert type_words(Rule("list", items=Rule("string"))) == "list of strings"
    assert type_words(Rule("list", one_or_list=True, items=Rule("string"))) == "string or list of strings"
    assert values_words(inner) == "0 to 9"
    assert values_words(Rule("string", schema={"enum": ["x", "y"]})) == "`x`, `y`"


def test_every_hook_has_its_section_with_what_pre_commit_is_told():
    sections = _sections(hooks_reference())
    assert list(sections) == [spec.id for spec in HOOK_SPECS]
    for spec in HOOK_SPECS:
        section = sections[spec.id]
        assert spec.description in section and f"- entry: `{spec.entry}`" in section
        assert (f"- files: `{spec.files}`" if spec.files else "- files: every file") in section
        assert f"always_run: {'yes' if spec.always_run else 'no'}" in section
        for code in spec.owns:
            assert code in section

"""The strict parse of a cases file against the parse it replaced (tests/support/cases_parse_reference.py:
message fields and case labels made for every node and case): the same cases with every line, and the
same problems, messages and lines, on seeded random files (valid, and with mistakes of every kind) and
on the repository's own cases and examples files; and the quick quoting of labels against JSON's."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from skillsift.casefile.parse import CaseFile, CasesInvalid, parse_cases
from skillsift.docschema import quoted
from tests.support import cases_parse_reference as reference
from tests.support.random_cases import random_cases_file

REPO = Path(__file__).resolve().parents[2]


def _outcome(parse, raw: bytes, what: str):
    try:
        return parse(raw, "f.yaml", what)
    except CasesInvalid as exc:
        return exc


def _assert_same(raw: bytes, what: str = "cases") -> object:
    got, want = _outcome(parse_cases, raw, what), _outcome(reference.parse_cases, raw, what)
    assert type(got) is type(want)
    if isinstance(want, CaseFile):
        assert got == want
    else:
        assert (got.message, got.problems, got.partial, got.diagnostics) == (
            want.message, want.problems, want.partial, want.diagnostics)
    return want


@pytest.mark.parametrize("seed", range(300))
def test_random_files_parse_as_before(seed):
    _assert_same(random_cases_file(random.Random(seed)), "examples" if seed % 2 else "cases")


def test_the_random_files_hold_problems_of_many_kinds():
    messages = set()
    valid = 0
    for seed in range(300):
        found = _outcome(parse_cases, random_cases_file(random.Random(seed)), "cases")
        if isinstance(found, CaseFile):
            valid += 1
        else:
            messages |= {message.split(": ")[-1][:24] for _line, message in found.problems}
    assert valid > 30 and len(messages) > 20


@pytest.mark.parametrize("name", ["examples/acme/search-examples.yaml", "examples/acme/search-cases.yaml",
                                  "examples/sources/search-cases.yaml"])
def test_the_repositorys_files_parse_as_before(name):
    assert isinstance(_assert_same((REPO / name).read_bytes(), "examples"), CaseFile)


def test_every_kind_of_rule_problem_parses_as_before():
    texts = ["", "[]", "version: 1", "version: [1]\nk: {a: 1}\ncases: {}", "version: 1\nk: 101\ncases: []",
             "version: 1\ncases:\n- id: a\n  query: q\n  expect: {a: 1}\n  avoid: x\n  tags: 1",
             "version: 1\ncases:\n- id: a\n  query: q\n  expect:\n  - {id: [x], grade: 2}\n  - {id: s, extra: 1}",
             "version: 1\ncases:\n- id: a\n  query: q\n  expect: [" + ", ".join(f"s{i}" for i in range(60)) + "]",
             "version: 1\ncases:\n- id: a\n  query: q\n  avoid: ['', [x], {a: 1}]\n  tags: [[x]]",
             "version: 1\ncases:\n- [a]\n- 12\n- id: '\"quoted\\\\'\n  query: q\n  unknown: 1\n  idd: 2",
             "version: 1\ncases:\n- {id: \"\\u00e9t\\u00e9 \\U0001F680\", query: q, role: [x]}"]
    for text in texts:
        _assert_same(text.encode())


def test_quoted_is_json():
    rng = random.Random(5)
    alphabet = [chr(c) for c in range(0, 0x250)] + ["\u2028", "\ud800", "\U0001F680", '"', "\\"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6)))
        assert quoted(text) == json.dumps(text, ensure_ascii=False)
    assert quoted(7) == '"7"' and quoted("") == '""'

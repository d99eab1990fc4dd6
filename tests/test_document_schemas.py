"""The shipped JSON Schemas of the files a user writes come from the validator's own rule tables.

* regenerating them from the tables gives the shipped bytes (they cannot drift);
* a differential test feeds the validator and ``jsonschema`` the same generated documents and
  asserts they agree on valid / invalid (hypothesis, derandomized).  Documents only vary what
  a schema can say: no duplicate case ids, no skill both expected and avoided, regexes that
  compile, ``index_dir`` inside the repository (those stay with the validator alone).
"""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsift.casefile.rules import CASES as CASES_RULE
from skillsift.config.schema import document_problems
from skillsift.config.tables import PROJECT, PROJECT_TABLES, USER, USER_TABLES
from skillsift.diagnostics import SkillsiftError
from skillsift.docschema import Rule
from skillsift.evaluate.cases import parse_cases
from skillsift.validators import CODES
from skillsift.validators.document_schemas import main, shipped

SETTINGS = settings(derandomize=True, max_examples=300, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _schema(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(resources.files("skillsift.schemas").joinpath(name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


CASES = _schema("cases.v1.json")
CONFIG = _schema("config.v1.json")
USER_CONFIG = _schema("user-config.v1.json")


def test_the_shipped_schemas_are_the_tables_regenerated():
    for name, text in shipped().items():
        assert resources.files("skillsift.schemas").joinpath(name).read_text(encoding="utf-8") == text, (
            f"{name} differs from its rule table: run python -m skillsift.validators.document_schemas")
    assert main(["--check"]) == 0


def test_a_changed_table_changes_the_schema():
    from skillsift.docschema.json_schema import schema_of

    assert schema_of(Rule("int", low=0, high=5)) == {"type": "integer", "minimum": 0, "maximum": 5}
    assert schema_of(Rule("int", low=0, high=6)) != schema_of(Rule("int", low=0, high=5))
    assert schema_of(Rule("choice", choices=("a", "b"))) == {"enum": ["a", "b", ""]}


# -- cases files ------------------------------------------------------------------------------------

_WORDS = st.sampled_from(["deploy", "refund-policy", "a b", "yes", "null", "007", "1.5", "~", "x: y", "-"])
_SCALAR = st.one_of(_WORDS, st.just(""), st.just("  "), st.integers(-3, 120), st.booleans(), st.none(),
                    st.floats(0.25, 50.5).filter(lambda f: not f.is_integer()))
_JUNK = st.one_of(_SCALAR, st.lists(_WORDS, max_size=2), st.dictionaries(_WORDS, _WORDS, max_size=2))


@st.composite
def _case(draw, index: int):
    case: dict = {}
    if draw(st.integers(0, 9)):
        case["id"] = draw(st.one_of(st.just(f"case-{index}"), st.just(index), st.just(""), st.just(" "),
                                    st.none(), st.lists(_WORDS, max_size=1)))
    if draw(st.integers(0, 9)):
        case["query"] = draw(st.one_of(_WORDS, _SCALAR, st.lists(_WORDS, max_size=1)))
    names = draw(st.lists(st.sampled_from(["s1", "s2", "s3", "s4"]), unique=True, max_size=3))
    if draw(st.booleans()):
        entries: list = []
        for name in names:
            entries.append(draw(st.one_of(
                st.just(name), st.just({"id": name}),
                st.builds(lambda g, n=name: {"id": n, "grade": g}, st.one_of(st.integers(-1, 12), _WORDS)),
                st.just({"id": name, "weight": 2}), st.just({"grade": 2}), st.just({"id": [name]}))))
        entries += draw(st.lists(st.one_of(st.none(), st.just(""), st.just([1])), max_size=1))
        case["expect"] = draw(st.one_of(st.just(entries), st.none(), st.just("s1"), st.just({"id": "s1"})))
    if draw(st.integers(0, 3)) == 0:
        case["avoid"] = draw(st.one_of(st.lists(st.one_of(st.sampled_from(["z1", "z2"]), st.just(""),
                                                          st.none(), st.just({"a": 1})), max_size=2), st.none(),
                                       st.just("z1")))
    if draw(st.integers(0, 3)) == 0:
        case["role"] = draw(_JUNK)
    if draw(st.integers(0, 3)) == 0:
        case["tags"] = draw(st.one_of(st.lists(_SCALAR, max_size=2), st.none(), st.just("t")))
    if draw(st.integers(0, 12)) == 0:
        case[draw(st.sampled_from(["qurey", "weight"]))] = 1
    return case


@st.composite
def _cases_document(draw):
    if draw(st.integers(0, 30)) == 0:
        return draw(st.one_of(st.none(), st.lists(_WORDS, max_size=2), _WORDS))
    doc: dict = {}
    if draw(st.integers(0, 9)):
        doc["version"] = draw(st.one_of(st.just(1), st.integers(-1, 3), st.none(), _WORDS))
    if draw(st.booleans()):
        doc["k"] = draw(st.one_of(st.integers(-2, 110), st.none(), _WORDS, st.just(7.5)))
    if draw(st.integers(0, 9)):
        count = draw(st.integers(0, 3))
        items = [draw(_case(i)) for i in range(count)]
        items += draw(st.lists(st.one_of(_WORDS, st.lists(_WORDS, max_size=1)), max_size=1))
        doc["cases"] = draw(st.one_of(st.just(items), st.just(items), st.none(), st.just({"id": "x"})))
    if draw(st.integers(0, 15)) == 0:
        doc["extra"] = 1
    return doc


def _validator_accepts_cases(text: str) -> bool:
    try:
        parse_cases(text, "c.yaml")
    except SkillsiftError:
        return False
    return True


@SETTINGS
@given(_cases_document())
def test_cases_validator_and_schema_agree(doc):
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    expected = CASES.is_valid(yaml.safe_load(text))
    assert _validator_accepts_cases(text) == expected, (text, [e.message for e in CASES.iter_errors(doc)])


GOOD_CASES = {"version": 1, "k": 3, "cases": [{"id": "a", "query": "q", "expect": [{"id": "s1", "grade": 2}, "s2"],
                                               "avoid": ["z1"], "role": "r", "tags": ["t"]}]}


def test_every_edge_of_the_cases_file_is_judged_alike():
    """Each node of the cases table, in an otherwise valid file, with each value at its edge."""
    seen = 0
    for path, sub, key in _leaf_paths(CASES_RULE):
        for value in (_near_values(sub, key) if sub is not None else [1]):
            text = yaml.safe_dump(_set(GOOD_CASES, path, value), sort_keys=False)
            assert _validator_accepts_cases(text) == CASES.is_valid(yaml.safe_load(text)), text
            seen += 1
    assert seen > 150 and _validator_accepts_cases(yaml.safe_dump(GOOD_CASES))


def test_the_differential_cases_see_both_answers():
    valid = "version: 1\ncases:\n  - id: a\n    query: q\n    expect: [s1, {id: s2, grade: 3}]\n"
    assert _validator_accepts_cases(valid) and CASES.is_valid(yaml.safe_load(valid))
    for bad in ("version: 1\ncases: []\n", "version: 2\ncases:\n  - {id: a, query: q}\n",
                "version: 1\ncases:\n  - {id: a, query: q, expect: [{id: s, grade: 10}]}\n",
                "version: 1\ncases:\n  - {id: ' ', query: q}\n"):
        assert not _validator_accepts_cases(bad) and not CASES.is_valid(yaml.safe_load(bad)), bad


# -- skillsift.toml and the user file ---------------------------------------------------------------

_NAMES = {"severity": ["SK007", "SK008"], "description_limits": ["codex", "claude-code", "mine"],
          "roles": ["billing", "platform"]}
_GOOD = {"index_dir": ["", ".skillsift/index", "build/index"], "min": ["", "top1=0.6", "top1=0.6,mrr=0.7"],
         "regex": ["ghp_[A-Za-z0-9]{36}", "tok-[0-9]+"], "code": sorted(CODES)[:3], "agent": ["codex", "claude-code"],
         "base_url": ["", "http://h", "https://h/v1"], "api_key_env": ["", "A_KEY"], "env": ["A", "B_2"],
         "program": ["prog", "a b"]}
_BAD = {"grade": [0, 1, 9, 10], "base_url": ["ftp://h", "h"], "api_key_env": ["A=B", " ", "a\x00"],
        "env": ["A=B", " ", ""],
        "program": [" ", ""], "agent": ["nobody"], "name": [" ", ""], "regex": [""], "skills": [" "]}
_WRONG = st.sampled_from([True, 3, -1, "x", [1], {"k": 1}, 0.5])


def _leaf(rule: Rule, key: str) -> str:
    """Which pool a key's values come from ("" = from its kind)."""
    return {"ignore": "code", "agents": "agent", "pass_env": "env", "command": "program"}.get(key, key)


def _good(rule: Rule, key: str = ""):
    """A value ``rule`` accepts."""
    pool = _leaf(rule, key)
    kind = rule.kind
    if kind == "table":
        return _good_table(rule, key)
    if kind == "list":
        item = st.sampled_from(_GOOD[pool]) if pool in _GOOD else _good(rule.items, key) if rule.items else st.just("x")
        return st.lists(item, max_size=3)
    if pool in _GOOD:
        return st.sampled_from(_GOOD[pool])
    if kind == "choice":
        return st.sampled_from(list(rule.choices) + ([""] if rule.empty_ok else []))
    if kind in ("string", "text"):
        return st.sampled_from(["x", "path/to", "Name"] + ([] if rule.nonblank else [""]))
    if kind == "bool":
        return st.booleans()
    low = 0 if rule.low is None else rule.low
    high = 1000 if rule.high is None else rule.high
    if kind == "int":
        return st.integers(int(low), int(high))
    return st.integers(int(low), int(high)) | st.floats(float(low), float(high))


# keys whose strings the validator reads further than a schema says (a metric spec, a path that must stay
# inside the repository, a regex that must compile, code prefixes, a command's first word): only their kinds
# are compared
_READ_FURTHER = {"min", "index_dir", "regex", "ignore", "command"}


def _near_values(rule: Rule, key: str = "") -> list:
    """Values at or past the edge of what ``rule`` accepts (some accepted, most not)."""
    if key in _READ_FURTHER:
        listed = [[3], ["SK008"]] if rule.kind == "list" else []
        return [True, 3, [1], {"k": 1}, 0.5] + listed + _GOOD.get(_leaf(rule, key), [])
    pool = _leaf(rule, key)
    kind = rule.kind
    out: list = [True, 3, -1, "x", [1], {"k": 1}, 0.5]
    if kind == "list":
        bad = _BAD.get(pool) or (_near_values(rule.items, key) if rule.items else [])
        out += [[value] for value in bad] + [["x", value] for value in bad[:2]] + [[]]
    elif pool in _BAD:
        out += _BAD[pool]
    if kind == "choice":
        out += ["", "bogus", "LEXICAL"] + list(rule.choices[:1])
    if kind in ("string", "text"):
        out += ["", " "]
    if kind in ("int", "number") and rule.high is not None:
        low = 0 if rule.low is None else rule.low
        out += [low - 1, low, rule.high, rule.high + 1]
        if kind == "number":
            out += [low - 0.5, rule.high + 0.5, rule.high - 0.5]
    return out


def _leaf_paths(rule: Rule, path: tuple = (), key: str = "") -> list[tuple[tuple, Rule | None, str]]:
    """(path, rule, key) of every node of ``rule`` a document can hold, an unknown key in each table."""
    if rule.kind == "list" and rule.items is not None and rule.entries == "indexed":
        items = rule.items
        tables = [o for o in items.options if o.kind == "table"] if items.kind == "either" else [items]
        inner = [p for t in tables if t.kind == "table" for p in _leaf_paths(t, path + (0,), key)]
        return [(path, rule, key), (path + (0,), items, key)] + [p for p in inner if p[0] != path + (0,)]
    if rule.kind != "table":
        return [(path, rule, key)]
    out: list = [(path, rule, key)] if path else []
    for name, sub in (rule.keys or {}).items():
        out += _leaf_paths(sub, path + (name,), name)
    if rule.values is not None:
        name = _NAMES.get(key, ["x1"])[0]
        out += _leaf_paths(rule.values, path + (name,), "")
    else:
        out.append((path + ("modee",), None, "modee"))
    return out


def _good_table(rule: Rule, key: str = ""):
    keys = rule.keys or {}

    @st.composite
    def build(draw):
        out = {}
        for name, sub in keys.items():
            if sub.required or draw(st.booleans()):
                out[name] = draw(_good(sub, name))
        if rule.values is not None:
            for name in draw(st.lists(st.sampled_from(_NAMES.get(key, ["x1", "x2"])), unique=True, max_size=2)):
                out[name] = draw(_good(rule.values, name if key == "secrets" else ""))
        return out

    return build()


def _set(doc, path: tuple, value):
    """A copy of ``doc`` with ``value`` at ``path`` (tables on the way made or replaced)."""
    if isinstance(path[0], int):
        out_list = list(doc) if isinstance(doc, list) and doc else [{}]
        out_list[0] = value if len(path) == 1 else _set(out_list[0] if isinstance(out_list[0], dict) else {},
                                                        path[1:], value)
        return out_list
    out = dict(doc)
    if len(path) == 1:
        out[path[0]] = value
        return out
    inner = out.get(path[0])
    out[path[0]] = _set(inner if isinstance(inner, (dict, list)) else {}, path[1:], value)
    return out


@st.composite
def _config(draw, rule: Rule):
    """A document ``rule`` accepts, then (mostly) one value at or past an edge, anywhere in it."""
    doc = draw(_good_table(rule))
    if draw(st.integers(0, 4)) == 0:
        return doc
    path, sub, key = draw(st.sampled_from(_leaf_paths(rule)))
    value = draw(st.sampled_from(_near_values(sub, key))) if sub is not None else 1
    return _set(doc, path, value)


def _validator_accepts_config(doc, tables) -> bool:
    return document_problems(doc, tables) == []


@SETTINGS
@given(_config(PROJECT))
def test_config_validator_and_schema_agree(doc):
    assert _validator_accepts_config(doc, PROJECT_TABLES) == CONFIG.is_valid(doc), (
        doc, document_problems(doc, PROJECT_TABLES), [e.message for e in CONFIG.iter_errors(doc)])


@settings(derandomize=True, max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_config(USER))
def test_user_config_validator_and_schema_agree(doc):
    assert _validator_accepts_config(doc, USER_TABLES) == USER_CONFIG.is_valid(doc), (
        doc, document_problems(doc, USER_TABLES))


def test_every_edge_of_every_key_is_judged_alike():
    """Each node of the tables, alone in a document, with each value at its edge: both say the same."""
    for rule, schema, tables in ((PROJECT, CONFIG, PROJECT_TABLES), (USER, USER_CONFIG, USER_TABLES)):
        seen = 0
        for path, sub, key in _leaf_paths(rule):
            for value in (_near_values(sub, key) if sub is not None else [1]):
                doc = _set({}, path, value)
                assert _validator_accepts_config(doc, tables) == schema.is_valid(doc), (
                    doc, document_problems(doc, tables), [e.message for e in schema.iter_errors(doc)])
                seen += 1
        assert seen > 300


def test_the_differential_config_sees_both_answers():
    good = {"search": {"mode": "hybrid", "weights": {"lexical": 2}}, "validate": {"k": 5, "agents": ["codex"]},
            "roles": {"billing": {"skills": ["issue-*"]}}}
    assert _validator_accepts_config(good, PROJECT_TABLES) and CONFIG.is_valid(good)
    for bad in ({"search": {"weights": {"lexical": -1}}}, {"validate": {"severity": {"SK007": "loud"}}},
                {"roles": {"billing": {}}}, {"embeddings": {"pass_env": ["A=B"]}}, {"search": {"modee": 1}}):
        assert not _validator_accepts_config(bad, PROJECT_TABLES) and not CONFIG.is_valid(bad), bad


def test_the_examples_file_schema_is_the_cases_file_schema():
    """An examples file has the cases-file format: one table, two names (docs/evaluation.md)."""
    examples = json.loads(resources.files("skillsift.schemas").joinpath("examples.v1.json").read_text("utf-8"))
    cases = json.loads(resources.files("skillsift.schemas").joinpath("cases.v1.json").read_text("utf-8"))
    assert examples["$id"].endswith("/examples.v1.json") and "examples file" in examples["title"]
    same = {k: v for k, v in examples.items() if k not in ("$id", "title")}
    assert same == {k: v for k, v in cases.items() if k not in ("$id", "title")}
    from pathlib import Path

    acme = Path(__file__).resolve().parent.parent / "examples" / "acme" / "search-examples.yaml"
    validator = _schema("examples.v1.json")
    assert validator.is_valid(yaml.safe_load(acme.read_text(encoding="utf-8")))
    assert not validator.is_valid({"version": 1, "cases": [{"id": "a", "query": 404, "expect": ["x"]}]})

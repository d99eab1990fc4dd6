"""The simple-frontmatter fast path builds exactly what the YAML loader builds."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.catalog.frontmatter import _loader_class, _resolvers, _simple_mapping, read_yaml, split_frontmatter
from tests.conftest import corpora

LOADER = _loader_class()


def reference(raw: str):
    try:
        return yaml.load(raw, Loader=LOADER)
    except yaml.YAMLError:
        return "error"


@pytest.mark.parametrize(
    "raw",
    [
        "name: deploy\ndescription: Ship it\n",
        'name: "quoted"\ndescription: \'single\'\n',
        "name: x\ntags: [a, b c, d]\n",
        "name: x\ntags: []\n",
        "name: x\ntriggers:\n  - go live\n  - ship\n",
        "name: x\ntriggers:\n- go live\n- ship\n",
        "name: x\nmetadata:\n  author: me\n  requires: [rube]\n",
        "name: -21risk-automation\n",
        "# comment\nname: x\n\ndescription: y\n",
        'name: x\ntriggers: ["deploy to production", "release: now", \'b c\', ""]\n',
        'name: x\nmetadata:\n  requires: [ "a" , b ]\n',
        "name: x\nversion: 2.0\n",  # a float
        "name: x\nenabled: true\n",  # a bool
        "name: x\nempty: null\n",
        "name: x\nempty:\nnext: 1\n",
        "name: x\ndescription: >-\n  folded\n  text\n",
        "name: x\ndescription: |\n  literal\n\n  text\n",
        'name: "esc\\"aped \\u00e9"\n',
        "name: x\nrequires:\n  mcp:\n    - rube\n  n: 0x1f\n",
        "name: x\ndescription: one\n  continued\n",
        "name: x\ntags: [a, [b]]\n",
        'name: x\ntags: ["a\\"b"]\n',  # an escape
        'name: x\ntags: ["a,b"]\n',  # a comma inside quotes
        "name: x\ntags: ['it''s']\n",
        'name: x\nmeta: {"a":{"b":["c", 1]}, d: e}\n',
        "name: x\nhooks:\n  - matcher: Bash\n    hooks:\n      - type: command\n",
        "name: x\ndescription: 'one\n\n  two\n  '\n",
    ],
)
def test_simple_forms_take_the_fast_path_and_match(raw):
    fast = _simple_mapping(raw, LOADER)
    assert fast is not None
    assert fast == reference(raw)
    assert _simple_mapping(raw) == fast and read_yaml(raw).value == fast  # without PyYAML: the same


def test_the_resolvers_without_pyyaml_are_the_loaders():
    """``_resolvers()`` (what simple frontmatter is read with before PyYAML is imported) is the loader's table."""
    def table(resolvers):
        return {ch: [(tag, regexp.pattern) for tag, regexp in entries] for ch, entries in resolvers.items()}

    assert table(_resolvers()) == table(LOADER.yaml_implicit_resolvers)
    assert len(_resolvers()) > 20


def test_reading_simple_frontmatter_does_not_import_pyyaml():
    code = ("import sys\nfrom skillsift.catalog.frontmatter import read_yaml\n"
            "doc = read_yaml('name: deploy\\ndescription: Ship it\\ntags: [a, b]\\n')\n"
            "print(doc.value, 'yaml' in sys.modules)\n"
            "doc = read_yaml('name: x\\nversion: 2.0\\n')\n"
            "print(doc.value, 'yaml' in sys.modules)\n"
            "doc = read_yaml('name: x\\nmeta: &a b\\n')\n"
            "print(doc.value, 'yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["{'name': 'deploy', 'description': 'Ship it', 'tags': ['a', 'b']} False",
                                "{'name': 'x', 'version': 2.0} False",
                                "{'name': 'x', 'meta': 'b'} True"]


@pytest.mark.parametrize(
    "raw",
    [
        "name: x  # comment\n",
        "name: &anchor x\nother: *anchor\n",
        "name: x\nkey: a: b\n",
        "? complex\n: key\n",
        "name: x\ntriggers:\n  - a\n  nested: b\n",
        'name: x\ntags: ["a" "b"]\n',
        'name: x\ntags: ["a\tb"]\n',
        'name: x\ntags: ["a",]\n',
    ],
)
def test_everything_else_goes_to_the_loader(raw):
    assert _simple_mapping(raw, LOADER) is None
    assert read_yaml(raw).value == (reference(raw) if reference(raw) != "error" else None)


_word = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=12)
_line = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True), _word),
    st.builds(lambda v: f"  - {v}", _word),
    st.builds(lambda k, v: f"  {k}: {v}", st.from_regex(r"[a-z]{1,5}", fullmatch=True), _word),
    st.builds(lambda k, vs: f"{k}: [{', '.join(vs)}]", st.from_regex(r"[a-z]{1,5}", fullmatch=True),
              st.lists(_word, max_size=4)),
    st.builds(lambda k, vs, q: f"{k}: [{', '.join(q + v + q for v in vs)}]",
              st.from_regex(r"[a-z]{1,5}", fullmatch=True), st.lists(_word, max_size=4), st.sampled_from(['"', "'"])),
    st.builds(lambda k: f"{k}:", st.from_regex(r"[a-z]{1,5}", fullmatch=True)),
    st.just("# note"),
    st.just(""),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_line, max_size=8))
def test_fast_path_never_disagrees_with_the_loader(lines):
    raw = "\n".join(lines) + "\n"
    fast = _simple_mapping(raw, LOADER)
    if fast is not None:
        assert fast == reference(raw)


@pytest.mark.slow  # the whole corpus of real skills
def test_fast_path_agrees_on_the_real_corpus():
    files = sorted(corpora().glob("*/*/SKILL.md"))
    taken = 0
    for path in files:
        raw = split_frontmatter(path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")).raw
        fast = _simple_mapping(raw, LOADER)
        assert _simple_mapping(raw) == fast, path  # the resolvers without PyYAML decide alike
        expected = reference(raw)
        assert read_yaml(raw).value == (None if expected == "error" else expected), path
        if fast is not None:
            taken += 1
            assert fast == expected, path
    assert taken > len(files) // 2  # the fast path is the common case


@pytest.mark.parametrize("line", ["a: [\xa0]", "a: [ \xa0x ]", "a: [x\u2003, y]"])
def test_flow_list_keeps_non_yaml_white_space(line):
    """Only the space is YAML's white space in a flow list: U+00A0 and U+2003 are content."""
    raw = line + "\n"
    fast = _simple_mapping(raw, LOADER)
    assert fast is None or fast == reference(raw)

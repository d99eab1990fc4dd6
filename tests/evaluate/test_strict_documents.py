"""Every cases and examples file is read by one strict, bounded reader (docs/evaluation.md, "Strict YAML").

Each hostile document is written as the examples file of a project whose index holds known
requests, then given to the real CLI: ``validate`` and ``hook cases`` report it (AR9D2, file
and line, text and JSON), ``search`` ranks without it and says why (stderr and the
``examples_problem`` key of search.v1), ``eval`` refuses to run.  The same text as a cases file
is refused with the same lines.
"""

from __future__ import annotations

import json
import os

import jsonschema
import pytest

from skillsift.casefile.parse import parse_cases
from skillsift.diagnostics import SkillsiftError
from skillsift.docschema.yaml_nodes import MAX_ALIAS_NODES, compose, tree
from tests.conftest import write_skill
from tests.support.cli import load_schema, run, set_user_config
from tests.support.concept_embedder import user_config

GOOD = 'version: 1\ncases:\n  - id: k\n    query: "bank dispute"\n    expect: [git-workflow]\n'
CASES = ("version: 1\ncases:\n  - id: refund\n    query: reimburse a returned purchase\n    expect: [issue-refund]\n"
         "  - id: dispute\n    query: bank dispute\n    expect: [dispute-charge]\n")


def _laughs(width: int = 9, levels: int = 9, flow: str = "list") -> str:
    """Aliases of aliases: ``width ** levels`` nodes once expanded, a few hundred bytes written."""
    lines = ["version: 1", 'l0: &l0 "lol"']
    for n in range(1, levels):
        refs = ", ".join(f"*l{n - 1}" for _ in range(width))
        lines.append(f"l{n}: &l{n} [{refs}]" if flow == "list" else
                     f"l{n}: &l{n} {{{', '.join(f'k{i}: *l{n - 1}' for i in range(width))}}}")
    lines += ["cases:", "  - id: a", "    query: refund", "    expect: [git-workflow]",
              f"    tags: *l{levels - 1}"]
    return "\n".join(lines) + "\n"


# (document, line of the first problem, words of its message)
HOSTILE = {
    "alias bomb": (_laughs(), 6, "aliases repeat more than 10000 nodes"),
    "billion laughs of mappings": (_laughs(10, 9, flow="map"), 6, "aliases repeat more than 10000 nodes"),
    "merge key": ("version: 1\nbase: &b {query: refund, expect: [git-workflow]}\ncases:\n  - <<: *b\n    id: a\n",
                  2, 'unknown key "base"'),
    "merge key alone": ("version: 1\ncases:\n  - id: a\n    query: refund\n    expect: [git-workflow]\n"
                        "    <<: {role: x}\n", 6, "merge key (<<) is not allowed"),
    "duplicate key": ("version: 1\ncases:\n  - id: a\n    query: refund\n    query: dispute\n"
                      "    expect: [git-workflow]\n", 5, 'mapping key "query" already defined at line 4'),
    "python tag": ("version: 1\ncases:\n  - id: a\n    query: !!python/object/apply:os.system [echo]\n"
                   "    expect: [git-workflow]\n", 4, "the tag !!python/object/apply:os.system is not allowed"),
    "custom tag": ("version: 1\ncases:\n  - id: a\n    query: !secret refund\n    expect: [git-workflow]\n",
                   4, "the tag !secret is not allowed"),
    "str tag": ("version: 1\ncases: !!seq\n  - id: a\n    query: refund\n    expect: [git-workflow]\n",
                2, "the tag !!seq is not allowed"),
    "deep flow nesting": ("version: 1\ncases: " + "[" * 3000 + "]" * 3000 + "\n", 2, "nesting depth"),
    "deep block nesting": ("version: 1\ncases:\n  - id: a\n    query: refund\n    expect: [git-workflow]\n"
                           "    tags: [[[[[[[[[[x]]]]]]]]]]\n", 6, "nested deeper than 8 levels"),
    "huge query": ("version: 1\ncases:\n  - id: a\n    query: " + "refund " * 150_000 + "\n"
                   "    expect: [git-workflow]\n", 4, "query is longer than 4096 bytes"),
    "null query": ("version: 1\ncases:\n  - id: a\n    query: null\n    expect: [git-workflow]\n", 4,
                   "query is required"),
    "numeric query": ("version: 1\ncases:\n  - id: a\n    query: 404\n    expect: [git-workflow]\n", 4,
                      'query is a number, not text; quote it ("404")'),
    "float query": ("version: 1\ncases:\n  - id: a\n    query: 3.14\n    expect: [git-workflow]\n", 4,
                    "query is a number"),
    "list query": ("version: 1\ncases:\n  - id: a\n    query: [refund]\n    expect: [git-workflow]\n", 4,
                   "query must be a string"),
    "duplicate ids": ("version: 1\ncases:\n  - id: a\n    query: refund\n    expect: [git-workflow]\n"
                      "  - id: a\n    query: dispute\n    expect: [issue-refund]\n", 6, "duplicate id"),
    "not UTF-8": (b"version: 1\ncases:\n  - id: a\n    query: caf\xe9\n    expect: [git-workflow]\n", 4,
                  "not UTF-8"),
    "unknown skill": ("version: 1\ncases:\n  - id: a\n    query: refund\n    expect: [git-workflw]\n", 5,
                      'unknown skill "git-workflw"'),
    "query without words": ("version: 1\ncases:\n  - id: a\n    query: '?!'\n    expect: [git-workflow]\n", 3,
                            "the query has no words"),
    "not a mapping": ("- just\n- a list\n", 1, "must be a mapping"),
    "NUL byte": (b"version: 1\ncases:\n  - id: a\n    query: ref\x00und\n    expect: [git-workflow]\n", 4,
                 "unacceptable character #x0000"),
    "terminal escape": ('version: 1\ncases:\n  - id: a\n    query: "\x1b[2Jrefund"\n    expect: [git-workflow]\n', 4,
                        "unacceptable character #x001b"),
    "two documents": ("version: 1\ncases: []\n---\nversion: 1\n", 3, "expected a single document"),
    "self-including alias": ("version: 1\ncases: &c\n  - id: a\n    query: refund\n    expect: [git-workflow]\n"
                             "    tags: *c\n", 6, "a tag is a string"),
}


@pytest.fixture
def project(tmp_path, capsys):
    """Three skills, vector search with known requests, an index holding the request of known.yaml."""
    root = tmp_path / "proj"
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    (root / "skillsift.toml").write_text('[search]\nmode = "vector"\nexamples = ["known.yaml"]\n'
                                         "example_weight = 1.0\n", encoding="utf-8")
    (root / "known.yaml").write_text(GOOD, encoding="utf-8")
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")
    set_user_config(user_config())
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    code, out, _err = run(capsys, "search", "bank dispute", "--root", root, "--format", "json")
    assert json.loads(out)["results"][0]["name"] == "git-workflow"  # the known request decides
    return root


def _write(path, text) -> None:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_examples_file_is_reported_and_never_used(project, capsys, name):
    text, line, words = HOSTILE[name]
    _write(project / "known.yaml", text)

    # validate: AR9D2 on the examples file, with the line, in text and JSON
    code, out, _err = run(capsys, "validate", "--root", project, "--format", "json")
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D2"]
    assert code == 1 and found, out
    assert {d["file"] for d in found} == {"known.yaml"}
    assert any(d["line"] == line and words in d["message"] for d in found), found
    code, out, _err = run(capsys, "validate", "--root", project)
    assert code == 1 and f"known.yaml:{line}: AR9D2" in out and words in out

    # the pre-commit hook that checks the cases files checks the examples files too
    code, out, _err = run(capsys, "hook", "cases", "--root", project, "--format", "json")
    assert code == 1 and any(d["file"] == "known.yaml" and d["line"] == line
                             for d in json.loads(out)["diagnostics"]), out
    code, out, _err = run(capsys, "hook", "cases", "--root", project)
    assert code == 1 and f"known.yaml:{line}: AR9D2" in out

    # search ranks without the file's requests and says so: stderr in text, a key in JSON
    code, out, err = run(capsys, "search", "bank dispute", "--root", project)
    assert code == 0 and "known requests of an invalid examples file are not used" in err
    assert "known.yaml: line " in err
    assert out.splitlines()[1].split()[2] == "dispute-charge"  # the skill's own text decides again
    code, out, err = run(capsys, "search", "bank dispute", "--root", project, "--format", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("search.v1.json"))
    assert code == 0 and doc["results"][0]["name"] == "dispute-charge"
    assert "known.yaml: line " in doc["examples_problem"]

    # an evaluation never runs without its known requests: every problem, with its line
    code, out, err = run(capsys, "eval", project / "cases.yaml", "--root", project, "--format", "json")
    assert code == 1 and "AR9D2" in err and "known.yaml" in err and f"line {line}:" in err

    # the same text as a cases file: the same rules, the same line (a cases query needs no words)
    if name == "query without words":
        return
    _write(project / "cases.yaml", text)
    code, out, err = run(capsys, "eval", project / "cases.yaml", "--root", project, "--mode", "lexical")
    assert code == 1 and f"line {line}:" in err and words in err


@pytest.mark.parametrize("kind", ["directory", "fifo", "dangling link"])
def test_no_file_where_the_examples_file_should_be(project, capsys, kind):
    target = project / "known.yaml"
    target.unlink()
    if kind == "directory":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(project / "gone.yaml")
    code, out, _err = run(capsys, "validate", "--root", project, "--format", "json")
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] in ("AR9D2", "AR9D0")]
    assert code != 0 and found and any("known.yaml" in d["message"] for d in found), out
    code, out, err = run(capsys, "search", "bank dispute", "--root", project, "--format", "json")
    if code == 0:  # ranked without them, and said so
        assert "known.yaml" in json.loads(out)["examples_problem"]
    else:
        assert "known.yaml" in err


def test_a_symlink_out_of_the_repository_is_refused(project, capsys, tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text(GOOD, encoding="utf-8")
    (project / "known.yaml").unlink()
    (project / "known.yaml").symlink_to(outside)
    for fmt in ("text", "json"):
        code, out, err = run(capsys, "validate", "--root", project, "--format", fmt)
        assert code != 0 and "known.yaml" in out + err and "outside the repository" in out + err
    code, _out, err = run(capsys, "search", "bank dispute", "--root", project)
    assert code != 0 and "outside the repository" in err


def test_an_alias_bomb_is_walked_within_the_budget():
    """The mechanism: a document's walk repeats at most MAX_ALIAS_NODES nodes, whatever the aliases."""
    for text in (_laughs(), _laughs(10, 9, flow="map"), _laughs(2, 60)):
        walked = tree(compose(text))
        assert walked.aliased <= MAX_ALIAS_NODES + 1
        assert any("aliases repeat more than" in message for _path, _line, message in walked.refused)
    # a few aliases within the budget are plain data
    ok = ("version: 1\nx-skills: &s [git-workflow]\ncases:\n  - id: a\n    query: refund\n    expect: *s\n")
    with pytest.raises(SkillsiftError, match='unknown key "x-skills"'):  # the key is unknown, the alias is fine
        parse_cases(ok)
    fine = "version: 1\ncases:\n  - &c {id: a, query: refund, expect: [git-workflow]}\n  - {id: b, query: *q}\n"
    with pytest.raises(SkillsiftError, match="undefined alias"):
        parse_cases(fine)


def test_search_and_find_skill_json_match_the_schema_without_a_problem(project, capsys):
    code, out, _err = run(capsys, "search", "bank dispute", "--root", project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and "examples_problem" not in doc
    jsonschema.validate(doc, load_schema("search.v1.json"))


def test_a_bad_file_is_left_out_and_a_good_one_still_counts(project, capsys):
    (project / "skillsift.toml").write_text('[search]\nmode = "vector"\nexamples = ["known.yaml", "more.yaml"]\n'
                                            "example_weight = 1.0\n", encoding="utf-8")
    (project / "more.yaml").write_text("version: 1\ncases:\n  - id: a\n    query: !!str refund\n"
                                       "    expect: [git-workflow]\n", encoding="utf-8")
    code, out, err = run(capsys, "search", "bank dispute", "--root", project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and "more.yaml: line 4: case \"a\": the tag !!str is not allowed" in doc["examples_problem"]
    assert "known.yaml" not in doc["examples_problem"]
    assert doc["results"][0]["name"] == "git-workflow"  # known.yaml's request still ranks


def test_find_skill_leaves_an_invalid_examples_file_out_and_says_why(project, capsys, tmp_path):
    from tests.mcpserver.test_mcp import _text, talk

    _write(project / "known.yaml", HOSTILE["alias bomb"][0])
    errlog = tmp_path / "server-stderr.txt"

    async def script(session):
        return await session.call_tool("find_skill", {"query": "bank dispute"})

    found = json.loads(_text(talk(project, errlog, script)))
    jsonschema.validate(found, load_schema("search.v1.json"))
    assert found["results"][0]["name"] == "dispute-charge"
    assert "known.yaml: line " in found["examples_problem"]
    assert "known requests of an invalid examples file are not used" in errlog.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_file_of_thousands_of_problems_is_reported_bounded(project, capsys, fmt):
    """Every problem is counted; the first 1000 are listed, the rest on one more line."""
    from skillsift.casefile.parse import MAX_LISTED

    cases = "".join(f"  - id: c{i}\n    query: refund {i}\n    expect: [ghost-{i}-a, ghost-{i}-b]\n"
                    for i in range(800))
    _write(project / "known.yaml", "version: 1\ncases:\n" + cases)
    code, out, err = run(capsys, "validate", "--root", project, "--format", fmt)
    assert code == 1
    if fmt == "json":
        found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D2"]
        assert len(found) == MAX_LISTED + 1
        assert found[-1]["message"] == "600 more problems from this line on are not listed; fix these and check again"
        assert found[0]["message"] == 'case "c0" expects unknown skill "ghost-0-a"'
    else:
        assert out.count("AR9D2") == MAX_LISTED + 1 and "600 more problems" in out
    code, out, err = run(capsys, "search", "bank dispute", "--root", project, "--format", fmt)
    assert code == 0 and "known.yaml: line 5: case \"c0\" expects unknown skill" in out + err


def test_thousands_of_unknown_keys_are_counted_and_only_the_first_get_a_suggestion():
    """'did you mean' compares a name with every known one: only the first 100 of a file get it."""
    text = "version: 1\ncases:\n  - id: a\n    query: q\n" + "".join(f"    query{i}: x\n" for i in range(3000))
    with pytest.raises(SkillsiftError) as err:
        parse_cases(text, "c.yaml")
    messages = [d.message for d in err.value.diagnostics]
    assert len(messages) == 1001 and messages[-1].startswith("2000 more problems from this line on")
    assert sum('(did you mean "query"?)' in m for m in messages) == 100  # query100...query999 would match too

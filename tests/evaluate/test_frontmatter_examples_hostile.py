"""Known requests in SKILL.md frontmatter obey the examples file's strict rules, through the real CLI.

Each hostile ``examples:`` below is written into one skill of a copy of examples/acme.  ``validate``
(text and JSON) and the cases hook must report it as AR9D2 on the SKILL.md with the line of the
entry; ``search`` (text and JSON) must rank on without that skill's requests and say why (the SKILL.md
and its line); ``eval --from-skills`` and ``index`` refuse with the same file and line; nothing crashes.
"""

from __future__ import annotations

import json

import pytest

from tests.support.cli import run

SKILL = ".claude/skills/csv-cleanup/SKILL.md"
LEAD = "  - clean a csv export\n"  # a good entry first: the bad one is the second line of the list

# name -> (the examples block, the file line the finding must point at (the frontmatter starts at line 1),
#          words the message must hold)
HOSTILE = {
    "a number": ("examples:\n" + LEAD + "  - 1042\n", 12, "got a number"),
    "a sexagesimal number": ("examples:\n" + LEAD + "  - 1:30\n", 12, "is a number, not text"),
    "a null entry": ("examples:\n" + LEAD + "  - ~\n", 12, "got nothing (null)"),
    "a null query": ("examples:\n" + LEAD + "  - query: null\n", 12, "query must be a string"),
    "a list query": ("examples:\n" + LEAD + "  - query: [refund, it]\n", 12, "query must be a string"),
    "a nested list": ("examples:\n" + LEAD + "  - [[a], [b]]\n", 12, "got a list"),
    "a tag": ("examples:\n" + LEAD + "  - !!str customer wants their money back\n", 12, "the tag !!str"),
    "a binary tag": ("examples:\n" + LEAD + "  - !!binary Y3VzdG9tZXIgd2FudHMgdGhlaXIgbW9uZXkgYmFjaw==\n", 12,
                     "the tag !!binary"),
    "a merge key": ("base: &b {query: customer wants their money back}\nexamples:\n" + LEAD + "  - <<: *b\n",
                    13, "merge key"),
    "a top-level merge": ("base: &b\n  examples: [customer wants their money back]\n<<: *b\n", 12, "merge key"),
    "the key written twice": ("examples:\n" + LEAD + "examples: [customer wants their money back]\n", 12,
                              'the key "examples" is written twice'),
    "a query key written twice": ("examples:\n" + LEAD + "  - query: clean it\n    query: customer wants their "
                                  "money back\n", 13, 'the key "query" is written twice'),
    "a 5000-byte query": ("examples:\n" + LEAD + "  - " + "refund " * 715 + "\n", 12, "longer than 4096 bytes"),
    "a query of no words": ("examples:\n" + LEAD + "  - '?!…'\n", 12, "has no words"),
    "nesting past the reader": ("examples:\n" + LEAD + "  - query: x\n    also: " + "[" * 12 + "a" + "]" * 12 + "\n",
                                13, "nested deeper"),
}


def plant(root, block: str, *, crlf: bool = False, bom: bool = False) -> None:
    path = root / SKILL
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n") and text.count("\n---\n") >= 1
    head, rest = text[4:].split("\n---\n", 1)
    assert head.count("\n") == 7  # frontmatter lines 2-9: the planted block starts at line 10
    text = "---\n" + head + "\n" + block + "---\n" + rest
    if crlf:
        text = text.replace("\n", "\r\n")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))


def findings(capsys, root):
    code, out, err = run(capsys, "validate", "--root", root, "--format", "json")
    doc = json.loads(out)
    return code, [d for d in doc["diagnostics"] if d["code"] == "AR9D2"]


# a tag the catalog's reader cannot even construct makes the whole frontmatter unreadable (SK001): no request
# of it is ever used, and the finding has the same line
UNREADABLE = {
    "a custom tag": "examples:\n" + LEAD + "  - !refund customer wants their money back\n",
    "a python tag": "examples:\n" + LEAD + "  - !!python/object/apply:os.system [echo]\n",
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_tag_no_reader_constructs_is_an_unreadable_frontmatter(acme, capsys, case):
    plant(acme, UNREADABLE[case])
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    assert code == 1
    assert any(d["code"] == "SK001" and d["file"] == SKILL and d["line"] == 12 and d["severity"] == "error"
               for d in json.loads(out)["diagnostics"])
    code, out, err = run(capsys, "search", "customer wants their money back", "--root", acme, "--mode", "hybrid",
                         "--format", "json")
    assert code == 0 and json.loads(out)["results"][0]["name"] == "issue-refund"


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_frontmatter_request_is_reported_with_its_line_and_left_out(acme, capsys, case):
    block, line, words = HOSTILE[case]
    plant(acme, block)
    code, found = findings(capsys, acme)
    assert code == 1, found
    assert any(d["file"] == SKILL and d["line"] == line and words in d["message"] and d["severity"] == "error"
               for d in found), found
    code, out, err = run(capsys, "validate", "--root", acme)
    assert code == 1 and f"{SKILL}:{line}: AR9D2" in out
    # the cases hook reports it too (the hook the validate hook leaves AR9D2 to)
    code, out, err = run(capsys, "hook", "cases", "--root", acme)
    assert code == 1 and f"{SKILL}:{line}: AR9D2" in out + err
    # search ranks on, without that skill's frontmatter requests, and says why with the file and line
    for mode in ("lexical", "hybrid"):
        code, out, err = run(capsys, "search", "customer wants their money back", "--root", acme, "--mode", mode,
                             "--format", "json")
        assert code == 0, err
        doc = json.loads(out)
        assert doc["results"]
        if mode == "hybrid":
            assert doc["results"][0]["name"] == "issue-refund"
            assert f"{SKILL}: line {line}" in doc["examples_problem"] and words in doc["examples_problem"]
            assert f"{SKILL}: line {line}" in err
    code, out, err = run(capsys, "search", "customer wants their money back", "--root", acme, "--mode", "hybrid")
    assert code == 0 and out.splitlines()[1].split()[2] == "issue-refund" and f"{SKILL}: line {line}" in err
    # what needs every request refuses, naming the same place
    if case != "a query of no words":  # as an evaluation case, a query of no words is a (hard) case
        code, out, err = run(capsys, "eval", "--from-skills", "--root", acme, "--format", "json")
        assert code == 1 and f"{SKILL}:{line}" in out + err
    code, out, err = run(capsys, "index", "--root", acme, "--dry-run")
    assert code != 0 and f"{SKILL}:{line}" in out + err, out + err


@pytest.mark.parametrize(("crlf", "bom"), [(True, False), (False, True), (True, True)])
def test_crlf_and_bom_keep_the_lines(acme, capsys, crlf, bom):
    plant(acme, "examples:\n" + LEAD + "  - !!str customer wants their money back\n", crlf=crlf, bom=bom)
    code, found = findings(capsys, acme)
    assert code == 1 and [(d["line"], "tag" in d["message"]) for d in found if d["file"] == SKILL] == [(12, True)]


def test_anchors_on_scalars_and_a_long_line_are_plain_requests(acme, capsys):
    """What the strict rules allow (an anchor on a scalar used again, a long but bounded line) stays usable."""
    long = "clean " * 600  # 3,600 bytes: under the bound
    plant(acme, f"examples:\n  - &q clean a csv export\n  - query: *q\n  - {long.strip()}\n")
    code, found = findings(capsys, acme)
    assert code == 0 and found == [], found
    code, out, err = run(capsys, "search", "clean a csv export", "--root", acme, "--mode", "hybrid",
                         "--format", "json")
    doc = json.loads(out)
    assert code == 0 and "examples_problem" not in doc and doc["results"][0]["name"] == "csv-cleanup"


def test_an_alias_bomb_in_the_frontmatter_is_refused_quickly(acme, capsys):
    import time

    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
              f"*a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    plant(acme, "\n".join(lines) + "\nexamples:\n  - query: *a8\n")
    start = time.monotonic()
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    assert time.monotonic() - start < 30
    assert code == 1
    code, out, err = run(capsys, "search", "clean a csv", "--root", acme, "--mode", "hybrid", "--format", "json")
    assert code == 0 and json.loads(out)["results"]

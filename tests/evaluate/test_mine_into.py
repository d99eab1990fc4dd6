"""`skillsift mine --into FILE`: merging mined requests into an examples file (docs/query-mining.md)."""

from __future__ import annotations

from skillsift.evaluate.cases import Case, Expected, parse_cases
from skillsift.evaluate.mine_into import merge_into
from skillsift.evaluate.querylog import Entry, mined_id
from tests.evaluate.test_mine import KNOWN, ld, q, write_log
from tests.support.cli import run

AWS_KEY = "AKIAQ3ZR7T2MWX9PLK4N"

HAND_WRITTEN = """# reviewed by hand
version: 1
cases:
    # the first one came from support
    - id: known-money
      query: "Money back, please"
      expect: [issue-refund]
"""


def mined(query: str, skill: str) -> Case:
    return Case(id=mined_id(query.lower()), query=query, expect=(Expected(skill),), tags=("mined",))


def test_appends_to_the_files_own_bytes_and_dedupes_by_normalised_text():
    merged = merge_into(HAND_WRITTEN, [mined("money back please", "issue-refund"),
                                       mined("open a dispute", "dispute-charge"),
                                       mined("Open a  dispute!", "dispute-charge")])
    assert merged.text is not None and merged.text.startswith(HAND_WRITTEN)  # comments and layout kept
    assert [c.query for c in parse_cases(merged.text).cases] == ["Money back, please", "open a dispute"]
    assert merged.duplicates == 2
    assert merged.text[len(HAND_WRITTEN):].startswith("    - id: ")  # the file's own indentation
    again = merge_into(merged.text, [mined("open a dispute", "dispute-charge")])
    assert again.text is None  # nothing new: the file is left as it is


def test_secrets_are_never_written_and_the_cap_drops_with_a_note():
    cases = [mined(f"refund order {n}", "issue-refund") for n in range(4)]
    cases.insert(1, mined(f"the key {AWS_KEY} leaked, refund", "issue-refund"))
    from skillsift.secrets.scan import detect_secret

    merged = merge_into(HAND_WRITTEN, cases, cap=3, scan=lambda t: detect_secret(t, ()), path="known.yaml")
    assert merged.secrets == 1 and AWS_KEY not in merged.text
    assert [c.query for c in merged.added] == ["refund order 0", "refund order 1"]  # 1 in the file + 2 = cap 3
    assert merged.capped == {"issue-refund": 2}
    assert "known.yaml: dropped 2 requests of issue-refund: at most 3 per skill (--max-per-skill)" in \
        merged.notes("known.yaml", 3)


def test_a_flow_style_file_is_written_again_with_a_note():
    merged = merge_into("version: 1\ncases: [{id: a, query: refund, expect: [issue-refund]}]\n",
                        [mined("open a dispute", "dispute-charge")])
    assert merged.rewritten and [c.id for c in parse_cases(merged.text).cases][0] == "a"


def test_mine_into_is_byte_identical_on_a_rerun(tmp_path, capsys, skill_writer):
    for name in KNOWN:
        skill_writer(tmp_path, name, f"The {name} skill")
    write_log(tmp_path, [q("s1", "money back"), ld("s1", "issue-refund"), q("s2", "open a dispute"),
                         ld("s2", "dispute-charge"), q("s3", f"key {AWS_KEY}"), ld("s3", "issue-refund")])
    into = tmp_path / "search-examples.yaml"
    code, out, err = run(capsys, "mine", "--root", tmp_path, "--into", into)
    assert code == 0, err
    assert out == ""
    first = into.read_bytes()
    assert [(c.query, c.expect_ids) for c in parse_cases(first).cases] == [
        ("money back", ("issue-refund",)), ("open a dispute", ("dispute-charge",))]
    assert "2 new known requests" in err
    stamp = into.stat().st_mtime_ns
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into)
    assert code == 0 and into.read_bytes() == first and into.stat().st_mtime_ns == stamp
    assert "0 new known requests, 2 already known" in err
    # a new request later in the log is appended after the file's own cases
    write_log(tmp_path, [q("s1", "money back"), ld("s1", "issue-refund"), q("s9", "refund a double charge"),
                         ld("s9", "issue-refund")])
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into)
    assert code == 0 and into.read_bytes().startswith(first)
    assert [c.query for c in parse_cases(into.read_bytes()).cases][-1] == "refund a double charge"


def test_mine_into_refuses_a_broken_file_and_output_together(tmp_path, capsys, skill_writer):
    skill_writer(tmp_path, "issue-refund", "The issue-refund skill")
    write_log(tmp_path, [Entry(event="query", session="s", query="money back"), ld("s", "issue-refund")])
    into = tmp_path / "bad.yaml"
    into.write_text("version: 1\ncases:\n  - id: a\n", encoding="utf-8")
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into)
    assert code == 1 and "AR9D2" in err and "bad.yaml" in err
    assert into.read_text(encoding="utf-8") == "version: 1\ncases:\n  - id: a\n"  # untouched
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into, "--output", tmp_path / "x.yaml")
    assert code == 1 and "--into and --output cannot be used together" in err

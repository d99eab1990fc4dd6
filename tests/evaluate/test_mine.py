"""Query mining (reference §7, §10.7): labelling, ambiguity, min-count, cases YAML, `skillsift mine`."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
import yaml

from skillsift.evaluate.cases import Case, Expected, parse_cases
from skillsift.evaluate.cases_yaml import cases_to_yaml
from skillsift.evaluate.querylog import Entry, mine, mined_id, normalise
from tests.support.cli import run


def q(session, text):
    return Entry(event="query", session=session, query=text)


def ld(session, skill):
    return Entry(event="loaded", session=session, skill=skill)


REFERENCE_ENTRIES = [
    q("s1", "money back"), ld("s1", "issue-refund"), ld("s1", "dispute-charge"),
    q("s2", "Money   back"), ld("s2", "issue-refund"),
    q("s1", "rollout to prod"),
    q("s3", "which skill"), ld("s3", "a-skill"),
    q("s4", "which skill"), ld("s4", "b-skill"),
    q("s5", "unknown label"), ld("s5", "ghost"),
    q("s6", "once"), ld("s6", "issue-refund"),
]
KNOWN = ["issue-refund", "dispute-charge", "a-skill", "b-skill"]


# -- §10.7 -----------------------------------------------------------------------------------------


def test_reference_example_min_count_1():
    result = mine(REFERENCE_ENTRIES, KNOWN, 1)
    assert (result.queries, result.unlabelled, result.ambiguous, result.below) == (5, 2, 1, 0)
    assert len(result.cases) == 2
    first = result.cases[0]
    assert first.query == "money back"
    assert first.expect_ids == ("issue-refund",)
    assert first.tags == ("mined",)
    assert re.fullmatch(r"mined-[0-9a-f]{8}", first.id)
    assert [c.query for c in result.cases] == ["money back", "once"]


def test_reference_example_min_count_2():
    result = mine(REFERENCE_ENTRIES, KNOWN, 2)
    assert [c.query for c in result.cases] == ["money back"]
    assert result.below == 1
    assert (result.queries, result.unlabelled, result.ambiguous) == (5, 2, 1)


def test_cases_yaml_round_trips_through_the_cases_parser():
    cases = [
        Case(id="graded", query="deploy to staging", expect=(Expected("deploy-staging", 3, True),
                                                             Expected("load-testing"))),
        Case(id="avoid", query="roll back the release", expect=(Expected("rollback-release"),),
             avoid=("deploy-production",), tags=("near-miss", "deploy")),
        Case(id="negative", query="bake a cake", expect=()),
        Case(id="role", query="yes", expect=(Expected("issue-refund"),), role="billing"),
    ]
    text = cases_to_yaml(cases, 5)
    parsed = parse_cases(text)
    assert parsed.k == 5 and parsed.version == 1
    by_id = {c.id: c for c in parsed.cases}
    assert [(e.id, e.grade, e.graded) for e in by_id["graded"].expect] == [
        ("deploy-staging", 3, True), ("load-testing", 1, False)]
    assert by_id["avoid"].avoid == ("deploy-production",)
    assert by_id["avoid"].tags == ("near-miss", "deploy")
    assert by_id["negative"].expect == () and by_id["negative"].negative
    assert by_id["role"].query == "yes" and by_id["role"].role == "billing"
    assert "expect: []" in text
    assert "\n  - id: graded\n" in text  # two-space indent under cases
    assert "- grade: 3\n        id: deploy-staging" in text
    assert "k:" not in cases_to_yaml(cases)


def test_mined_cases_round_trip():
    result = mine(REFERENCE_ENTRIES, KNOWN)
    parsed = parse_cases(cases_to_yaml(result.cases, header="mined"))
    assert [(c.id, c.query, c.expect_ids, c.tags) for c in parsed.cases] == [
        (c.id, c.query, c.expect_ids, c.tags) for c in result.cases]


# -- labelling rules -------------------------------------------------------------------------------


def test_first_known_load_labels_and_later_loads_are_ignored():
    result = mine([q("s", "refund"), ld("s", "issue-refund"), ld("s", "dispute-charge"), ld("s", "dispute-charge")],
                  KNOWN)
    assert result.cases[0].expect_ids == ("issue-refund",)


def test_unknown_skill_neither_counts_nor_uses_up_the_label():
    result = mine([q("s", "refund"), ld("s", "ghost"), ld("s", "dispute-charge")], KNOWN)
    assert [c.expect_ids for c in result.cases] == [("dispute-charge",)]
    only_ghost = mine([q("s", "refund"), ld("s", "ghost")], KNOWN)
    assert (only_ghost.cases, only_ghost.unlabelled) == ([], 1)


def test_sessions_are_independent():
    # s2 loads while s1's query is current: that load has no query of its own
    result = mine([q("s1", "refund"), ld("s2", "issue-refund")], KNOWN)
    assert (result.cases, result.unlabelled) == ([], 1)
    # interleaved sessions each label their own query
    result = mine([q("s1", "refund"), q("s2", "which skill"), ld("s2", "a-skill"), ld("s1", "issue-refund")], KNOWN)
    assert {c.query: c.expect_ids for c in result.cases} == {"refund": ("issue-refund",),
                                                             "which skill": ("a-skill",)}


def test_a_new_query_clears_the_label():
    result = mine([q("s", "first"), ld("s", "a-skill"), q("s", "second"), ld("s", "b-skill")], KNOWN)
    assert {c.query: c.expect_ids for c in result.cases} == {"first": ("a-skill",), "second": ("b-skill",)}


def test_load_before_any_query_is_ignored():
    result = mine([ld("s", "a-skill"), q("s", "first")], KNOWN)
    assert (result.cases, result.unlabelled, result.queries) == ([], 1, 1)


def test_ambiguous_only_when_the_two_top_labels_tie():
    tie = [q("a", "x"), ld("a", "a-skill"), q("b", "x"), ld("b", "b-skill")]
    assert mine(tie, KNOWN).ambiguous == 1
    # a clear winner with a tie below it is not ambiguous
    clear = tie + [q("c", "x"), ld("c", "a-skill"), q("d", "x"), ld("d", "issue-refund")]
    result = mine(clear, KNOWN)
    assert result.ambiguous == 0 and result.cases[0].expect_ids == ("a-skill",)


def test_min_count_counts_the_top_label_only():
    entries = [q("a", "x"), ld("a", "a-skill"), q("b", "x"), ld("b", "a-skill"), q("c", "x"), ld("c", "b-skill")]
    assert [c.expect_ids for c in mine(entries, KNOWN, 2).cases] == [("a-skill",)]
    result = mine(entries, KNOWN, 3)
    assert (result.cases, result.below) == ([], 1)


def test_min_count_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        mine([], KNOWN, 0)


def test_queries_group_by_lowercase_collapsed_text_and_keep_the_first_spelling():
    result = mine([q("a", "  Deploy   To Staging "), ld("a", "a-skill"), q("b", "deploy to staging"),
                   ld("b", "a-skill")], KNOWN, 2)
    (case,) = result.cases
    assert case.query == "Deploy To Staging"
    assert result.queries == 1
    assert case.id == "mined-" + hashlib.sha256(b"deploy to staging").hexdigest()[:8] == mined_id(
        normalise("DEPLOY to   staging"))


def test_blank_queries_are_not_counted():
    assert mine([q("a", "   "), ld("a", "a-skill")], KNOWN).queries == 0


def test_stats_line_text():
    line = mine(REFERENCE_ENTRIES, KNOWN).stats_line()
    assert line == ("mined 2 cases from 5 distinct queries (2 never followed by a load, 1 ambiguous, "
                    "0 below --min-count); labels are weak: review before gating")


# -- the command -----------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path, skill_writer):
    for name in KNOWN:
        skill_writer(tmp_path, name, f"The {name} skill")
    return tmp_path


def write_log(root, entries):
    path = root / ".skillsift" / "local" / "search-queries.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for e in entries:
            doc = {"v": 1, "ts": "2026-10-06T12:00:00Z", "event": e.event, "session": e.session}
            doc.update({"query": e.query} if e.event == "query" else {"skill": e.skill})
            handle.write(json.dumps(doc) + "\n")
    return path


def test_mine_command_prints_cases_and_stats(project, capsys):
    log = write_log(project, REFERENCE_ENTRIES)
    code, out, err = run(capsys, "mine", "--root", project)
    assert code == 0, err
    parsed = parse_cases(out)
    assert [(c.query, c.expect_ids, c.tags) for c in parsed.cases] == [
        ("money back", ("issue-refund",), ("mined",)), ("once", ("issue-refund",), ("mined",))]
    assert yaml.safe_load(out)["version"] == 1
    assert "mined 2 cases from 5 distinct queries (2 never followed by a load, 1 ambiguous, 0 below --min-count)" \
        in err
    assert log.exists()  # kept without --purge


def test_mine_command_min_count_output_and_purge(project, capsys, tmp_path):
    log = write_log(project, REFERENCE_ENTRIES)
    out_file = tmp_path / "mined.yaml"
    code, out, err = run(capsys, "mine", "--root", project, "--min-count", "2", "--output", out_file, "--purge")
    assert code == 0, err
    assert out == ""
    assert [c.query for c in parse_cases(out_file.read_text(encoding="utf-8")).cases] == ["money back"]
    assert "1 below --min-count" in err
    assert not log.exists()
    # purging again with no log is fine; an empty log says so and labels nothing
    code, out, err = run(capsys, "mine", "--root", project, "--purge")
    assert code == 0
    assert out == "# no query could be labelled\n"
    assert "is empty or missing" in err and "mined 0 cases from 0 distinct queries" in err


def test_mine_command_nothing_labelled(project, capsys):
    write_log(project, [q("s", "bake a cake"), ld("s", "ghost")])
    code, out, err = run(capsys, "mine", "--root", project)
    assert code == 0
    assert out == "# no query could be labelled\n"
    assert "1 never followed by a load" in err


def test_mine_command_rejects_min_count_below_one(project, capsys):
    code, out, err = run(capsys, "mine", "--root", project, "--min-count", "0")
    assert code == 1
    assert "--min-count must be at least 1" in err

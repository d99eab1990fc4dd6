"""Known requests: the examples files (strict loading), frontmatter examples of other shapes, the index
rows of known requests, ranking with them, and evaluation without leakage (docs/evaluation.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.examples import dedupe, example_files, load_examples_files
from skillsift.ranker.examples import ExampleRows
from skillsift.ranker.model.lift import combine, example_best, normalised
from tests.conftest import write_skill
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import user_config

# a file whose only case is negative: no known request (a cases file is never empty)
NONE_KNOWN = "version: 1\ncases:\n  - id: none\n    query: the weather\n    expect: []\n"
NAMES = ["deploy-staging", "dispute-charge", "git-workflow", "issue-refund"]


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- the examples file: strict, every problem at once --------------------------------------------------


def test_examples_file_reports_every_problem_with_file_line_and_a_close_name(tmp_path):
    write(tmp_path, "search-examples.yaml", 'version: 1\ncases:\n  - id: a\n    query: "bank dispute"\n'
                                            '    expect: [dispute-charg]\n  - id: a\n    query: "refund it"\n'
                                            '    expect: [issue-refund]\n')
    with pytest.raises(SkillsiftError) as err:
        load_examples_files(str(tmp_path), ["search-examples.yaml"], NAMES)
    assert err.value.diagnostics[0].file == "search-examples.yaml"
    assert err.value.message.startswith("AR9D2: invalid examples file: search-examples.yaml: line 6")  # duplicate id
    write(tmp_path, "search-examples.yaml", 'version: 1\ncases:\n  - id: a\n    query: "bank dispute"\n'
                                            '    expect: [dispute-charg]\n  - id: b\n    query: "refund it"\n'
                                            '    expect: [issue-refnd]\n')
    with pytest.raises(SkillsiftError) as err:
        load_examples_files(str(tmp_path), ["search-examples.yaml"], NAMES)
    lines = [(d.file, d.line, d.code) for d in err.value.diagnostics]
    assert lines == [("search-examples.yaml", 5, "AR9D2"), ("search-examples.yaml", 8, "AR9D2")]
    assert 'unknown skill "dispute-charg" (did you mean "dispute-charge"?)' in err.value.message
    assert 'unknown skill "issue-refnd" (did you mean "issue-refund"?)' in err.value.message


def test_problems_of_two_files_come_in_one_error(tmp_path):
    write(tmp_path, "ex/one.yaml", "version: 1\ncases:\n  - id: a\n    expect: [git-workflow]\n")
    write(tmp_path, "ex/two.yaml", "version: 1\ncases:\n  - id: a\n    query: q\n    expect: [nope]\n")
    with pytest.raises(SkillsiftError) as err:
        load_examples_files(str(tmp_path), ["ex/*.yaml"], NAMES)
    assert sorted({d.file for d in err.value.diagnostics}) == ["ex/one.yaml", "ex/two.yaml"]


def test_files_globs_missing_paths_and_escapes(tmp_path):
    write(tmp_path, "ex/b.yaml", "version: 1\ncases: []\n")
    write(tmp_path, "ex/a.yml", "version: 1\ncases: []\n")
    assert example_files(str(tmp_path), ["ex/*.y*ml", "ex/b.yaml"]) == ["ex/a.yml", "ex/b.yaml"]
    assert example_files(str(tmp_path), ["none/*.yaml"]) == []  # a glob may match nothing
    with pytest.raises(SkillsiftError, match='names "missing.yaml", which does not exist'):
        example_files(str(tmp_path), ["missing.yaml"])
    outside = tmp_path.parent / "outside.yaml"
    outside.write_text("version: 1\ncases: []\n", encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to(outside)
    with pytest.raises(SkillsiftError, match="resolves outside the repository"):
        example_files(str(tmp_path), ["link.yaml"])


def test_config_refuses_paths_outside_the_repository(tmp_path, capsys):
    write_skill(tmp_path, "git-workflow", "Branching and pull request conventions")
    write(tmp_path, "skillsift.toml", '[search]\nexamples = ["../elsewhere.yaml"]\n')
    code, _out, err = run(capsys, "status", "--root", tmp_path)
    assert code == 1
    assert 'search.examples entry "../elsewhere.yaml" must be a path inside the repository' in err


def test_requests_are_deduplicated_by_normalised_text_and_sorted(tmp_path):
    write(tmp_path, "e.yaml", 'version: 1\ncases:\n  - id: a\n    query: "Bank  dispute!"\n'
                              '    expect: [dispute-charge, git-workflow]\n  - id: b\n    query: "bank dispute"\n'
                              "    expect: [dispute-charge]\n  - id: c\n    query: nothing\n    expect: []\n")
    loaded = load_examples_files(str(tmp_path), ["e.yaml"], NAMES)
    assert [(r.skill, r.text, r.line) for r in dedupe(loaded.requests)] == [
        ("dispute-charge", "Bank  dispute!", 3), ("git-workflow", "Bank  dispute!", 3)]
    assert normalised("Ｂank  DISPUTE!") == "bank dispute"


# -- the ranking arithmetic ---------------------------------------------------------------------------


def test_best_example_per_skill_and_the_combination():
    cos = np.array([[0.2, 0.9, -np.inf, 0.4]])
    best, has = example_best(cos, [0, 0, 2, 3], 4)
    assert best.tolist() == [[0.9, 0.0, 0.0, 0.4]]
    assert has.tolist() == [[True, False, False, True]]  # skill 2's only example is left out
    own = np.array([[0.5, 0.5, 0.5, 0.6]])
    assert np.allclose(combine(own, best, has, 0.5), [[0.7, 0.5, 0.5, 0.6]])  # never lowers a skill


def test_example_rows_leave_out_the_querys_own_text_only_in_evaluation():
    rows = ExampleRows.of(np.eye(3, dtype=np.float32), [1, 0, 1], ["b one", "a one", "Bank dispute"])
    assert rows.owner.tolist() == [0, 1, 1] and rows.texts == ("a one", "Bank dispute", "b one")
    q = np.array([0.0, 0.0, 1.0])  # the vector of "Bank dispute"
    live = rows.cosines("bank  dispute", q)
    held = rows.cosines("bank  dispute", q, own_evidence={"bank dispute": {1}})
    assert live.tolist() == [0.0, 1.0, 0.0] and held[1] == -np.inf
    assert rows.closest(live, 1) == ("Bank dispute", 1.0)
    assert rows.closest(held, 1) == ("b one", 0.0)
    # the same text held out for another skill (the case expects skill 0): skill 1's request stays
    assert rows.cosines("bank  dispute", q, own_evidence={"bank dispute": {0}}).tolist() == live.tolist()


# -- end to end: index, status, search, eval ----------------------------------------------------------


@pytest.fixture
def project(tmp_path, capsys):
    root = tmp_path / "proj"
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "deploy-staging", "Roll a service out to the staging cluster")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    write(root, "skillsift.toml", '[search]\nmode = "vector"\nexamples = ["search-examples.yaml"]\n'
                                  "example_weight = 1.0\n")
    # planted: a request only its example ties to git-workflow
    write(root, "search-examples.yaml", 'version: 1\ncases:\n  - id: planted\n    query: "bank dispute"\n'
                                        "    expect: [git-workflow]\n")
    calls = tmp_path / "calls.jsonl"
    set_user_config(user_config("--log", str(calls)))
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    return root, calls


def sent(calls: Path) -> list[str]:
    return [text for line in calls.read_text().splitlines() for text in json.loads(line)]


def status(capsys, root) -> dict:
    code, out, err = run(capsys, "status", "--root", root, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_index_holds_one_row_per_request_and_updates_incrementally(project, capsys):
    root, calls = project
    manifest = json.loads((root / ".skillsift/index/manifest.json").read_text())
    assert manifest["schema_version"] == 3
    examples = [i for i in manifest["items"] if i["kind"] == "example"]
    assert [(i["id"], i["row"]) for i in examples] == [("git-workflow", 4)]  # after the four skills
    assert "bank dispute" in sent(calls)
    doc = status(capsys, root)
    assert doc["state"] == "fresh" and doc["examples"] == {"configured": 1, "current": 1, "missing": 0,
                                                           "orphaned": 0}
    # a new request: stale, and the next build embeds that request alone
    write(root, "search-examples.yaml", 'version: 1\ncases:\n  - id: planted\n    query: "bank dispute"\n'
                                        "    expect: [git-workflow]\n  - id: two\n    query: money back now\n"
                                        "    expect: [issue-refund]\n")
    doc = status(capsys, root)
    assert doc["state"] == "stale" and doc["examples"]["missing"] == 1
    calls.unlink()
    code, out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    assert sent(calls) == ["money back now"]
    assert "of 4 skills and 2 known requests" in out
    # removed from the file: its row is no longer needed, and goes at the next build
    write(root, "search-examples.yaml", NONE_KNOWN)
    assert status(capsys, root)["examples"] == {"configured": 0, "current": 0, "missing": 0, "orphaned": 2}
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    manifest = json.loads((root / ".skillsift/index/manifest.json").read_text())
    assert manifest["schema_version"] == 3 and all(i["kind"] == "skill" for i in manifest["items"])


def test_an_index_of_an_older_format_reads_as_stale_with_the_reason(project, capsys):
    """Formats 1 and 2 carry no row digests: out of date (not damage), not used, rebuilt whole."""
    root, calls = project
    path = root / ".skillsift/index/manifest.json"
    manifest = json.loads(path.read_text())
    manifest["schema_version"] = 2
    for item in manifest["items"]:
        del item["row_digest"]
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    doc = status(capsys, root)
    assert doc["state"] == "stale" and doc["current"] == 0 and len(doc["missing"]) == 4
    assert "the index was written in format 2, whose rows carry no digest" in doc["reason"]
    code, out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    assert "reused 0" in out + err, out + err  # every row embedded again: nothing unverified is reused
    assert json.loads(path.read_text())["schema_version"] == 3 and status(capsys, root)["state"] == "fresh"


def test_a_secret_in_a_request_is_withheld_from_a_provider_that_sends_text_out(tmp_path):
    from skillsift.index.build import plan_build
    from tests.support.concept_embedder import ConceptEmbedder, refund_catalog

    key = "AKIAQ3ZR7T2MWX9PLK4N"
    from skillsift.secrets.scan import detect_secret

    plan = plan_build(refund_catalog(), None, provider=ConceptEmbedder(external=True),
                      scan=lambda text: detect_secret(text, ()),
                      examples=[("git-workflow", f"rotate {key} now"), ("git-workflow", "merge my branch")])
    actions = [(p.kind, p.action) for p in plan.items if p.kind == "example"]
    assert actions == [("example", "withheld"), ("example", "embed")]


def test_search_uses_the_request_and_explain_names_it(project, capsys):
    root, _calls = project
    code, out, err = run(capsys, "search", "bank dispute", "--root", root, "--format", "json", "--explain")
    assert code == 0, err
    doc = json.loads(out)
    first = doc["results"][0]
    assert first["name"] == "git-workflow"  # a live search uses a request typed again
    assert first["known_request"] == {"query": "bank dispute", "cosine": 1.0}
    code, out, _err = run(capsys, "search", "bank dispute", "--root", root, "--explain")
    assert 'closest known request: "bank dispute" cosine 1.00' in out


def test_without_requests_the_ranking_is_what_it_was(project, capsys):
    root, _calls = project
    code, with_examples, _ = run(capsys, "search", "pull request", "--root", root, "--format", "json")
    write(root, "skillsift.toml", '[search]\nmode = "vector"\nexample_weight = 0\n')
    code, weight_off, _ = run(capsys, "search", "pull request", "--root", root, "--format", "json")
    assert code == 0
    off = json.loads(weight_off)
    assert [r["name"] for r in off["results"]][0] == "git-workflow"
    assert "known_request" not in weight_off


def test_a_case_whose_query_is_a_request_is_not_ranked_first_because_of_itself(project, tmp_path, capsys):
    root, _calls = project
    write(root, "cases.yaml", 'version: 1\ncases:\n  - id: leak\n    query: "Bank dispute"\n'
                              "    expect: [git-workflow]\n")
    code, out, err = run(capsys, "eval", root / "cases.yaml", "--root", root, "--format", "json")
    doc = json.loads(out)
    assert doc["cases"][0]["rank"] != 1  # only its own text ties it to git-workflow
    assert doc["examples"].startswith("1 case queries are known requests: scored by 1-fold")
    # the examples file itself as the cases file: the same, by k-fold
    code, out, err = run(capsys, "eval", root / "search-examples.yaml", "--root", root)
    assert "known requests: 1 case queries are known requests: scored by 1-fold" in out
    assert "top1      0.0000" in out


def test_k_fold_ranks_each_fold_with_the_other_folds_requests(project, capsys):
    root, _calls = project
    cases = ["version: 1", "cases:"]
    # all of one concept, so each request is as close to every case as the case's own text
    for n, query in enumerate(["bank dispute", "dispute", "bank", "charge", "chargeback", "bank charge"]):
        cases += [f"  - id: c{n}", f"    query: {json.dumps(query)}", "    expect: [git-workflow]"]
    write(root, "search-examples.yaml", "\n".join(cases) + "\n")
    assert run(capsys, "index", "--root", root)[0] == 0
    code, out, _err = run(capsys, "eval", root / "search-examples.yaml", "--root", root, "--format", "json")
    doc = json.loads(out)
    assert doc["examples"].startswith("6 case queries are known requests: scored by 5-fold")
    # every fold still has the other folds' requests as evidence: the planted label wins everywhere
    assert all(c["rank"] == 1 for c in doc["cases"])


# -- frontmatter examples of another shape -------------------------------------------------------------


def test_mapping_shaped_examples_are_ignored_with_a_note(tmp_path, capsys):
    write_skill(tmp_path, "git-workflow", "Branching and pull request conventions",
                extra="examples:\n  - title: A merge\n    input: merge it\n    output: merged\n"
                      "  - open a pull request for my branch\n")
    write_skill(tmp_path, "issue-refund", "Reimburse a customer for a returned purchase")
    code, out, err = run(capsys, "eval", "--from-skills", "--root", tmp_path)
    assert code == 0, err
    assert ('note: .claude/skills/git-workflow/SKILL.md:5: skill "git-workflow": examples entry 1 is a mapping '
            "of input, output, title, not a search query: ignored") in err
    assert "from-skills: 1 case derived" in err


def test_the_index_hook_rebuilds_when_the_examples_file_changes(project, capsys):
    root, calls = project
    assert run(capsys, "hook", "index", "--root", root)[0] == 0  # current
    write(root, "search-examples.yaml", 'version: 1\ncases:\n  - id: planted\n    query: "bank dispute"\n'
                                        "    expect: [git-workflow]\n  - id: two\n    query: money back now\n"
                                        "    expect: [issue-refund]\n")
    calls.unlink()
    code, out, err = run(capsys, "hook", "index", "--root", root)
    assert code == 1 and "does not hold the known requests (1 not indexed)" in out + err
    assert sent(calls) == ["money back now"]
    assert status(capsys, root)["state"] == "fresh"


def test_a_broken_examples_file_stops_eval_and_index_but_not_search(project, capsys):
    root, _calls = project
    write(root, "search-examples.yaml", "version: 1\ncases:\n  - id: x\n    expect: [git-workflow]\n")
    code, out, err = run(capsys, "search", "bank dispute", "--root", root, "--format", "json")
    assert code == 0 and json.loads(out)["results"][0]["name"] == "dispute-charge"  # ranked without requests
    code, _out, err = run(capsys, "eval", root / "search-examples.yaml", "--root", root)
    assert code == 1 and "AR9D2" in err
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 1 and "search-examples.yaml" in err and "line 3" in err


def test_the_examples_reading_and_the_cases_parser_keep_their_evaluation_names():
    """The reading lives below the ranker (ranker/known.py, casefile/); evaluate/ re-exports the same objects."""
    from skillsift import evaluate
    from skillsift.casefile import CASES_INVALID, parse, rules
    from skillsift.evaluate import cases, examples
    from skillsift.ranker import known

    for name in ("KnownRequest", "KnownRequests", "known_requests", "load_examples_files", "file_requests",
                 "example_files", "frontmatter_requests", "dedupe", "MAX_FILES"):
        assert getattr(examples, name) is getattr(known, name), name
    for name in ("Case", "CaseFile", "Expected", "CasesInvalid", "parse_cases", "skill_problems", "role_problems",
                 "check_catalog", "with_catalog_problems", "MAX_FILE_BYTES"):
        assert getattr(cases, name) is getattr(parse, name), name
    assert cases.CASES is rules.CASES and evaluate.CASES_INVALID == CASES_INVALID == "AR9D2"
    assert callable(cases.load_cases) and callable(cases.load_checked) and callable(cases.check_k)

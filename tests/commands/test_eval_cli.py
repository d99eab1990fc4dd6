"""`skillsift eval` end to end through the CLI, on small skill trees (lexical ranker)."""

from __future__ import annotations

import json
import os
import stat
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import ACME
from tests.support.cli import run
from tests.support.eval_support import METRICS_CASES, TEN_MISTAKES, ScriptedRanker, validate_eval_json
from tests.support.extras import require_embed


@pytest.fixture
def eval_env(tmp_path, skill_writer):
    """The reference's evalEnv catalog."""
    skill_writer(
        tmp_path, "deploy-staging", "Deploy a service to the staging cluster", triggers=["deploy to staging"]
    )
    skill_writer(tmp_path, "deploy-prod", "Deploy a service to production with approvals")
    skill_writer(
        tmp_path, "refund-policy", "Process customer refund requests", triggers=["customer wants money back"]
    )
    skill_writer(tmp_path, "git-workflow", "Branching and pull request conventions")
    return tmp_path


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def eval_json(capsys, root, cases, *extra):
    code, out, err = run(capsys, "eval", cases, "--root", root, "--format", "json", *extra)
    assert code == 0, err
    return validate_eval_json(out)


# -- reference §10.4 lexical examples on the real ranker -------------------------------------------


def test_reference_metrics_k2(eval_env, capsys):
    doc = eval_json(capsys, eval_env, write(eval_env / "cases.yaml", METRICS_CASES))
    assert (doc["n"], doc["n_negative"], doc["k"], doc["mode"]) == (4, 1, 2, "lexical")
    assert [c["rank"] for c in doc["cases"]] == [1, 1, 2, None]
    assert doc["modes"]["lexical"] == {
        "n": 4,
        "top1": 0.5,
        "recall_at_k": 0.75,
        "hit_at_k": 0.75,
        "mrr": 0.625,
    }
    assert [m["id"] for m in doc["misses"]] == ["miss"]
    assert doc["tags"]["paraphrase"]["n"] == 1
    assert "top" not in doc["negatives"][0]
    for key in ("top1", "recall_at_k", "mrr"):
        assert doc["ci95"][key]["low"] <= doc["modes"]["lexical"][key] <= doc["ci95"][key]["high"]
    again = eval_json(capsys, eval_env, eval_env / "cases.yaml")
    assert again == doc


def test_multi_relevant_k1(eval_env, capsys):
    cases = write(
        eval_env / "c.yaml",
        "version: 1\nk: 1\ncases:\n"
        "  - {id: m, query: deploy service, expect: [deploy-staging, deploy-prod]}\n",
    )
    doc = eval_json(capsys, eval_env, cases)
    assert doc["cases"][0]["got"] == ["deploy-prod"]
    assert (doc["modes"]["lexical"]["recall_at_k"], doc["modes"]["lexical"]["hit_at_k"]) == (0.5, 1)


def test_ndcg_graded(eval_env, capsys):
    cases = write(
        eval_env / "c.yaml",
        "version: 1\nk: 5\ncases:\n  - id: g\n    query: deploy\n    expect:\n"
        "      - {id: deploy-staging, grade: 3}\n      - {id: deploy-prod, grade: 1}\n",
    )
    doc = eval_json(capsys, eval_env, cases)
    assert doc["modes"]["lexical"]["ndcg_at_k"] == 1 and "ndcg_at_k" in doc["ci95"]
    plain = eval_json(capsys, eval_env, write(eval_env / "p.yaml", METRICS_CASES))
    assert "ndcg_at_k" not in plain["modes"]["lexical"] and "ndcg_at_k" not in plain["ci95"]


def test_avoid_top1(eval_env, capsys):
    cases = write(
        eval_env / "c.yaml",
        """\
version: 1
cases:
  - {id: ok, query: deploy to production, avoid: [deploy-staging]}
  - {id: bad, query: deploy to staging, avoid: [deploy-staging]}
  - {id: plain, query: weather}
""",
    )
    doc = eval_json(capsys, eval_env, cases)
    negs = {n["id"]: n for n in doc["negatives"]}
    assert "avoid_violated" not in negs["ok"] and negs["bad"]["avoid_violated"] is True
    assert doc["modes"]["lexical"]["avoid_top1"] == 0.5 and doc["n"] == 0 and doc["ci95"] == {}


ROLE_CASES = "version: 1\ncases:\n  - {id: r, query: deploy refund, role: %s, expect: [%s]}\n"


def test_roles(eval_env, capsys):
    write(eval_env / "skillsift.toml", '[roles.billing]\nskills = ["refund-policy"]\n')
    doc = eval_json(capsys, eval_env, write(eval_env / "c.yaml", ROLE_CASES % ("billing", "refund-policy")))
    assert doc["cases"][0]["got"] == ["refund-policy"] and doc["cases"][0]["role"] == "billing"
    code, _, err = run(
        capsys,
        "eval",
        write(eval_env / "n.yaml", ROLE_CASES % ("nobody", "refund-policy")),
        "--root",
        eval_env,
    )
    assert code == 1 and "AR9D2" in err and 'unknown role "nobody"' in err
    code, _, err = run(
        capsys,
        "eval",
        write(eval_env / "o.yaml", ROLE_CASES % ("billing", "deploy-prod")),
        "--root",
        eval_env,
    )
    assert code == 1 and "does not serve" in err


def test_role_without_roles_configured(eval_env, capsys):
    code, _, err = run(
        capsys,
        "eval",
        write(eval_env / "c.yaml", ROLE_CASES % ("billing", "refund-policy")),
        "--root",
        eval_env,
    )
    assert code == 1 and "no roles are configured" in err and "line 3" in err


# -- reference §10.11 CLI table ---------------------------------------------------------------------

THREE = """\
version: 1
k: 3
cases:
  - {id: refund, query: customer wants money back, expect: [refund-policy], tags: [paraphrase]}
  - {id: staging, query: deploy to staging, expect: [deploy-staging]}
  - {id: none, query: weather tomorrow, expect: []}
"""


def test_passing_gates_exit_0(cli_project, capsys):
    cases = write(cli_project / "cases.yaml", THREE)
    code, out, err = run(
        capsys, "eval", cases, "--root", cli_project, "--min", "top1=1,mrr=1", "--format", "json"
    )
    assert code == 0, err
    doc = validate_eval_json(out)
    assert (doc["k"], doc["n"], doc["n_negative"]) == (3, 2, 1) and "gate_failures" not in doc


def test_gate_failure_exit_2(cli_project, capsys):
    cases = write(
        cli_project / "cases.yaml",
        "version: 1\ncases:\n"
        "  - {id: z, query: zebra, expect: [git-workflow]}\n"
        "  - {id: pr, query: pull request, expect: [git-workflow]}\n",
    )
    code, out, err = run(capsys, "eval", cases, "--root", cli_project, "--min", "top1=0.9")
    assert code == 2
    assert "misses:" in out and out.endswith("gate failed\n")
    assert err == "AR9D4: top1 is 0.5000, below the minimum 0.9000\n"
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--min", "top1=0.9", "--format", "json")
    assert code == 2 and validate_eval_json(out)["gate_failures"] == [
        "AR9D4: top1 is 0.5000, below the minimum 0.9000"
    ]


def test_baseline_flips(cli_project, capsys):
    cases = write(
        cli_project / "cases.yaml",
        "version: 1\ncases:\n"
        "  - {id: a, query: pull request, expect: [git-workflow]}\n"
        "  - {id: b, query: zebra, expect: [git-workflow]}\n",
    )
    base = write(
        cli_project / "base.json",
        json.dumps(
            {
                "schema_version": 1,
                "k": 5,
                "mode": "lexical",
                "cases": [{"id": "a", "hit": True}, {"id": "b", "hit": True}],
            }
        ),
    )
    code, out, err = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base)
    assert code == 2 and "vs baseline: 1 regressed, 0 fixed" in out and "  regressed: b" in out
    assert "AR9D4: 1 case regressed against the baseline (max 0): b" in err
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base, "--max-flips", "1")
    assert code == 0 and "regressed: b" in out
    code, _, err = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base, "--k", "7")
    assert code == 1 and "k=5" in err and "k=7" in err


RANKED = ("version: 1\ncases:\n"
          "  - {id: a, query: pull request, expect: [git-workflow]}\n"
          "  - {id: c, query: branching pull request conventions for the staging service, expect: [deploy-staging]}\n")


def ranked_baseline(root, ranks):
    cases = [{"id": case_id, "hit": True, "rank": rank} for case_id, rank in ranks.items()]
    return write(root / "base.json", json.dumps({"schema_version": 1, "k": 5, "mode": "lexical", "cases": cases}))


def test_rank_changes_against_the_baseline_are_shown_and_can_be_gated(cli_project, capsys):
    cases = write(cli_project / "cases.yaml", RANKED)
    base = ranked_baseline(cli_project, {"a": 1, "c": 1})  # c ranks 2 now: a drop, not a flip
    code, out, err = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base)
    assert code == 0, err
    assert "vs baseline: 0 regressed, 0 fixed\n  rank dropped: c (1 -> 2)\n" in out
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base, "--format", "markdown")
    assert "| `c` | 1 | 2 | dropped |" in out
    code, out, err = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base, "--max-rank-drops", "0")
    assert code == 2
    assert "AR9D4: 1 case dropped in rank against the baseline (max 0): c (1 -> 2)" in err
    assert (f"hint: if the change is intended, save a new baseline: skillsift eval {cases} --mode lexical --k 5 "
            f"--output {base}") in err
    code, _, _ = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base, "--max-rank-drops", "1")
    assert code == 0
    code, _, err = run(capsys, "eval", cases, "--root", cli_project, "--max-rank-drops", "1")
    assert code == 1 and "--max-rank-drops needs --baseline" in err


def test_a_failed_flip_gate_names_the_command_that_refreshes_the_baseline(cli_project, capsys):
    cases = write(cli_project / "cases.yaml", "version: 1\ncases:\n  - {id: b, query: zebra, expect: [git-workflow]}\n")
    base = ranked_baseline(cli_project, {"b": 1})
    code, out, err = run(capsys, "eval", cases, "--root", cli_project, "--baseline", base)
    assert code == 2 and "  rank dropped: b (1 -> not retrieved)" in out
    assert err.splitlines()[-1] == ("hint: if the change is intended, save a new baseline: "
                                    f"skillsift eval {cases} --mode lexical --k 5 --output {base}")
    code, _, err = run(capsys, "eval", cases, "--root", cli_project, "--min", "top1=1")
    assert code == 2 and "save a new baseline" not in err  # a floor is not accepted by a new baseline


def test_output_then_baseline_round_trip(cli_project, capsys):
    cases = write(cli_project / "cases.yaml", THREE)
    result = cli_project / "out" / "result.json"
    result.parent.mkdir()
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--output", result, "--format", "json")
    assert code == 0
    assert result.read_text(encoding="utf-8") == out
    assert stat.S_IMODE(os.stat(result).st_mode) == 0o644
    assert [p.name for p in result.parent.iterdir()] == ["result.json"]  # no temporary file left
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--baseline", result, "--format", "json")
    assert code == 0 and validate_eval_json(out)["flips_vs_baseline"] == {"regressed": [], "fixed": []}


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--k", "101"], "--k must be between 1 and 100 (or 0 for the file's k), got 101"),
        (["--k", "-1"], "--k must not be negative"),
        (["--max-flips", "1"], "--max-flips needs --baseline"),
        (["--min", "top1"], '--min "top1": want metric=value pairs'),
        (["--min", "top1=2"], "value must be a number between 0 and 1"),
        (["--baseline", "missing.json"], "cannot read baseline"),
        (["--format", "xml"], "xml"),
        (
            ["--mode", "semantic"],
            '--mode "semantic": each mode must be lexical, hybrid or vector, or use all',
        ),
    ],
)
def test_flag_errors_exit_1(cli_project, capsys, monkeypatch, argv, needle):
    monkeypatch.chdir(cli_project)
    write(cli_project / "cases.yaml", THREE)
    code, out, err = run(capsys, "eval", "cases.yaml", "--root", cli_project, *argv)
    assert code == 1 and needle in err and out == ""


def test_invalid_cases_and_unknown_skill_exit_1(cli_project, capsys):
    code, out, err = run(capsys, "eval", write(cli_project / "bad.yaml", TEN_MISTAKES), "--root", cli_project)
    assert code == 1 and out == ""
    message = next(line for line in err.splitlines() if line.startswith("error: "))
    # ten mistakes in the file and, in the same round, the four skills the catalog does not hold
    assert message.count("; line ") == 13 and message.startswith(
        f"error: AR9D2: invalid cases file: {cli_project}"
    )
    assert message.count('expects unknown skill "a"') == 2 and 'avoids unknown skill "b"' in message
    assert f"{cli_project / 'bad.yaml'}:13: AR9D2 case 3: unknown key" in err  # file:line diagnostics for editors
    unknown = write(cli_project / "u.yaml", "version: 1\ncases:\n  - {id: a, query: q, expect: [ghost]}\n")
    code, _, err = run(capsys, "eval", unknown, "--root", cli_project)
    assert code == 1 and 'line 3: case "a" expects unknown skill "ghost"' in err
    code, _, err = run(capsys, "eval", cli_project / "missing.yaml", "--root", cli_project)
    assert code == 1 and "cannot read cases file" in err


def test_text_report_with_k_100(cli_project, capsys):
    cases = write(cli_project / "cases.yaml", THREE)
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--k", "100")
    assert code == 0
    rows = out.splitlines()[1:5]
    assert all(row[12].isdigit() and row[11] == " " for row in rows)
    for needle in ("by tag:", "paraphrase", "negatives (", "none"):
        assert needle in out


def test_vector_mode_without_index_exits_1(cli_project, capsys):
    write(cli_project / "cases.yaml", THREE)
    code, out, err = run(
        capsys, "eval", cli_project / "cases.yaml", "--root", cli_project, "--mode", "lexical,hybrid"
    )
    assert code == 1 and out == ""
    assert "error: lexical/hybrid evaluation needs an embedding index, and none is usable" in err
    assert "hint: Run 'skillsift index' first" in err


def test_junit_and_markdown_formats(cli_project, capsys):
    cases = write(
        cli_project / "search-cases.yaml",
        "version: 1\ncases:\n"
        "  - {id: z, query: zebra, expect: [git-workflow]}\n"
        "  - {id: pr, query: pull request, expect: [git-workflow]}\n"
        "  - {id: neg, query: weather}\n",
    )
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--format", "junit")
    assert code == 0
    root = ET.fromstring(out)
    assert (root.get("tests"), root.get("failures")) == ("3", "1")
    assert [c.get("name") for c in root.iter("testcase")] == ["z", "pr", "neg"]
    assert {c.get("classname") for c in root.iter("testcase")} == {"search-cases.lexical"}
    code, out, _ = run(capsys, "eval", cases, "--root", cli_project, "--format", "markdown")
    assert code == 0 and "| metric | lexical |" in out and "#### Misses (1 of 2, lexical)" in out


def test_duplicate_skill_names_warn_and_use_the_first(cli_project, capsys, skill_writer):
    skill_writer(cli_project, "git-workflow", "Zebra crossing rules", layout="skills")
    cases = write(
        cli_project / "cases.yaml", "version: 1\ncases:\n  - {id: z, query: zebra, expect: [git-workflow]}\n"
    )
    code, out, err = run(capsys, "eval", cases, "--root", cli_project)
    assert code == 0 and "warning:" in err and "git-workflow" in err
    assert "top1" in out


# -- non-lexical machinery through the command (a scripted ranker stands in for the index) ---------


class IndexedRanker(ScriptedRanker):
    def index_info(self):
        return {
            "model": "test",
            "dims": 5,
            "dtype": "float32",
            "rows": 3,
            "stale_items": 0,
            "missing_items": 0,
        }


def test_degraded_run_exits_1_and_writes_no_output(cli_project, capsys, monkeypatch):
    require_embed()  # without it the hint names the missing extra instead (test_ci_gate.py)
    import skillsift.evaluate.session as evaluation_module

    lexical = {
        "customer wants money back": [("refund-policy", 2.0)],
        "deploy to staging": [("deploy-staging", 2.0)],
        "weather tomorrow": [],
    }
    ranker = IndexedRanker(
        {"lexical": lexical, "hybrid": lexical}, degraded={("hybrid", "weather tomorrow"): "network_disabled"}
    )
    monkeypatch.setattr(evaluation_module, "open_ranker", lambda catalog, config, want: ranker)
    out_file = cli_project / "result.json"
    code, out, err = run(
        capsys,
        "eval",
        write(cli_project / "cases.yaml", THREE),
        "--root",
        cli_project,
        "--mode",
        "hybrid",
        "--output",
        out_file,
        "--min",
        "top1=1",
    )
    assert code == 1
    assert not out_file.exists()
    assert "index: test, 5 dims, float32, 3 rows (0 stale, 0 missing)" in out
    assert err.splitlines() == [
        "the embeddings were unavailable, so the result does not measure the requested ranking: "
        "hybrid: 1 case fell back to lexical (network_disabled)",
        "Check 'skillsift status' and the [embeddings] budget and network settings",
    ]


def test_hybrid_run_with_an_index_passes(cli_project, capsys, monkeypatch):
    import skillsift.evaluate.session as evaluation_module

    lexical = {
        "customer wants money back": [("refund-policy", 2.0)],
        "deploy to staging": [],
        "weather tomorrow": [],
    }
    hybrid = {
        **lexical,
        "deploy to staging": [("deploy-staging", 0.03)],
        "weather tomorrow": [("git-workflow", 0.1)],
    }
    sims = {
        ("hybrid", "customer wants money back"): 0.9,
        ("hybrid", "deploy to staging"): 0.8,
        ("hybrid", "weather tomorrow"): 0.2,
    }
    ranker = IndexedRanker({"lexical": lexical, "hybrid": hybrid}, top_sim=sims)
    monkeypatch.setattr(evaluation_module, "open_ranker", lambda catalog, config, want: ranker)
    out_file = cli_project / "result.json"
    code, out, err = run(
        capsys,
        "eval",
        write(cli_project / "cases.yaml", THREE),
        "--root",
        cli_project,
        "--mode",
        "hybrid,lexical",
        "--output",
        out_file,
        "--format",
        "json",
    )
    assert code == 0, err
    doc = validate_eval_json(out)
    assert doc["mode"] == "hybrid" and doc["index"]["rows"] == 3
    assert doc["paired_vs_lexical"]["hybrid"]["top1"]["diff"] == 0.5
    assert doc["calibration"] == {
        "mode": "hybrid",
        "min_sim": 0.5,
        "positives": 2,
        "positives_kept": 2,
        "negatives": 1,
        "negatives_abstained": 1,
        "rough": True,
    }
    assert json.loads(out_file.read_text(encoding="utf-8")) == doc
    code, out, _ = run(
        capsys, "eval", cli_project / "cases.yaml", "--root", cli_project, "--mode", "hybrid,lexical"
    )
    assert (
        "calibration (hybrid): vector_min_sim = 0.500 answers 2 of 2 positive cases and abstains on 1 of 1"
        in out
    )




@pytest.mark.skipif(
    not (ACME / "search-cases.yaml").is_file(), reason="examples/acme is not in this checkout"
)
def test_acme_example_in_every_format(capsys):
    cases = ACME / "search-cases.yaml"
    code, out, err = run(capsys, "eval", cases, "--root", ACME, "--format", "json")
    assert code == 0, err
    doc = validate_eval_json(out)
    assert doc["n"] > 0 and doc["n_negative"] > 0 and "ndcg_at_k" in doc["ci95"]
    code, out, _ = run(capsys, "eval", cases, "--root", ACME, "--format", "junit")
    root = ET.fromstring(out)
    assert int(root.get("tests")) == doc["n"] + doc["n_negative"]
    violated = sum(1 for c in doc["cases"] if c.get("avoid_violated") and c["hit"])
    violated += sum(1 for n in doc.get("negatives", []) if n.get("avoid_violated"))
    assert int(root.get("failures")) == len(doc["misses"]) + violated
    code, out, _ = run(capsys, "eval", cases, "--root", ACME, "--format", "markdown")
    assert code == 0 and out.count("\n| `") >= len(doc["misses"])


def test_a_broken_cases_file_names_its_unknown_skills_in_the_same_round(eval_env, capsys, tmp_path):
    cases = write(tmp_path / "c.yaml", "version: 1\ncases:\n  - id: a\n    query: ship it\n"
                                       "    expect: [deploy-stagng]\n    taggs: [x]\n")
    code, out, err = run(capsys, "eval", str(cases), "--root", eval_env)
    assert code == 1 and out == ""
    assert 'line 5: case "a" expects unknown skill "deploy-stagng" (did you mean "deploy-staging"?)' in err
    assert 'line 6: case "a": unknown key "taggs" (want id, query, expect, avoid, role, tags) (did you mean ' \
           '"tags"?)' in err


# -- the [validate] gates of the hooks and ci ------------------------------------------------------


def test_eval_applies_the_validate_gates_the_hooks_apply_and_says_so(eval_env, capsys):
    cases = write(eval_env / "search-cases.yaml", METRICS_CASES)
    write(eval_env / "skillsift.toml", '[validate]\nmin = "top1=0.9"\n')
    code, out, err = run(capsys, "eval", cases, "--root", eval_env)
    assert code == 2  # top1 0.5 is below the hooks' floor: eval no longer passes what the hooks fail
    assert "AR9D4" in err and "top1" in err
    assert out.splitlines()[-1] == ("the [validate] gates of the hooks and ci were applied: min top1=0.9")
    code, out, _ = run(capsys, "eval", cases, "--root", eval_env, "--format", "markdown")
    assert code == 2 and "**Result: gate failed**" in out and "gates of the hooks and ci were applied" in out
    # a run with its own gates, another mode or another cases file says the [validate] ones were not applied
    code, out, _ = run(capsys, "eval", cases, "--root", eval_env, "--min", "top1=0.1", "--format", "markdown")
    assert code == 0
    assert ("**Result: passed** · 4 cases (+1 negative) · k=2 · primary mode: lexical · the [validate] gates of "
            "the hooks and ci were not applied: this run sets its own (--min, --baseline)") in out
    other = write(eval_env / "more-cases.yaml", METRICS_CASES)
    code, out, _ = run(capsys, "eval", other, "--root", eval_env)
    assert code == 0 and out.splitlines()[-1].endswith("not applied: they gate search-cases.yaml, not this cases file")


def test_eval_without_validate_gates_prints_no_gate_line(eval_env, capsys):
    cases = write(eval_env / "search-cases.yaml", METRICS_CASES)
    code, out, _ = run(capsys, "eval", cases, "--root", eval_env)
    assert code == 0 and "[validate] gates" not in out


def test_a_regression_caused_by_a_skill_that_does_not_parse_proposes_no_new_baseline(eval_env, capsys):
    cases = write(eval_env / "search-cases.yaml", METRICS_CASES)
    assert run(capsys, "eval", cases, "--root", eval_env, "--output", eval_env / "base.json")[0] == 0
    write(eval_env / "skillsift.toml", '[validate]\nbaseline = "base.json"\n')
    skill = next(eval_env.rglob("refund-policy/SKILL.md"))
    skill.write_text(skill.read_text().replace("triggers:", "triggers: [", 1))  # a YAML typo
    code, out, err = run(capsys, "eval", cases, "--root", eval_env)
    assert code == 2 and "regressed against the baseline" in err
    assert "does not parse (SK001): fix the frontmatter first" in err and "save a new baseline" not in err


def test_quiet_is_one_result_line(capsys):
    code, out, err = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--quiet")
    assert code == 0, err
    assert out == "passed: 34 cases (+4 negative), k=5, mode lexical: top1 0.6176, mrr 0.6598\n"
    code, _out, err = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "-q", "--format", "json")
    assert code == 1 and "--quiet is the one-line text report" in err

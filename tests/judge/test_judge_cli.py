"""``skillsift judge`` with fake judge commands: answers, failures, the cache, the budget, -j, CI, egress."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema

from tests.judge.conftest import judge_argv, use_judge
from tests.support.cli import load_schema, run

SCHEMA = jsonschema.Draft202012Validator(load_schema("judge.v1.json"))


def judge(capsys, repo: Path, *flags) -> tuple[int, dict, str]:
    code, out, err = run(capsys, "judge", repo / "cases.yaml", "--root", repo, "--format", "json", *flags)
    doc = json.loads(out) if out.strip() else {}
    if doc:
        SCHEMA.validate(doc)
    return code, doc, err


def by_id(doc: dict) -> dict:
    return {case["id"]: case for case in doc["cases"]}


def calls_in(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_word_overlap_judge_answers_and_the_figures_follow(capsys, repo):
    use_judge("overlap.py")
    code, doc, err = judge(capsys, repo)
    assert code == 0, err
    cases = by_id(doc)
    assert cases["refund"]["agent_choice"] == "issue-refund" and cases["refund"]["agent"] == "chosen"
    assert cases["deploy"]["agent_choice"] == "deploy-staging"
    assert cases["bread"]["agent"] == "none" and cases["bread"]["agent_choice"] == ""
    assert doc["calls"] == 5 and doc["counts"]["answered"] == 5
    # the figures are counts over the rows the report lists
    rows = doc["cases"]
    positives = [r for r in rows if r["expected"]]
    agent_top1 = sum(r["agent_choice"] in r["expected"] for r in positives) / len(positives)
    agree = sum(r["agent_choice"] == r["ranker_first"] for r in rows) / len(rows)
    assert doc["figures"]["agent_top1"]["value"] == round(agent_top1, 4)
    assert doc["figures"]["agreement"]["value"] == round(agree, 4)
    assert doc["figures"]["agreement"]["n"] == 5 and doc["figures"]["agent_top1"]["n"] == 4
    low, high = doc["figures"]["agreement"]["ci95"]["low"], doc["figures"]["agreement"]["ci95"]["high"]
    assert 0 <= low <= doc["figures"]["agreement"]["value"] <= high <= 1
    for d in doc["disagreements"]:
        assert d["agent_entry"].startswith("- ") or d["agent_entry"] in ("(nothing)",)


def test_a_judge_that_always_answers_none(capsys, repo):
    use_judge("none.py")
    code, doc, _ = judge(capsys, repo)
    assert code == 0
    assert {c["agent"] for c in doc["cases"]} == {"none"}
    assert doc["figures"]["agent_top1"]["value"] == 0.0
    # none agrees only where the ranker ranked nothing either
    expected = sum(1 for c in doc["cases"] if c["ranker_first"] == "") / 5
    assert doc["figures"]["agreement"]["value"] == round(expected, 4)


def test_a_name_not_in_the_listing_is_no_choice_and_is_kept(capsys, repo):
    use_judge("unknown.py")
    code, doc, _ = judge(capsys, repo)
    assert code == 0
    for case in doc["cases"]:
        assert case["agent"] == "no-choice"
        assert case["reason"] == 'answered "made-up-skill", which the listing does not hold'
    assert doc["counts"]["answered"] == 0 and doc["counts"]["no_choice"] == 5
    assert doc["figures"]["agent_top1"] == {"value": None, "n": 0, "ci95": None}
    # the agent's own reply is cached: the next run asks nothing
    code, again, _ = judge(capsys, repo)
    assert again["calls"] == 0 and {c["source"] for c in again["cases"]} == {"cache"}


def test_garbage_is_no_choice_with_its_reason(capsys, repo):
    use_judge("garbage.py")
    code, doc, _ = judge(capsys, repo)
    assert code == 0
    assert {c["reason"] for c in doc["cases"]} == {"the answer is not UTF-8 text"}


def test_a_judge_that_sleeps_past_the_timeout(capsys, repo):
    use_judge("sleeper.py", 30)
    code, doc, _ = judge(capsys, repo, "--timeout", "0.5", "-j", "5")
    assert code == 0
    assert {c["reason"] for c in doc["cases"]} == {"timeout: no answer in 0.5s"}
    assert not (repo / ".skillsift" / "judge-cache.jsonl").exists()  # a failed call is never cached


def test_a_judge_that_exits_1(capsys, repo):
    use_judge("fails.py")
    code, doc, _ = judge(capsys, repo)
    assert code == 0
    assert {c["reason"] for c in doc["cases"]} == {"the judge command failed: exit status 1: agent: not logged in"}
    assert doc["counts"]["no_choice"] == 5


def test_max_seconds_stops_starting_calls(capsys, repo):
    use_judge("sleeper.py", 30)
    code, doc, _ = judge(capsys, repo, "--max-seconds", "0.5")
    assert code == 0
    reasons = [c["reason"] for c in doc["cases"]]
    assert reasons[0].startswith("timeout: --max-seconds reached")
    assert reasons[1:] == ["not asked: --max-seconds 0.5 reached"] * 4
    assert doc["calls"] == 1 and any("--max-seconds 0.5 reached: 4 cases not asked" in x for x in doc["limits"])


def test_the_cache_replays_with_zero_calls_and_a_listing_change_asks_again(capsys, repo, tmp_path):
    counter = tmp_path / "calls.txt"
    use_judge("counter.py", counter)
    _, first, _ = judge(capsys, repo)
    assert calls_in(counter) == 5 and first["calls"] == 5
    cache = repo / ".skillsift" / "judge-cache.jsonl"
    lines = cache.read_text().splitlines()
    assert len(lines) == 5 and lines == sorted(lines, key=lambda line: json.loads(line)["key"])
    _, second, _ = judge(capsys, repo)
    assert calls_in(counter) == 5 and second["calls"] == 0
    assert [c["agent_choice"] for c in second["cases"]] == [c["agent_choice"] for c in first["cases"]]
    assert second["listing_digest"] == first["listing_digest"]
    # one description edited: the listing's digest changes, so every case is a new question
    skill = repo / ".claude" / "skills" / "git-workflow" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Branching and", "Git branching and"))
    _, third, _ = judge(capsys, repo)
    assert third["listing_digest"] != first["listing_digest"]
    assert calls_in(counter) == 10 and third["calls"] == 5
    assert len(cache.read_text().splitlines()) == 10


def test_the_budget_stops_at_n_calls_and_says_so(capsys, repo, tmp_path):
    counter = tmp_path / "calls.txt"
    use_judge("counter.py", counter)
    code, doc, _ = judge(capsys, repo, "--budget", "2")
    assert code == 0 and calls_in(counter) == 2 and doc["calls"] == 2
    assert doc["limits"] == ["the budget of 2 calls is spent: 3 cases not asked"]
    assert [c["source"] for c in doc["cases"]] == ["asked", "asked", "not-asked", "not-asked", "not-asked"]
    assert doc["counts"]["missing"] == 3
    code, out, _ = run(capsys, "judge", repo / "cases.yaml", "--root", repo, "--budget", "1")
    assert "limit: the budget of 1 call is spent: 2 cases not asked" in out
    assert calls_in(counter) == 3  # the two answers already paid for came from the cache


def test_concurrency_gives_the_results_of_one_job(capsys, repo, tmp_path):
    use_judge("overlap.py", extra='cache = "off"\n')
    _, one, _ = judge(capsys, repo, "-j", "1")
    _, four, _ = judge(capsys, repo, "-j", "4")
    assert four["calls"] == one["calls"] == 5
    assert json.dumps(four, sort_keys=True) == json.dumps(one, sort_keys=True)


def test_in_ci_the_cache_is_read_and_nothing_is_fetched(capsys, repo, tmp_path, monkeypatch):
    counter = tmp_path / "calls.txt"
    use_judge("counter.py", counter)
    monkeypatch.setenv("CI", "true")
    code, doc, _ = judge(capsys, repo)
    assert code == 0 and calls_in(counter) == 0 and doc["calls"] == 0
    assert {c["source"] for c in doc["cases"]} == {"missing"}
    assert doc["limits"][0].startswith("5 answers missing, not fetched: cache only: CI=true")
    code, doc, _ = judge(capsys, repo, "--fetch")  # the workflow allows it
    assert calls_in(counter) == 5 and doc["calls"] == 5
    code, doc, _ = judge(capsys, repo)
    assert doc["calls"] == 0 and {c["source"] for c in doc["cases"]} == {"cache"}


def test_the_network_gate_applies(capsys, repo, tmp_path, monkeypatch):
    counter = tmp_path / "calls.txt"
    use_judge("counter.py", counter)
    monkeypatch.delenv("SKILLSIFT_ALLOW_NETWORK")
    code, doc, _ = judge(capsys, repo)
    assert code == 0 and calls_in(counter) == 0
    assert "the network is disabled" in doc["limits"][0]


def test_a_repository_command_runs_only_with_allow_exec(capsys, repo, tmp_path):
    counter = tmp_path / "calls.txt"
    (repo / "skillsift.toml").write_text(f"[judge]\ncommand = {json.dumps(judge_argv('counter.py', counter))}\n")
    code, doc, _ = judge(capsys, repo)
    assert code == 0 and calls_in(counter) == 0
    assert "runs only with --allow-exec" in doc["limits"][0]
    code, doc, _ = judge(capsys, repo, "--allow-exec")
    assert calls_in(counter) == 5 and doc["counts"]["answered"] == 5


def test_no_judge_configured_is_an_error(capsys, repo):
    code, out, err = run(capsys, "judge", repo / "cases.yaml", "--root", repo)
    assert code == 1 and out == ""
    assert "no judge is configured: [judge] command is not set" in err


def test_the_prompt_sent_is_exactly_the_listing_the_request_and_the_instruction(capsys, repo, tmp_path):
    from skillsift.judge.prompt import TEMPLATE
    from tests.conftest import write_skill
    from tests.support.secret_samples import planted

    token = planted()["github-token"]
    write_skill(repo, "secret-helper", f"Call the API with token {token} for reports")
    cases = (repo / "cases.yaml").read_text() + f"  - id: leaky\n    query: use {token} to fetch\n    expect: []\n"
    (repo / "cases.yaml").write_text(cases)
    sent = tmp_path / "sent"
    use_judge("echo.py", sent)
    code, doc, _ = judge(capsys, repo)
    assert code == 0
    prompts = sorted(p.read_text(encoding="utf-8") for p in sent.iterdir())
    assert len(prompts) == 5  # the leaky request was never sent
    listing = "\n".join(["- deploy-staging: Deploy a service to the staging cluster",
                         "- git-workflow: Branching and pull request conventions",
                         "- issue-refund: Refund a customer order payment from the billing console"])
    queries = ["refund the customer order", "deploy to the staging cluster", "branching conventions for a pull request",
               "customer wants money back for the order", "bake sourdough bread"]
    assert prompts == sorted(TEMPLATE.format(listing=listing, request=q) for q in queries)
    assert all(token not in p and "secret-helper" not in p for p in prompts)
    assert doc["withheld"] == [{"name": "secret-helper", "path": ".claude/skills/secret-helper/SKILL.md",
                                "kind": "github-token"}]
    leaky = by_id(doc)["leaky"]
    assert leaky["source"] == "withheld" and leaky["reason"].startswith("request withheld")
    # the dry run prints the same prompt and sends nothing
    for p in sent.iterdir():
        p.unlink()
    (repo / ".skillsift" / "judge-cache.jsonl").unlink()
    code, dry, _ = judge(capsys, repo, "--dry-run")
    assert code == 0 and not list(sent.iterdir()) and dry["dry_run"] is True
    assert sorted(p["prompt"] for p in dry["prompts"]) == prompts
    code, out, _ = run(capsys, "judge", repo / "cases.yaml", "--root", repo, "--dry-run")
    assert out.startswith("dry run: 5 calls would be made to ")
    assert TEMPLATE.format(listing=listing, request=queries[0]).rstrip("\n") in out
    assert token not in out


def test_eval_judge_adds_the_report_to_text_json_and_html(capsys, repo, tmp_path):
    use_judge("overlap.py")
    code, out, err = run(capsys, "eval", repo / "cases.yaml", "--root", repo, "--judge")
    assert code == 0, err
    assert "\njudge: " in out and "agent top1" in out and "agreement" in out
    code, out, _ = run(capsys, "eval", repo / "cases.yaml", "--root", repo, "--judge", "--format", "json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(load_schema("search-eval.v1.json")).validate(doc)
    SCHEMA.validate(doc["judge"])
    assert doc["judge"]["calls"] == 0  # the first run's answers
    html = tmp_path / "r.html"
    code, _, _ = run(capsys, "eval", repo / "cases.yaml", "--root", repo, "--judge", "--format", "html",
                     "--output", html)
    page = html.read_text()
    assert code == 0 and "<th>agent</th>" in page
    code, _, err = run(capsys, "eval", repo / "cases.yaml", "--root", repo, "--judge", "--why")
    assert code == 1 and "--judge reports in text, json or html" in err


def test_the_listing_sent_is_the_listing_of_skillsift_list_cuts_included(capsys, repo):
    """With a small context window Claude Code's budget drops descriptions: the prompt holds those entries as
    ``- name`` and the others as ``- name: text``, exactly the states `skillsift list` reports."""
    from tests.conftest import write_skill

    for i in range(12):
        write_skill(repo, f"extra-{i:02d}", f"Extra skill number {i} with a description long enough to count")
    use_judge("none.py")
    code, out, _ = run(capsys, "list", "--agent", "claude-code", "--context-window", "20000", "--root", repo,
                       "--format", "json")
    listed = json.loads(out)["skills"]
    states = {s["name"]: s["listed"] for s in listed}
    assert "name-only" in states.values() and "full" in states.values()
    code, dry, _ = judge(capsys, repo, "--dry-run", "--context-window", "20000")
    prompt = dry["prompts"][0]["prompt"]
    lines = prompt.split("<skills>\n", 1)[1].split("\n</skills>", 1)[0].splitlines()
    assert [line[2:].split(":", 1)[0] for line in lines] == [s["name"] for s in listed
                                                             if s["listed"] in ("full", "truncated", "name-only")]
    for line in lines:
        name = line[2:].split(":", 1)[0]
        assert (line == f"- {name}") == (states[name] == "name-only"), line


def test_a_failing_agent_never_repeats_a_secret_it_printed(capsys, repo, tmp_path):
    from tests.support.secret_samples import planted

    script = tmp_path / "leaky.py"
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stderr.write('token {planted()['github-token']}\\n')\n"
                      "sys.exit(2)\n")
    from tests.support.cli import set_user_config

    set_user_config(f"[judge]\ncommand = {json.dumps([sys.executable, str(script)])}\n")
    code, doc, _ = judge(capsys, repo)
    reasons = {c["reason"] for c in doc["cases"]}
    assert reasons == {"the judge command failed: exit status 2: (its last line of stderr looks like it holds a "
                       "secret and is not shown)"}

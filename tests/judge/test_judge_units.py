"""The judge's pieces alone: the strict answer reader, the cache file, the key, the runner's bounds."""

from __future__ import annotations

import json
import os
import sys

import pytest

from skillsift.judge.answer import CHOSEN, NO_CHOICE, NONE, parse_answer
from skillsift.judge.cache import REPOSITORY_FILE, open_cache
from skillsift.judge.prompt import TEMPLATE_VERSION, cache_key
from skillsift.judge.runner import Call, ask_all, run_command

NAMES = ("deploy-staging", "git-workflow", "issue-refund")


@pytest.mark.parametrize("stdout, status, choice", [
    (b"issue-refund\n", CHOSEN, "issue-refund"),
    (b"  `git-workflow`  \n", CHOSEN, "git-workflow"),
    (b'"deploy-staging"', CHOSEN, "deploy-staging"),
    (b"None\n", NONE, ""),
    (b"NONE", NONE, ""),
    (json.dumps({"type": "result", "result": "issue-refund"}).encode(), CHOSEN, "issue-refund"),
    (json.dumps({"response": "none"}).encode(), NONE, ""),
])
def test_valid_answers(stdout, status, choice):
    answer = parse_answer(stdout, NAMES)
    assert (answer.status, answer.choice, answer.reason) == (status, choice, "")


@pytest.mark.parametrize("stdout, reason", [
    (b"", "empty answer"),
    (b"   \n\n", "empty answer"),
    (b"Issue-Refund", 'answered "Issue-Refund", which the listing does not hold'),
    (b"issue-refund.", 'answered "issue-refund.", which the listing does not hold'),
    (b"I would use issue-refund", "the answer is not one skill name or none"),
    (b"issue-refund\ngit-workflow", "the answer is more than one line"),
    (b"\xff\xfe", "the answer is not UTF-8 text"),
    (b"[1, 2]", "the answer is not one skill name or none"),
    (json.dumps({"result": 3}).encode(), "the answer is a JSON object without a result or response text"),
    (json.dumps({"is_error": True, "result": "rate limited"}).encode(), "the agent reported an error: rate limited"),
    (b"{not json", "the answer is not one skill name or none"),
    (b"x y" * 2000, "the answer is not one skill name or none"),
])
def test_everything_else_is_no_choice_with_its_reason(stdout, reason):
    answer = parse_answer(stdout, NAMES)
    assert answer.status == NO_CHOICE and answer.choice == "" and answer.reason == reason
    assert len(answer.text) <= 200


def test_the_key_covers_command_agent_template_listing_and_request():
    base = cache_key(["claude", "-p"], "claude-code", "d" * 64, "deploy it")
    assert len(base) == 64
    assert cache_key(["claude", "-p"], "claude-code", "d" * 64, "  deploy it \n") == base  # the request as sent
    for other in (cache_key(["claude"], "claude-code", "d" * 64, "deploy it"),
                  cache_key(["claude", "-p"], "codex", "d" * 64, "deploy it"),
                  cache_key(["claude", "-p"], "claude-code", "e" * 64, "deploy it"),
                  cache_key(["claude", "-p"], "claude-code", "d" * 64, "deploy that"),
                  cache_key(["claude -p"], "claude-code", "d" * 64, "deploy it")):
        assert other != base
    assert TEMPLATE_VERSION == "judge-prompt.v1"


def test_the_cache_file_skips_lines_that_are_not_answers(tmp_path):
    path = tmp_path / REPOSITORY_FILE
    path.parent.mkdir(parents=True)
    good = {"key": "a" * 64, "case": "c", "request": "r", "agent": "claude-code", "status": "chosen",
            "choice": "issue-refund", "reason": "", "answer": "issue-refund"}
    lines = [json.dumps(good), "not json", json.dumps({**good, "key": "short"}),
             json.dumps({**good, "key": "b" * 64, "status": "chosen", "choice": ""}),
             json.dumps({**good, "key": "c" * 64, "status": "maybe"}), "[1]", "", json.dumps("x")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cache = open_cache(tmp_path, "repository")
    assert list(cache.records) == ["a" * 64] and cache.skipped == 6
    assert cache.get("a" * 64).choice == "issue-refund" and cache.get("b" * 64) is None


def test_a_cache_that_links_outside_the_repository_is_neither_read_nor_written(tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text(json.dumps({"key": "a" * 64, "status": "none", "choice": "", "reason": "", "answer": "none"})
                       + "\n")
    repo = tmp_path / "repo"
    (repo / ".skillsift").mkdir(parents=True)
    os.symlink(outside, repo / REPOSITORY_FILE)
    cache = open_cache(repo, "repository")
    assert cache.records == {} and cache.path is None and "links outside the repository" in cache.problem
    assert cache.save() == ""


def test_the_user_cache_lives_in_the_user_cache_folder(tmp_path, cache_dir):
    from skillsift.judge.answer import Answer

    cache = open_cache(tmp_path, "user")
    cache.put("a" * 64, Answer(NONE, text="none"), case="c", request="r", agent="codex")
    assert cache.save() == ""
    files = list((cache_dir / "judge").iterdir())
    assert len(files) == 1 and files[0].suffix == ".jsonl"
    assert open_cache(tmp_path, "user").get("a" * 64).status == NONE
    assert not (tmp_path / ".skillsift").exists()


def test_a_program_that_floods_its_output_is_stopped(tmp_path):
    script = tmp_path / "flood.py"
    script.write_text("import sys\nsys.stdin.read()\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
    stdout, reason = run_command([sys.executable, str(script)], "prompt", root=str(tmp_path),
                                 env=dict(os.environ), timeout=30, max_stdout=100_000)
    assert stdout is None and reason == "the judge command wrote more than 100000 bytes"


def test_a_missing_program_is_a_reason_not_a_crash(tmp_path):
    stdout, reason = run_command([str(tmp_path / "no-such-agent")], "p", root=str(tmp_path), env={}, timeout=5)
    assert stdout is None and reason.startswith("the judge command no-such-agent could not be started")


def test_ask_all_asks_each_key_once_in_order_within_the_budget():
    from skillsift.judge.answer import Answer

    asked: list[str] = []

    def ask(call, _left):
        asked.append(call.key)
        return Answer(NONE, text="none")

    calls = [Call(k, "p", NAMES) for k in ("k1", "k2", "k1", "k3", "k4")]
    done = ask_all(calls, ask, budget=2)
    assert asked == ["k1", "k2"] and done.made == 2 and done.over_budget == ("k3", "k4")
    asked.clear()
    assert ask_all(calls, ask, jobs=3).made == 4 and sorted(asked) == ["k1", "k2", "k3", "k4"]


def test_a_cached_choice_the_listing_does_not_hold_is_not_trusted(capsys, repo, tmp_path):
    """A hand-edited cache line cannot make the agent choose a skill its listing never showed."""
    from tests.judge.conftest import use_judge
    from tests.support.cli import run

    counter = tmp_path / "calls.txt"
    use_judge("counter.py", counter)
    assert run(capsys, "judge", repo / "cases.yaml", "--root", repo)[0] == 0
    path = repo / REPOSITORY_FILE
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0].update(status="chosen", choice="not-a-listed-skill", answer="not-a-listed-skill")
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, _ = run(capsys, "judge", repo / "cases.yaml", "--root", repo, "--format", "json")
    doc = json.loads(out)
    assert doc["calls"] == 1 and "not-a-listed-skill" not in out

"""``run_eval``: one ``skillsift eval`` run as data; messages reach ``notify`` in order, nothing is printed."""

from __future__ import annotations

import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.usecases.project import Message
from skillsift.usecases.run_eval import EvalRequest, run_eval
from tests.conftest import write_skill


def cases_file(root, expected: str = "refund-policy") -> str:
    path = root / "cases.yaml"
    path.write_text("version: 1\ncases:\n  - id: money\n    query: customer wants money back\n"
                    f"    expect: [{expected}]\n", encoding="utf-8")
    return str(path)


def test_messages_come_in_order_and_nothing_is_printed(cli_project, capsys):
    broken = cli_project / ".claude" / "skills" / "broken" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"---\nname: \xff\n---\n")
    write_skill(cli_project, "with-examples", "Wrap a gift", extra='examples:\n  - "wrap the present"')
    told: list[Message] = []
    outcome = run_eval(EvalRequest(cases=cases_file(cli_project), root=str(cli_project), from_skills=True),
                       notify=told.append)
    assert capsys.readouterr() == ("", "")
    assert told[0].severity == "warning" and "broken/SKILL.md" in told[0].text
    assert told[-1] == Message("", "from-skills: 1 case derived, 0 skipped (id taken)")
    assert outcome.result.n == 2 and not outcome.failures and not outcome.degraded and outcome.hybrid_hint


def test_quiet_keeps_the_warnings_and_drops_the_summary(cli_project):
    (cli_project / "skillsift.toml").write_text("[search]\nlog_queries = true\n", encoding="utf-8")  # a note
    told: list[Message] = []
    run_eval(EvalRequest(cases=cases_file(cli_project), root=str(cli_project), from_skills=True, quiet=True),
             notify=told.append)
    assert told == []


def test_a_failed_gate_is_data_with_its_hint(cli_project):
    outcome = run_eval(EvalRequest(cases=cases_file(cli_project, "git-workflow"), root=str(cli_project),
                                   min_spec="top1=1"), notify=lambda _m: None)
    assert outcome.failures and "top1" in outcome.failures[0] and outcome.hint == ""


@pytest.mark.parametrize(("request_", "message"), [
    (EvalRequest(), "eval needs a cases file"),
    (EvalRequest(cases="c.yaml", why=True, fmt="junit"), "--why works with --format text or json"),
    (EvalRequest(cases="c.yaml", quiet=True, fmt="json"), "--quiet is the one-line text report"),
    (EvalRequest(cases="c.yaml", max_flips=1), "--max-flips needs --baseline"),
    (EvalRequest(cases="c.yaml", why=True, view="all"), "--why explains one view"),
])
def test_flags_that_do_not_go_together_stop_before_anything_is_read(tmp_path, request_, message):
    told: list[Message] = []
    with pytest.raises(SkillsiftError, match=message):
        run_eval(EvalRequest(**{**vars(request_), "root": str(tmp_path / "missing")}), notify=told.append)
    assert told == []

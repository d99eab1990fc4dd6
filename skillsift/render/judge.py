"""What ``skillsift judge`` (and ``eval --judge``) prints: the agent against the ranker, or the dry run.

The ``judge`` family of the renderer registry; the value is a
:class:`~skillsift.usecases.judge_run.JudgeRun` (docs/judge.md, "The report").
"""

from __future__ import annotations

from ..words import plural
from .sanitise import json_text, plain, plain_lines


def judge_document(run) -> dict:
    """The ``judge.v1`` document (skillsift/schemas/judge.v1.json)."""
    doc = run.report.to_dict()
    doc["dry_run"] = bool(run.dry_run)
    doc["prompts"] = [{"case": p.case, "key": p.key, "prompt": p.prompt} for p in run.to_ask] if run.dry_run else []
    return doc


def render_judge_json(run) -> str:
    return json_text(judge_document(run))


def _figure(label: str, fig) -> str:
    if fig.value is None:
        return f"{label:<13} not measured (no answered case)"
    return f"{label:<13} {fig.value:.4f}  [{fig.low:.4f}, {fig.high:.4f}]  n={fig.n}"


def _header(report) -> list[str]:
    counts = report.counts()
    lines = [f"judge: {report.command} as {report.agent} ({report.template}); ranker: {report.mode or 'lexical'}, "
             f"{report.view} view"]
    parts = [plural(counts["cases"], "case"), f"{counts['answered']} answered"]
    if counts["no_choice"]:
        parts.append(f"{counts['no_choice']} no choice")
    if counts["missing"]:
        parts.append(f"{counts['missing']} without an answer")
    if counts["withheld_requests"]:
        parts.append(f"{counts['withheld_requests']} withheld")
    lines.append(f"{', '.join(parts)}; {plural(report.calls, 'call')} made; answers kept in {report.cache}")
    for skill in report.withheld:
        lines.append(f"withheld from the listing sent: {skill['name']} ({skill['path']}): it looks like it holds a "
                     f"secret ({skill['kind']})")
    lines += [f"limit: {limit}" for limit in report.limits]
    return lines


def judge_section(report) -> str:
    """The report as text: header, one row per case, the figures, the disagreements."""
    lines = _header(report)
    width = max([len(plain(r.id)) for r in report.rows] + [4])
    first = max([len(plain(r.ranker_first)) for r in report.rows] + [12])
    lines += ["", f"{'CASE':<{width}}  {'RANKER FIRST':<{first}}  AGENT"]
    for row in report.rows:
        if row.answer.answered:
            agent = row.agent_choice or "none"
        else:
            agent = f"no choice: {row.answer.reason}"
        lines.append(f"{plain(row.id):<{width}}  {plain(row.ranker_first or '-'):<{first}}  {plain(agent)}")
    figures = report.figures()
    lines += ["", _figure("agent top1", figures["agent_top1"]), _figure("ranker top1", figures["ranker_top1"]),
              _figure("agreement", figures["agreement"])]
    diff = report.paired()
    if diff is not None:
        lines.append(f"{'agent-ranker':<13} {diff['diff']:+.4f}  [{diff['low']:+.4f}, {diff['high']:+.4f}]  "
                     "(top1, paired)")
    disagreements = report.disagreements()
    if disagreements:
        lines += ["", f"disagreements ({len(disagreements)}):"]
        for row in disagreements:
            lines.append(f"  {plain(row.id)}: {plain(row.query)}")
            lines.append(f"    ranker: {plain(report.entry(row.ranker_first))}")
            lines.append(f"    agent:  {plain(report.entry(row.agent_choice) if row.agent_choice else 'none')}")
    return "\n".join(lines) + "\n"


def dry_run_text(run) -> str:
    report = run.report
    lines = [f"dry run: {plural(len(run.to_ask), 'call')} would be made to {report.command} as {report.agent} "
             f"({report.template}); {report.counts()['cases'] - len(run.to_ask)} cases answered by {report.cache} "
             "or withheld; nothing was sent"]
    lines += [f"withheld from the listing sent: {s['name']} ({s['path']}): it looks like it holds a secret "
              f"({s['kind']})" for s in report.withheld]
    for row in report.rows:
        if row.source == "withheld":
            lines.append(f"withheld: case {row.id}: {row.answer.reason}")
    if run.to_ask:
        first = run.to_ask[0]
        lines += [f"--- the prompt of case {first.case}, sent on the command's stdin ---", first.prompt.rstrip("\n"),
                  "--- end of prompt ---"]
        if len(run.to_ask) > 1:
            lines.append("the other prompts differ only in the request (--format json lists each in full):")
            rows = {row.id: row for row in report.rows}
            lines += [f"  {p.case}: {rows[p.case].query.strip()}" for p in run.to_ask[1:]]
    return "\n".join(lines) + "\n"


def render_judge_text(run) -> str:
    return plain_lines(dry_run_text(run) if run.dry_run else judge_section(run.report))

"""The Markdown report of a ``skillsift ci`` run (the job summary), and its size cap (pure).

Order: the verdict, what was compared, the metrics base vs head with their intervals and
the paired difference, the failed checks, the regressed and fixed cases, the other rank
changes, the validation findings.  Nothing depends on the time or on where the files sit,
so the same run always renders the same text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..evaluate.intervals import bootstrap
from ..words import plural
from .evaluation import _cell, _code

if TYPE_CHECKING:  # the run record of ``skillsift ci``; rendering needs only its attributes
    from ..evaluate.compare import RankChange
    from ..evaluate.outcomes import Side
    from ..evaluate.run import EvalResult
    from ..evaluate.verdict import CiRun

SUMMARY_LIMIT = 1024 * 1024  # GitHub keeps at most 1 MiB of one step's summary
SUMMARY_ROWS = 100  # rows per table in the job summary; the full report has them all
QUERY_CHARS = 160
_LABELS = {"top1": "top1", "recall_at_k": "recall@{k}", "hit_at_k": "hit@{k}", "mrr": "mrr",
           "ndcg_at_k": "ndcg@{k}"}
TRUNCATED_NOTE = ("> **Note:** this summary was cut to {kept:,} of {total:,} bytes: GitHub keeps at most "
                  "1 MiB of a step's summary. The full report is in the file named by the action's "
                  "`report-path` output (locally: `skillsift ci --summary FILE`).\n")

SHORT_NOTE = "> **Note:** the skillsift report did not fit in the summary; see the action's `report-path` output.\n"


def _short(text: str, limit: int = QUERY_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _rank(rank: int | None) -> str:
    return "not retrieved" if rank is None else str(rank)


def _first(name: str) -> str:
    return _code(name) if name else "nothing"


def _summary_lines(run: CiRun, add) -> None:
    """The title, an error, the scope of the head, the change summaries and the notes."""
    add(f"## skillsift ci · {_cell(run.verdict())}")
    add("")
    if run.error:
        add(f"> **Error:** {_cell(run.error)}")
        if run.error_hint:
            add(f"> {_cell(run.error_hint)}")
        add("")
    head = run.head
    if head is not None:
        add(_scope_line(run, head))
        add("")
        if run.comparison is not None:
            add(f"**Ranking against the {run.base_word}:** {run.change_summary()}")
            add("")
        if run.judge_summary():  # beside the ranker's flips: the agent's own (docs/judge.md)
            add(f"**Agent's choice (judge) against the {run.base_word}:** {run.judge_summary()}")
            add("")
    for note in run.notes:
        add(f"> **Note:** {_cell(note)}")
        add("")


def _check_lines(run: CiRun, add) -> None:
    """The failed checks, then the passed ones."""
    failures = run.failures()
    if failures:
        add("### Failed checks")
        add("")
        for failure in failures:
            add(f"- {_cell(failure)}")
        add("")
    passed = [(name, detail) for name, ok, detail in run.checks() if ok]
    if passed:
        add("### Passed checks")
        add("")
        for name, detail in passed:
            add(f"- {_cell(name)}: {_cell(detail)}")
        add("")


def _comparison_lines(run: CiRun, c, add, max_rows: int | None) -> None:
    """The cases that regressed, were fixed or moved against the base, and those not compared."""
    if c.regressed:
        add(f"### Regressed ({len(c.regressed)})")
        add("")
        add(f"Found in the top {c.head.k} at the {run.base_word}, no longer in the head.")
        add("")
        _change_table(c.regressed, add, max_rows, now_first=True)
    if c.fixed:
        add(f"### Fixed ({len(c.fixed)})")
        add("")
        _change_table(c.fixed, add, max_rows)
    if c.moved:
        add(f"### Other rank changes ({len(c.moved)})")
        add("")
        _change_table(c.moved, add, max_rows, direction=True)
    if c.added or c.removed:
        parts = []
        if c.added:
            parts.append(f"{plural(len(c.added), 'case')} only in the head")
        if c.removed:
            parts.append(f"{plural(len(c.removed), 'case')} only in the {run.base_word}")
        add(f"_Not compared: {', '.join(parts)}._")
        add("")


def render_markdown(run: CiRun, *, max_rows: int | None = None) -> str:
    """The report; ``max_rows`` caps each case table (the job summary), None keeps every row."""
    out: list[str] = []
    add = out.append
    _summary_lines(run, add)
    head = run.head
    if head is not None:
        _metrics_table(run, add)
    _check_lines(run, add)
    _gate_changes(run, add, max_rows)
    c = run.comparison
    if c is not None:
        _comparison_lines(run, c, add, max_rows)
    _findings(run, add, max_rows)
    if head is not None and len(head.modes) > 1:
        _other_modes(run, head, add)
    if c is not None and run.base_word == "base":
        add("_The base commit was evaluated with the head's config and cases file, so case ids line up._")
        add("")
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def _scope_line(run: CiRun, head: EvalResult) -> str:
    modes = ", ".join(head.report_modes())
    text = (f"Cases {_code(run.cases_path or 'cases')} · {plural(head.n, 'case')} (+{head.n_negative} negative) · "
            f"k={run.k} · mode {modes}")
    if run.comparison is not None:
        text += f" · head compared with {run.base_label}"
    return text


def _cells(side: Side, keys: list[str]) -> dict[str, str]:
    values = side.metrics()
    intervals = bootstrap(side.series())
    out = {}
    for key in keys:
        if key not in values:
            out[key] = "–"
            continue
        iv = intervals.get(key)
        out[key] = f"{values[key]:.4f}" + (f" ({iv.low:.2f}–{iv.high:.2f})" if iv is not None else "")
    return out


def _metrics_table(run: CiRun, add) -> None:
    c = run.comparison
    head_side = c.head if c is not None else None
    if head_side is None:
        head_side = run.head_side()
    keys = head_side.metric_keys()
    if c is not None:
        keys += [k for k in c.base.metric_keys() if k not in keys]
        keys = [k for k in _LABELS if k in keys]
    if not keys:
        add("_No positive case to measure._")
        add("")
        return
    head_cells = _cells(head_side, keys)
    if c is None:
        add("| metric | head |")
        add("| --- | ---: |")
        for key in keys:
            add(f"| {_LABELS[key].format(k=run.k)} | {head_cells[key]} |")
    else:
        base_cells = _cells(c.base, keys)
        add(f"| metric | {run.base_word} | head | head − {run.base_word} | 95% interval | what it means |")
        add("| --- | ---: | ---: | ---: | --- | --- |")
        for key in keys:
            d = c.paired.get(key)
            if d is None:
                diff = interval = real = "–"
            else:
                diff, interval = f"{d.diff:+.4f}", f"{d.low:+.4f} to {d.high:+.4f}"
                real = _meaning(d)
            add(f"| {_LABELS[key].format(k=run.k)} | {base_cells[key]} | {head_cells[key]} | {diff} | {interval} "
                f"| {real} |")
    add("")
    tail = ""
    if c is not None:
        tail = (f" head − {run.base_word} is paired over the {plural(c.common, 'case')} in both runs. "
                "*Better* or *worse*: the whole interval is on one side of 0. *Could be chance*: the interval "
                "includes 0, so on this many cases the difference cannot be told from noise. The checks "
                "(regressed cases, floors) are decided on their own, not by this column.")
    add(f"_Values with 95% bootstrap intervals.{tail}_")
    add("")


def _meaning(d) -> str:
    """The paired difference in words: a reviewer reads the column, not the interval."""
    if d.low > 0:
        return "**better**"
    if d.high < 0:
        return "**worse**"
    if d.diff == 0:
        return "no net change"
    return "could be chance"


def _change_table(changes: tuple[RankChange, ...], add, max_rows: int | None, *, now_first: bool = False,
                  direction: bool = False) -> None:
    head = "| case | line | query | expected | base rank | head rank |"
    rule = "| --- | ---: | --- | --- | ---: | ---: |"
    if now_first:
        head += " ranks first now |"
        rule += " --- |"
    if direction:
        head += " change |"
        rule += " --- |"
    add(head)
    add(rule)
    shown = changes if max_rows is None else changes[:max_rows]
    for ch in shown:
        row = (f"| {_code(ch.id)} | {ch.line or ''} | {_cell(_short(ch.query))} | {_cell(', '.join(ch.expected))} "
               f"| {_rank(ch.before)} | {_rank(ch.after)} |")
        if now_first:
            row += f" {_first(ch.first_after)} |"
        if direction:
            row += f" {'worse' if ch.worse else 'better'} |"
        add(row)
    add("")
    if len(shown) < len(changes):
        add(f"_… and {len(changes) - len(shown):,} more in the full report._")
        add("")


def _gate_changes(run: CiRun, add, max_rows: int | None) -> None:
    """What the pull request changed in its own gate, beside the comparison that used the head's gate."""
    changes = run.gate_changes
    if not changes:
        return
    add(f"### Changes to the gate ({len(changes)})")
    add("")
    add("The base was ranked with the head's config and cases; this pull request changes them here. "
        + ("These changes fail the run (fail-on-gate-change)." if run.fail_on_gate_change
           else "Review them: they are not gated (set `fail-on-gate-change` to fail on them)."))
    add("")
    add("| change | what | base | head | base result |")
    add("| --- | --- | --- | --- | --- |")
    shown = changes if max_rows is None else changes[:max_rows]
    for ch in shown:
        if ch.file:  # a known request of an examples file: repository text, shown as text where it is written
            subject = f"{_cell(_short(ch.subject))} ({_code(ch.file)}" + (f" line {ch.line})" if ch.line else ")")
        else:
            subject = _code(ch.subject) + (f" (line {ch.line})" if ch.line else "")
        add(f"| {_cell(ch.what)} | {subject} | {_cell(ch.before) if ch.before else '–'} "
            f"| {_cell(ch.after) if ch.after else '–'} | {_cell(ch.base_result) if ch.base_result else '–'} |")
    add("")
    if len(shown) < len(changes):
        add(f"_… and {len(changes) - len(shown):,} more in the full report._")
        add("")


def _findings(run: CiRun, add, max_rows: int | None) -> None:
    add(f"### Validation ({len(run.findings)})" if run.findings else "### Validation")
    add("")
    if not run.findings:
        add("No findings.")
        add("")
        return
    blocking = set(run.blocking_findings())
    touched, other = run.findings_by_change()
    if other:
        add(f"On the files this pull request changed, and every finding that fails the run: "
            f"{plural(len(touched), 'finding')}." if touched else "No finding on the files this pull request changed.")
        add("")
    if touched:
        _findings_table(touched, blocking, add, max_rows)
    if other:
        add(f"<details><summary>{plural(len(other), 'finding')} on files this pull request did not change"
            "</summary>")
        add("")
        _findings_table(other, blocking, add, max_rows)
        add("</details>")
        add("")
    add(f"_Findings fail the run at or above: {run.fail_on}._" if run.fail_on != "never"
        else "_Findings do not fail the run (fail-on: never)._")
    add("")


def _findings_table(findings, blocking, add, max_rows: int | None) -> None:
    add("| severity | code | where | message |")
    add("| --- | --- | --- | --- |")
    shown = findings if max_rows is None else findings[:max_rows]
    for d in shown:
        severity = f"**{d.severity}**" if d in blocking else d.severity
        where = _code(d.location()) if d.location() else "–"
        message = d.message + (f" (hint: {d.hint})" if d.hint else "")
        add(f"| {severity} | {d.code} | {where} | {_cell(_short(message, 400))} |")
    add("")
    if len(shown) < len(findings):
        add(f"_… and {len(findings) - len(shown):,} more in the full report._")
        add("")


def _other_modes(run: CiRun, head: EvalResult, add) -> None:
    modes = head.report_modes()
    add("<details><summary>Every mode evaluated at the head</summary>")
    add("")
    add("| metric | " + " | ".join(modes) + " |")
    add("| --- |" + " ---: |" * len(modes))
    for key, label in _LABELS.items():
        values = [getattr(head.by_mode[m].metrics, key) for m in modes]
        if all(v is None for v in values):
            continue
        add(f"| {label.format(k=run.k)} | " + " | ".join("–" if v is None else f"{v:.4f}" for v in values) + " |")
    add("")
    add("</details>")
    add("")


def cap_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """``text`` if it fits in ``limit`` UTF-8 bytes, else cut at a line with a note saying so."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    closing = "</details>\n\n"
    note_room = len(TRUNCATED_NOTE.format(kept=len(data), total=len(data)).encode("utf-8")) + len(closing) + 2
    if note_room > limit:
        return SHORT_NOTE if len(SHORT_NOTE.encode("utf-8")) <= limit else ""
    budget = limit - note_room
    kept = data[:budget].decode("utf-8", errors="ignore")
    cut = kept.rfind("\n")
    kept = kept[: cut + 1] if cut >= 0 else ""
    if kept.count("<details>") > kept.count("</details>"):
        kept += "\n" + closing
    kept_bytes = len(kept.encode("utf-8"))
    return kept + "\n" + TRUNCATED_NOTE.format(kept=kept_bytes, total=len(data))

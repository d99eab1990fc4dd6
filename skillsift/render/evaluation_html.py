"""``skillsift eval --format html``: one self-contained page for people (docs/evaluation.md, "The HTML report").

The page holds per mode the metrics with their 95% intervals, the paired differences against
lexical, which skills take the queries that expect another one (the confusion view), the cases
that moved against the baseline, and every case's rank in every mode; with ``--judge``, the agent's
figures and its choice in a column of every case (docs/judge.md).  It has no script, no
external asset and no link out: the styles are inline and every piece of repository text
(queries, skill names, ids, the cases path) goes through the one HTML escaper,
:func:`skillsift.render.sanitise.html_text`.
"""

from __future__ import annotations

from ..evaluate.run import EvalResult
from ..words import plural
from .evaluation import _metric_rows, status_word
from .sanitise import html_text

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;color:#1b1f24;
padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}.muted{color:#57606a}
.miss{background:#fff1f0}.hit{background:#f0fff4}code{font-family:ui-monospace,monospace;font-size:.95em}
"""


def _e(value) -> str:
    return html_text(value)


def _cell(value, *, number: bool = False, cls: str = "") -> str:
    classes = " ".join(c for c in ("n" if number else "", cls) if c)
    return f"<td{f' class={chr(34)}{classes}{chr(34)}' if classes else ''}>{_e(value)}</td>"


def _row(cells: list[str]) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def _head(labels) -> str:
    return "<tr>" + "".join(f"<th>{_e(label)}</th>" for label in labels) + "</tr>"


def _rank(rank) -> str:
    return "not retrieved" if rank is None else str(rank)


def _metrics(result: EvalResult, modes: list[str]) -> list[str]:
    out = ["<h2>Metrics</h2>", "<table>", _head(["metric", *modes])]
    for label, key, get in _metric_rows(result):
        values = [get(result.by_mode[m].metrics) for m in modes]
        if all(v is None for v in values):
            continue
        cells = [f"<th>{_e(label)}</th>"]
        for mode, value in zip(modes, values, strict=True):
            if value is None:
                cells.append(_cell("–"))
                continue
            ci = result.by_mode[mode].ci95.get(key) if key else None
            interval = f" (95% interval {ci.low:.4f} to {ci.high:.4f})" if ci is not None else ""
            cells.append(_cell(f"{value:.4f}{interval}", number=True))
        out.append(_row(cells))
    out.append("</table>")
    out.append('<p class="muted">95% bootstrap intervals over the cases (fixed seed); the gates use the values.</p>')
    if result.paired:
        out += ["<h3>Paired difference vs lexical</h3>", "<table>",
                _head(["mode", "metric", "difference", "95% interval", "real change"])]
        for mode, diffs in sorted(result.paired.items()):
            for name, d in sorted(diffs.items()):
                real = "yes" if d.low > 0 or d.high < 0 else "no"
                out.append(_row([_cell(mode), _cell(name), _cell(f"{d.diff:+.4f}", number=True),
                                 _cell(f"{d.low:+.4f} to {d.high:+.4f}", number=True), _cell(real)]))
        out.append("</table>")
    return out


def confusion(cases) -> list[tuple[str, str, list[str]]]:
    """(expected skill, the skill that ranked first instead, case ids) for each case not ranked first,
    most cases first, then by names (deterministic)."""
    taken: dict[tuple[str, str], list[str]] = {}
    for case in cases:
        if case.rank == 1 or not case.expected:
            continue
        winner = case.got[0] if case.got else "(nothing)"
        taken.setdefault((case.expected[0], winner), []).append(case.id)
    return sorted(((e, w, ids) for (e, w), ids in taken.items()), key=lambda t: (-len(t[2]), t[0], t[1]))


def _confusion(result: EvalResult, modes: list[str]) -> list[str]:
    out = ["<h2>Which skills take whose queries</h2>",
           '<p class="muted">For every case whose expected skill did not rank first: the skill that did.</p>']
    for mode in modes:
        rows = confusion(result.by_mode[mode].cases)
        out.append(f"<h3>{_e(mode)}</h3>")
        if not rows:
            out.append("<p>Every case ranks its expected skill first.</p>")
            continue
        out += ["<table>", _head(["expected skill", "ranked first instead", "cases", "case ids"])]
        for expected, winner, ids in rows:
            out.append(_row([_cell(expected), _cell(winner), _cell(len(ids), number=True), _cell(", ".join(ids))]))
        out.append("</table>")
    return out


def _baseline(result: EvalResult) -> list[str]:
    if result.flips is None:
        return []
    flips = result.flips
    out = ["<h2>Against the baseline</h2>",
           f"<p>{_e(plural(len(flips.regressed), 'case'))} regressed, {_e(len(flips.fixed))} fixed.</p>"]
    by_id = {case.id: case for case in result.primary.cases}
    changes = list(result.rank_changes or [])
    if changes:
        out += ["<table>", _head(["case", "query", "baseline rank", "rank now", "change"])]
        for change in changes:
            case = by_id.get(change.id)
            what = ("regressed" if change.id in flips.regressed else "fixed" if change.id in flips.fixed
                    else "dropped" if change.dropped else "rose")
            out.append(_row([_cell(change.id), _cell(case.query if case else ""), _cell(_rank(change.was)),
                             _cell(_rank(change.now)), _cell(what, cls="fail" if change.dropped else "pass")]))
        out.append("</table>")
    else:
        out.append("<p>No case changed rank.</p>")
    return out


def _agent_choices(result: EvalResult) -> dict[str, str]:
    """``eval --judge``: case id -> the agent's choice in words (docs/judge.md); {} without the judge."""
    out = {}
    for case in (result.judge or {}).get("cases", []):
        out[case["id"]] = (case["agent_choice"] or "none" if case["agent"] != "no-choice"
                           else f"no choice: {case['reason']}")
    return out


def _judge(result: EvalResult) -> list[str]:
    if result.judge is None:
        return []
    doc = result.judge
    out = ["<h2>The agent as judge</h2>",
           f"<p>{_e(doc['command'])} as {_e(doc['agent'])} ({_e(doc['template'])}): "
           f"{_e(doc['counts']['answered'])} of {_e(plural(doc['counts']['cases'], 'case'))} answered.</p>",
           "<table>", _head(["figure", "value", "95% interval", "cases"])]
    for name, label in (("agent_top1", "agent top1"), ("ranker_top1", "ranker top1"), ("agreement", "agreement")):
        fig = doc["figures"][name]
        value = "–" if fig["value"] is None else f"{fig['value']:.4f}"
        ci = fig["ci95"]
        out.append(_row([_cell(label), _cell(value, number=True),
                         _cell("–" if ci is None else f"{ci['low']:.4f} to {ci['high']:.4f}", number=True),
                         _cell(fig["n"], number=True)]))
    out.append("</table>")
    out += [f'<p class="muted">{_e(limit)}</p>' for limit in doc["limits"]]
    return out


def _cases(result: EvalResult, modes: list[str]) -> list[str]:
    agent = _agent_choices(result)
    judged = ["agent"] if agent else []
    out = ["<h2>Every case</h2>", "<table>",
           _head(["case", "query", "expected", *[f"rank ({m})" for m in modes], *[f"first ({m})" for m in modes],
                  *judged])]
    by_mode = {m: {case.id: case for case in result.by_mode[m].cases} for m in modes}
    for case in result.primary.cases:
        ranks, firsts = [], []
        for mode in modes:
            other = by_mode[mode].get(case.id)
            rank = other.rank if other is not None else None
            ranks.append(_cell(_rank(rank), number=True, cls="hit" if rank == 1 else "miss"))
            firsts.append(_cell(other.got[0] if other is not None and other.got else "–"))
        choice = [_cell(agent.get(case.id, "–"))] if agent else []
        out.append(_row([_cell(case.id), _cell(case.query), _cell(", ".join(case.expected)), *ranks, *firsts,
                         *choice]))
    out.append("</table>")
    negatives = result.primary.negatives
    if negatives:
        out += ["<h3>Negatives (nothing should match)</h3>", "<table>",
                _head(["case", "query", *[f"first ({m})" for m in modes], *judged])]
        per_mode = {m: {n.id: n for n in result.by_mode[m].negatives} for m in modes}
        for neg in negatives:
            cells = []
            for mode in modes:
                seen = per_mode[mode].get(neg.id)
                top = "abstained" if seen is not None and seen.abstained else (seen.top if seen and seen.top
                                                                               else "nothing")
                cells.append(_cell(top))
            choice = [_cell(agent.get(neg.id, "–"))] if agent else []
            out.append(_row([_cell(neg.id), _cell(neg.query), *cells, *choice]))
        out.append("</table>")
    return out


def render_html(result: EvalResult) -> str:
    """The whole page (UTF-8 text, ending in a newline)."""

    modes = result.report_modes()
    status = status_word(result)
    title = f"skillsift eval: {result.cases_path or 'cases'}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # nothing is loaded from anywhere: no script, no link, no image
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{_e(title)}</h1>",
        f'<p>Result: <span class="{"pass" if status == "passed" else "fail"}">{_e(status)}</span> · '
        f"{_e(plural(result.n, 'case'))} (+{result.n_negative} negative) · k={result.k} · "
        f"primary mode: {_e(result.mode)}</p>",
    ]
    if result.gates_note:
        parts.append(f"<p>{_e(result.gates_note)}</p>")
    for failure in result.gate_failures:
        parts.append(f'<p class="fail">{_e(failure)}</p>')
    if result.calibration is not None:
        parts.append(f"<p>{_e(result.calibration.sentence())}</p>")
    parts += _metrics(result, modes)
    parts += _confusion(result, modes)
    parts += _baseline(result)
    parts += _judge(result)
    parts += _cases(result, modes)
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"

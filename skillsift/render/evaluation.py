"""Renderers of an evaluation result: text, JSON, JUnit XML and Markdown.

Each takes an :class:`~skillsift.evaluate.run.EvalResult` and returns a string; none
does I/O.
"""

from __future__ import annotations

import re

from ..evaluate.gates import Flips
from ..evaluate.run import EvalResult, ModeResult, degraded_message
from ..words import plural
from .sanitise import json_text, md_code, md_text
from .views import header_view, text_views, view_words

HYBRID_HINT = ("hint: misses on paraphrases are what hybrid mode is for: add --mode hybrid "
               "(needs pip install 'skillsift[embed]' and 'skillsift index')")


def draft_hint(drafts: int, misses: int) -> str:
    """The hint under misses some of which are ``skillsift init``'s drafts (tag ``draft``)."""
    which = "every miss is a draft" if drafts == misses else f"{drafts} of the {misses} misses are drafts"
    return (f"hint: {which} (tag draft), worded from the skill itself, not by a user: review each (rewrite it as "
            "a user would ask, check the expected skill) before reading it as a paraphrase; docs/init.md")


# -- JSON ------------------------------------------------------------------------------------------


def _shortest(value):
    """Integral floats as integers (``1`` not ``1.0``), as the reference tool prints them."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    if isinstance(value, dict):
        return {k: _shortest(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shortest(v) for v in value]
    return value


def result_json(result: EvalResult) -> dict:
    """The ``search-eval.v1`` document (integral floats shown as integers)."""
    return _shortest(result.to_dict())


def render_json(result: EvalResult) -> str:
    return json_text(result_json(result))


# -- text ------------------------------------------------------------------------------------------


def _rank_text(rank: int | None) -> str:
    return "not retrieved" if rank is None else f"rank {rank}"


def render_text(result: EvalResult, *, hybrid_hint: bool = False) -> str:
    lines: list[str] = []
    add = lines.append
    modes = result.report_modes()
    k = result.k
    add(f"cases: {result.n} (+{result.n_negative} negative), k={k}, mode: {', '.join(modes)}{header_view(result)}")
    if result.examples_note:
        add(f"known requests: {result.examples_note}")
    if result.index is not None:
        ix = result.index
        add(f"index: {ix.get('model', '')}, {ix.get('dims', 0)} dims, {ix.get('dtype', '')}, "
            f"{ix.get('rows', 0)} rows ({ix.get('stale_items', 0)} stale, "
            f"{ix.get('missing_items', 0)} missing)")
    if len(modes) > 1:
        _text_mode_table(result, modes, add)
    else:
        _text_primary(result, add)
    p = result.primary
    if p.tags:
        add("")
        add("by tag:")
        for tag in sorted(p.tags):
            for mode in modes:
                tm = result.by_mode[mode].tags.get(tag)
                if tm is None:
                    continue
                label = f" [{mode}]" if len(modes) > 1 else ""
                add(f"  {tag} ({tm.n}){label}: top1 {tm.top1:.4f}  recall@{k} {tm.recall_at_k:.4f}  "
                    f"hit@{k} {tm.hit_at_k:.4f}  mrr {tm.mrr:.4f}")
    if p.negatives:
        add("")
        add("negatives (nothing should match; shown is what ranked first, with the ranker's own score):")
        for i, neg in enumerate(p.negatives):
            parts = []
            for mode in modes:
                negs = result.by_mode[mode].negatives
                if i >= len(negs):
                    continue
                n = negs[i]
                top = f"{n.top} ({n.top_score:.4f})" if n.top else "nothing"
                if len(modes) > 1:
                    top = f"{mode} {top}"
                if n.avoid_violated:
                    top += " [avoided skill first]"
                parts.append(top)
            add(f"  {neg.id}: {'; '.join(parts)}")
    if result.calibration is not None:
        add("")
        add(result.calibration.sentence())
    if p.misses:
        add("")
        add("misses:")
        for c in p.misses:
            add(f"  {c.id}: expected {','.join(c.expected)}, got [{','.join(c.got)}] ({_rank_text(c.rank)})")
        drafts = sum(1 for c in p.misses if "draft" in c.tags)
        if drafts:  # a draft's words are the skill author's: review it before reading its miss as a paraphrase
            add(draft_hint(drafts, len(p.misses)))
        if hybrid_hint and modes == ["lexical"] and drafts < len(p.misses):
            add(HYBRID_HINT)
    if result.flips is not None:
        add("")
        add(f"vs baseline: {len(result.flips.regressed)} regressed, {len(result.flips.fixed)} fixed")
        for case_id in result.flips.regressed:
            add(f"  regressed: {case_id}")
        for label, changes in _rank_moves(result):
            add(f"  {label}: " + ", ".join(change.text() for change in changes))
    text_views(result, add, _metric_rows(result))
    if result.gate_failures:
        add("")
        add("gate failed")
    if result.gates_note:
        add("")
        add(result.gates_note)
    return "\n".join(lines) + "\n"


def _metric_rows(result: EvalResult):
    """(label, interval key or "", getter) for every metric row a report may show."""
    k = result.k
    return [
        ("top1", "top1", lambda m: m.top1),
        (f"recall@{k}", "recall_at_k", lambda m: m.recall_at_k),
        (f"hit@{k}", "", lambda m: m.hit_at_k),
        ("mrr", "mrr", lambda m: m.mrr),
        (f"ndcg@{k}", "ndcg_at_k", lambda m: m.ndcg_at_k),
        ("avoid@1", "", lambda m: m.avoid_top1),
        ("abstain", "", lambda m: m.abstain_rate),
    ]


PAIRED_TITLE = ("paired difference vs lexical (95% bootstrap interval; "
                "an interval excluding 0 is a real change):")


def _text_primary(result: EvalResult, add) -> None:
    p = result.primary
    width = len(f"recall@{result.k}") + 2
    for label, key, get in _metric_rows(result):
        value = get(p.metrics)
        if value is None:
            continue
        row = f"{label:<{width}}{value:.4f}"
        ci = p.ci95.get(key) if key else None
        if ci is not None:
            row += f"  (95% CI {ci.low:.4f}-{ci.high:.4f})"
        add(row)


def _mode_table_cells(result: EvalResult, modes: list[str], *, missing: str, dash: str):
    """(label, one cell per mode) for each metric some mode has: ``0.1234 (0.10-0.20)``."""
    for label, key, get in _metric_rows(result):
        values = [get(result.by_mode[m].metrics) for m in modes]
        if all(v is None for v in values):
            continue
        cells = []
        for mode, value in zip(modes, values, strict=True):
            if value is None:
                cells.append(missing)
                continue
            ci = result.by_mode[mode].ci95.get(key) if key else None
            cells.append(f"{value:.4f}" + (f" ({ci.low:.2f}{dash}{ci.high:.2f})" if ci is not None else ""))
        yield label, cells


def _text_mode_table(result: EvalResult, modes: list[str], add) -> None:
    add("")
    add(f"{'':<14}" + "".join(f"{m:<24}" for m in modes).rstrip())
    for label, cells in _mode_table_cells(result, modes, missing="-", dash="-"):
        add((f"{label:<14}" + "".join(f"{c:<24}" for c in cells)).rstrip())
    if result.paired:
        add("")
        add(PAIRED_TITLE)
        for mode in sorted(result.paired):
            for key in sorted(result.paired[mode]):
                d = result.paired[mode][key]
                add(f"  {mode:<8} {key:<12} {d.diff:+.4f}  ({d.low:+.4f} to {d.high:+.4f})")
    for mode in modes:
        mr = result.by_mode[mode]
        if mr.degraded_cases:
            add("")
            add(f"warning: {mode}: {plural(mr.degraded_cases, 'case')} fell back to lexical")


# -- JUnit XML -------------------------------------------------------------------------------------

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return _XML_INVALID.sub("\ufffd", text)


def _suite_stem(result: EvalResult) -> str:
    import os

    base = os.path.basename(result.cases_path or "cases")
    for ext in (".yaml", ".yml"):
        if base.endswith(ext):
            return base[: -len(ext)] or "cases"
    return base or "cases"


def render_junit(result: EvalResult) -> str:
    """One test suite per mode, one test case per labelled case (negatives included).

    A miss or an avoided skill ranked first is a ``<failure>`` carrying the query, the
    expected skills and what ranked; a case whose ranking fell back to lexical is an
    ``<error>`` (it measured nothing).  Gate failures go to the primary suite's
    ``<system-err>``.
    """
    import xml.etree.ElementTree as ET

    stem = _suite_stem(result)
    root = ET.Element("testsuites", name=f"skillsift eval {stem}")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for mode in result.report_modes():
        mr = result.by_mode[mode]
        suite = ET.SubElement(root, "testsuite", name=f"{stem} ({mode})")
        props = ET.SubElement(suite, "properties")
        pairs = [("mode", mode), ("primary", str(mode == result.mode).lower()), ("k", str(result.k))]
        pairs += [(n, str(v)) for n, v in mr.metrics.to_dict().items()]
        for name, value in pairs:
            ET.SubElement(props, "property", name=name, value=value)
        counts = _junit_cases(suite, mr, f"{stem}.{mode}", result.k)
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", str(counts["errors"]))
        suite.set("skipped", "0")
        suite.set("time", "0")
        for key in totals:
            totals[key] += counts[key]
        if mode == result.mode and (result.gate_failures or result.flips is not None):
            lines = list(result.gate_failures)
            if result.flips is not None:
                lines.append(_flips_line(result.flips))
            ET.SubElement(suite, "system-err").text = _x("\n".join(lines))
    for key, total in totals.items():
        root.set(key, str(total))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _rank_moves(result: EvalResult):
    """("rank dropped" | "rank rose", changes) for the rank changes against the baseline, when any."""
    changes = list(getattr(result, "rank_changes", None) or [])
    dropped = [change for change in changes if change.dropped]
    rose = [change for change in changes if not change.dropped]
    return [(label, group) for label, group in (("rank dropped", dropped), ("rank rose", rose)) if group]


def _flips_line(flips: Flips) -> str:
    return f"vs baseline: {len(flips.regressed)} regressed, {len(flips.fixed)} fixed"


def _degraded_error(tc, reason: str, detail: str):
    import xml.etree.ElementTree as ET

    el = ET.SubElement(tc, "error", type="degraded", message=f"ranking fell back to lexical ({reason})")
    el.text = _x(detail)


def _junit_cases(suite, mr: ModeResult, classname: str, k: int) -> dict:
    import xml.etree.ElementTree as ET

    counts = {"tests": 0, "failures": 0, "errors": 0}
    for c in mr.cases:
        counts["tests"] += 1
        tc = ET.SubElement(suite, "testcase", classname=classname, name=_x(c.id), time="0")
        detail = (f"query: {c.query}\nexpected: {', '.join(c.expected)}\n"
                  f"got (top {k}): {', '.join(c.got) or 'nothing'}\nrank: {_rank_text(c.rank)}")
        if c.degraded:
            counts["errors"] += 1
            _degraded_error(tc, c.degraded, detail)
        elif not c.hit or c.avoid_violated:
            counts["failures"] += 1
            if not c.hit:
                message = f"expected {', '.join(c.expected)} in the top {k}, got [{', '.join(c.got)}] " \
                          f"({_rank_text(c.rank)})"
                kind = "miss"
            else:
                message = f"avoided skill {c.got[0]} ranked first"
                kind = "avoided-first"
            el = ET.SubElement(tc, "failure", type=kind, message=_x(message))
            el.text = _x(detail)
    for n in mr.negatives:
        counts["tests"] += 1
        tc = ET.SubElement(suite, "testcase", classname=classname, name=_x(n.id), time="0")
        detail = (f"query: {n.query}\nexpected: nothing\navoid: {', '.join(n.avoid) or '-'}\n"
                  f"ranked first: {n.top or 'nothing'}")
        if n.degraded:
            counts["errors"] += 1
            _degraded_error(tc, n.degraded, detail)
        elif n.avoid_violated:
            counts["failures"] += 1
            message = _x(f"avoided skill {n.top} ranked first")
            el = ET.SubElement(tc, "failure", type="avoided-first", message=message)
            el.text = _x(detail)
    return counts


# -- Markdown --------------------------------------------------------------------------------------


_cell = md_text  # repository text in Markdown: literal, one line (render/sanitise.py)
_code = md_code  # an id, a name or a path as a code span nothing inside can close


def status_word(result: EvalResult) -> str:
    if result.degraded:
        return "not measured: the embeddings were unavailable"
    if result.gate_failures:
        return "gate failed"
    return "passed"


def render_markdown(result: EvalResult) -> str:
    """The pull-request view: a compact summary table, then what a reviewer must look at."""
    out: list[str] = []
    add = out.append
    modes = result.report_modes()
    k = result.k
    add(f"### skillsift eval: {_code(result.cases_path or 'cases')}")
    add("")
    gates = f" · {result.gates_note}" if result.gates_note else ""
    add(f"**Result: {status_word(result)}** · {plural(result.n, 'case')} (+{result.n_negative} negative) · k={k} · "
        f"primary mode: {result.mode}{gates}" + (f" · view: {view_words(result.view)}" if result.view else ""))
    add("")
    add("| metric | " + " | ".join(modes) + " |")
    add("| --- |" + " ---: |" * len(modes))
    for label, cells in _mode_table_cells(result, modes, missing="–", dash="–"):
        add(f"| {label} | " + " | ".join(cells) + " |")
    add("")
    add("_Intervals: 95% bootstrap, informational only (gates use the values)._")
    if result.paired:
        add("")
        add("**Paired difference vs lexical** (an interval excluding 0 is a real change)")
        add("")
        add("| mode | metric | difference | 95% interval | real change |")
        add("| --- | --- | ---: | --- | --- |")
        for mode in sorted(result.paired):
            for key in sorted(result.paired[mode]):
                d = result.paired[mode][key]
                real = "yes" if d.low > 0 or d.high < 0 else "no"
                add(f"| {mode} | {key} | {d.diff:+.4f} | {d.low:+.4f} to {d.high:+.4f} | {real} |")
    if result.calibration is not None:
        add("")
        add(f"_{result.calibration.sentence()}_")
    message = degraded_message(result)
    if message:
        add("")
        add(f"> **Warning:** {message}")
    if result.gate_failures:
        add("")
        add("#### Gate failures")
        add("")
        for failure in result.gate_failures:
            add(f"- {_cell(failure)}")
    p = result.primary
    by_id = {c.id: c for c in p.cases}
    if result.flips is not None:
        add("")
        add(f"#### Against the baseline: {_flips_line(result.flips)[len('vs baseline: '):]}")
        if result.flips.regressed:
            add("")
            _case_table([by_id[i] for i in result.flips.regressed if i in by_id], k, add)
        if result.flips.fixed:
            add("")
            add("Fixed: " + ", ".join(_code(i) for i in result.flips.fixed))
        changes = list(result.rank_changes or [])
        if changes:
            add("")
            add("Rank changes against the baseline (rank of the first expected skill):")
            add("")
            add("| Case | Baseline | Now | Change |")
            add("| --- | ---: | ---: | --- |")
            for change in changes:
                was = "—" if change.was is None else str(change.was)
                now = "—" if change.now is None else str(change.now)
                add(f"| {_code(change.id)} | {was} | {now} | {'dropped' if change.dropped else 'rose'} |")
    if p.misses:
        add("")
        add(f"#### Misses ({len(p.misses)} of {p.metrics.n}, {result.mode})")
        add("")
        _case_table(p.misses, k, add)
    avoided = [c for c in p.cases if c.avoid_violated] + [n for n in p.negatives if n.avoid_violated]
    if avoided:
        add("")
        add(f"#### Avoided skill ranked first ({len(avoided)})")
        add("")
        add("| case | query | ranked first |")
        add("| --- | --- | --- |")
        for c in p.cases:
            if c.avoid_violated:
                add(f"| {_code(c.id)} | {_cell(c.query)} | {_code(c.got[0])} |")
        for n in p.negatives:
            if n.avoid_violated:
                add(f"| {_code(n.id)} | {_cell(n.query)} | {_code(n.top)} |")
    if p.tags:
        add("")
        add("<details><summary>By tag</summary>")
        add("")
        add(f"| tag | n | top1 | recall@{k} | hit@{k} | mrr |")
        add("| --- | ---: | ---: | ---: | ---: | ---: |")
        for tag, tm in sorted(p.tags.items()):
            add(f"| {_cell(tag)} | {tm.n} | {tm.top1:.4f} | {tm.recall_at_k:.4f} | {tm.hit_at_k:.4f} "
                f"| {tm.mrr:.4f} |")
        add("")
        add("</details>")
    return "\n".join(out) + "\n"


def _case_table(cases, k: int, add) -> None:
    add(f"| case | query | expected | got (top {k}) | rank |")
    add("| --- | --- | --- | --- | --- |")
    for c in cases:
        got = ", ".join(c.got) or "nothing"
        rank = "not retrieved" if c.rank is None else str(c.rank)
        add(f"| {_code(c.id)} | {_cell(c.query)} | {_cell(', '.join(c.expected))} | {_cell(got)} | {rank} |")

"""Renderers of an evaluation result: text, JSON and Markdown (JUnit XML: :mod:`.evaluation_junit`).

Each takes an :class:`~skillsift.evaluate.run.EvalResult` and returns a string; none
does I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..evaluate.gates import Flips
from ..evaluate.run import EvalResult, degraded_message
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


@dataclass
class _Report:
    """What every section of a report reads: the result, its modes, the line sink and the options."""
    result: EvalResult
    modes: list[str]
    add: Callable[[str], None]
    hybrid_hint: bool = False


def _text_header(r: _Report) -> None:
    result = r.result
    r.add(f"cases: {result.n} (+{result.n_negative} negative), k={result.k}, mode: {', '.join(r.modes)}"
          f"{header_view(result)}")
    if result.examples_note:
        r.add(f"known requests: {result.examples_note}")
    if result.index is not None:
        ix = result.index
        r.add(f"index: {ix.get('model', '')}, {ix.get('dims', 0)} dims, {ix.get('dtype', '')}, "
              f"{ix.get('rows', 0)} rows ({ix.get('stale_items', 0)} stale, "
              f"{ix.get('missing_items', 0)} missing)")


def _text_metrics(r: _Report) -> None:
    if len(r.modes) > 1:
        _text_mode_table(r.result, r.modes, r.add)
    else:
        _text_primary(r.result, r.add)


def _text_tags(r: _Report) -> None:
    result, modes, add, k = r.result, r.modes, r.add, r.result.k
    if not result.primary.tags:
        return
    add("")
    add("by tag:")
    for tag in sorted(result.primary.tags):
        for mode in modes:
            tm = result.by_mode[mode].tags.get(tag)
            if tm is None:
                continue
            label = f" [{mode}]" if len(modes) > 1 else ""
            add(f"  {tag} ({tm.n}){label}: top1 {tm.top1:.4f}  recall@{k} {tm.recall_at_k:.4f}  "
                f"hit@{k} {tm.hit_at_k:.4f}  mrr {tm.mrr:.4f}")


def _negative_cells(r: _Report, i: int) -> list[str]:
    """What ranked first for the ``i``-th negative case, in each mode."""
    parts = []
    for mode in r.modes:
        negs = r.result.by_mode[mode].negatives
        if i >= len(negs):
            continue
        n = negs[i]
        top = f"{n.top} ({n.top_score:.4f})" if n.top else "nothing"
        if len(r.modes) > 1:
            top = f"{mode} {top}"
        if n.avoid_violated:
            top += " [avoided skill first]"
        parts.append(top)
    return parts


def _text_negatives(r: _Report) -> None:
    if not r.result.primary.negatives:
        return
    r.add("")
    r.add("negatives (nothing should match; shown is what ranked first, with the ranker's own score):")
    for i, neg in enumerate(r.result.primary.negatives):
        r.add(f"  {neg.id}: {'; '.join(_negative_cells(r, i))}")


def _text_calibration(r: _Report) -> None:
    if r.result.calibration is not None:
        r.add("")
        r.add(r.result.calibration.sentence())


def _text_misses(r: _Report) -> None:
    misses, add = r.result.primary.misses, r.add
    if not misses:
        return
    add("")
    add("misses:")
    for c in misses:
        add(f"  {c.id}: expected {','.join(c.expected)}, got [{','.join(c.got)}] ({_rank_text(c.rank)})")
    drafts = sum(1 for c in misses if "draft" in c.tags)
    if drafts:  # a draft's words are the skill author's: review it before reading its miss as a paraphrase
        add(draft_hint(drafts, len(misses)))
    if r.hybrid_hint and r.modes == ["lexical"] and drafts < len(misses):
        add(HYBRID_HINT)


def _text_flips(r: _Report) -> None:
    flips, add = r.result.flips, r.add
    if flips is None:
        return
    add("")
    add(f"vs baseline: {len(flips.regressed)} regressed, {len(flips.fixed)} fixed")
    for case_id in flips.regressed:
        add(f"  regressed: {case_id}")
    for label, changes in _rank_moves(r.result):
        add(f"  {label}: " + ", ".join(change.text() for change in changes))


def _text_views(r: _Report) -> None:
    text_views(r.result, r.add, _metric_rows(r.result))


def _text_gate(r: _Report) -> None:
    if r.result.gate_failures:
        r.add("")
        r.add("gate failed")
    if r.result.gates_note:
        r.add("")
        r.add(r.result.gates_note)


# the text report, section by section
TEXT_SECTIONS: tuple[Callable[[_Report], None], ...] = (
    _text_header, _text_metrics, _text_tags, _text_negatives, _text_calibration, _text_misses, _text_flips,
    _text_views, _text_gate)


def render_text(result: EvalResult, *, hybrid_hint: bool = False) -> str:
    lines: list[str] = []
    report = _Report(result, result.report_modes(), lines.append, hybrid_hint)
    for section in TEXT_SECTIONS:
        section(report)
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


def _rank_moves(result: EvalResult):
    """("rank dropped" | "rank rose", changes) for the rank changes against the baseline, when any."""
    changes = list(getattr(result, "rank_changes", None) or [])
    dropped = [change for change in changes if change.dropped]
    rose = [change for change in changes if not change.dropped]
    return [(label, group) for label, group in (("rank dropped", dropped), ("rank rose", rose)) if group]


def _flips_line(flips: Flips) -> str:
    return f"vs baseline: {len(flips.regressed)} regressed, {len(flips.fixed)} fixed"


# -- Markdown --------------------------------------------------------------------------------------


_cell = md_text  # repository text in Markdown: literal, one line (render/sanitise.py)
_code = md_code  # an id, a name or a path as a code span nothing inside can close


def status_word(result: EvalResult) -> str:
    if result.degraded:
        return "not measured: the embeddings were unavailable"
    if result.gate_failures:
        return "gate failed"
    return "passed"


def _md_summary(r: _Report) -> None:
    result, add, modes = r.result, r.add, r.modes
    add(f"### skillsift eval: {_code(result.cases_path or 'cases')}")
    add("")
    gates = f" · {result.gates_note}" if result.gates_note else ""
    add(f"**Result: {status_word(result)}** · {plural(result.n, 'case')} (+{result.n_negative} negative) · "
        f"k={result.k} · primary mode: {result.mode}{gates}"
        + (f" · view: {view_words(result.view)}" if result.view else ""))
    add("")
    add("| metric | " + " | ".join(modes) + " |")
    add("| --- |" + " ---: |" * len(modes))
    for label, cells in _mode_table_cells(result, modes, missing="–", dash="–"):
        add(f"| {label} | " + " | ".join(cells) + " |")
    add("")
    add("_Intervals: 95% bootstrap, informational only (gates use the values)._")


def _md_paired(r: _Report) -> None:
    paired, add = r.result.paired, r.add
    if not paired:
        return
    add("")
    add("**Paired difference vs lexical** (an interval excluding 0 is a real change)")
    add("")
    add("| mode | metric | difference | 95% interval | real change |")
    add("| --- | --- | ---: | --- | --- |")
    for mode in sorted(paired):
        for key in sorted(paired[mode]):
            d = paired[mode][key]
            real = "yes" if d.low > 0 or d.high < 0 else "no"
            add(f"| {mode} | {key} | {d.diff:+.4f} | {d.low:+.4f} to {d.high:+.4f} | {real} |")


def _md_notes(r: _Report) -> None:
    """The calibration sentence, the warning of a degraded run and the gate failures."""
    result, add = r.result, r.add
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


def _md_rank_changes(changes, add) -> None:
    if not changes:
        return
    add("")
    add("Rank changes against the baseline (rank of the first expected skill):")
    add("")
    add("| Case | Baseline | Now | Change |")
    add("| --- | ---: | ---: | --- |")
    for change in changes:
        was = "—" if change.was is None else str(change.was)
        now = "—" if change.now is None else str(change.now)
        add(f"| {_code(change.id)} | {was} | {now} | {'dropped' if change.dropped else 'rose'} |")


def _md_baseline(r: _Report) -> None:
    result, add = r.result, r.add
    if result.flips is None:
        return
    by_id = {c.id: c for c in result.primary.cases}
    add("")
    add(f"#### Against the baseline: {_flips_line(result.flips)[len('vs baseline: '):]}")
    if result.flips.regressed:
        add("")
        _case_table([by_id[i] for i in result.flips.regressed if i in by_id], result.k, add)
    if result.flips.fixed:
        add("")
        add("Fixed: " + ", ".join(_code(i) for i in result.flips.fixed))
    _md_rank_changes(list(result.rank_changes or []), add)


def _md_misses(r: _Report) -> None:
    p = r.result.primary
    if p.misses:
        r.add("")
        r.add(f"#### Misses ({len(p.misses)} of {p.metrics.n}, {r.result.mode})")
        r.add("")
        _case_table(p.misses, r.result.k, r.add)


def _md_avoided(r: _Report) -> None:
    p, add = r.result.primary, r.add
    avoided = [c for c in p.cases if c.avoid_violated] + [n for n in p.negatives if n.avoid_violated]
    if not avoided:
        return
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


def _md_tags(r: _Report) -> None:
    tags, add, k = r.result.primary.tags, r.add, r.result.k
    if not tags:
        return
    add("")
    add("<details><summary>By tag</summary>")
    add("")
    add(f"| tag | n | top1 | recall@{k} | hit@{k} | mrr |")
    add("| --- | ---: | ---: | ---: | ---: | ---: |")
    for tag, tm in sorted(tags.items()):
        add(f"| {_cell(tag)} | {tm.n} | {tm.top1:.4f} | {tm.recall_at_k:.4f} | {tm.hit_at_k:.4f} "
            f"| {tm.mrr:.4f} |")
    add("")
    add("</details>")


# the pull-request view, section by section: a compact summary table, then what a reviewer must look at
MARKDOWN_SECTIONS: tuple[Callable[[_Report], None], ...] = (
    _md_summary, _md_paired, _md_notes, _md_baseline, _md_misses, _md_avoided, _md_tags)


def render_markdown(result: EvalResult) -> str:
    """The pull-request view: a compact summary table, then what a reviewer must look at."""
    out: list[str] = []
    report = _Report(result, result.report_modes(), out.append)
    for section in MARKDOWN_SECTIONS:
        section(report)
    return "\n".join(out) + "\n"


def _case_table(cases, k: int, add) -> None:
    add(f"| case | query | expected | got (top {k}) | rank |")
    add("| --- | --- | --- | --- | --- |")
    for c in cases:
        got = ", ".join(c.got) or "nothing"
        rank = "not retrieved" if c.rank is None else str(c.rank)
        add(f"| {_code(c.id)} | {_cell(c.query)} | {_cell(', '.join(c.expected))} | {_cell(got)} | {rank} |")

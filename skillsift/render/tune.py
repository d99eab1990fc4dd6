"""What ``skillsift tune`` prints: the ``tune.v1`` document (:func:`skillsift.evaluate.tune_run.document`) as
text or JSON.

The ``tune`` family of the renderer registry.
"""

from __future__ import annotations

from .sanitise import json_text, plain_lines


def render_tune_json(doc: dict) -> str:
    """The ``tune.v1`` document as JSON text."""
    return json_text(doc)


def render_tune_text(doc: dict) -> str:
    """:func:`render_text`, each line made safe for a terminal."""
    return plain_lines(render_text(doc))


def _fmt(d) -> str:
    return f"{d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]"


def render_text(doc: dict) -> str:
    """The report of a ``tune.v1`` document: the settings scored, the decisions, the example_weight."""
    skipped = doc["skipped_cases"]
    left_out = f" ({skipped} more, negative or role-scoped, left out)" if skipped else ""
    repo_mode = doc.get("repository_mode", "lexical")
    same = "the repository's mode" if repo_mode == "hybrid" else f"the repository ranks in {repo_mode} mode"
    lines = [f"tune: hybrid mode ({same}); {doc['cases']} cases scored{left_out}, "
             f"k={doc['k']}, {doc['folds']} fixed folds (seed {doc['fold_seed']})", ""]
    lines.append(f"{'setting':58s} {'top1':>6s} {'(95% CI)':>14s} {'MRR':>6s} {'(95% CI)':>14s} "
                 f"{'hit@k':>6s}  dMRR vs current")
    lex = doc["lexical"]
    lines.append(f"{'lexical (reference BM25F)':58s} {lex['top1']:6.3f} "
                 f"({lex['top1_ci'][0]:.3f}-{lex['top1_ci'][1]:.3f}) {lex['mrr']:6.3f} "
                 f"({lex['mrr_ci'][0]:.3f}-{lex['mrr_ci'][1]:.3f}) {lex['hit_at_k']:6.3f}")
    for row in doc["candidates"]:
        mark = " (current)" if row["current"] else ""
        label = row["setting"]["label"] + mark
        lines.append(f"{label:58s} {row['top1']:6.3f} ({row['top1_ci'][0]:.3f}-{row['top1_ci'][1]:.3f}) "
                     f"{row['mrr']:6.3f} ({row['mrr_ci'][0]:.3f}-{row['mrr_ci'][1]:.3f}) {row['hit_at_k']:6.3f}  "
                     f"{_fmt(row['dmrr_vs_current'])}")
    cv = doc["cross_validated"]
    lines += ["", f"winner on all cases: {doc['winner']['label']}",
              f"chosen per fold: {'; '.join(doc['chosen_per_fold'])}",
              f"cross-validated (each fold ranked by the setting chosen on the others): top1 {cv['top1']:.3f} "
              f"MRR {cv['mrr']:.3f} ({cv['mrr_ci'][0]:.3f}-{cv['mrr_ci'][1]:.3f})",
              f"  paired MRR vs current setting: {_fmt(cv['dmrr_vs_current'])}",
              f"  paired MRR vs cosine only:     {_fmt(cv['dmrr_vs_cosine'])}"]
    if doc["change"]:
        lines.append("decision: change to the winner (its cross-validated MRR gain over the current setting "
                     "has a 95% interval above 0)")
    else:
        lines.append("decision: keep the current setting (no cross-validated MRR gain with a 95% interval "
                     "above 0)")
    lines.append(f"  paired MRR of hybrid (cross-validated) vs lexical: {_fmt(doc['dmrr_vs_lexical'])}")
    if doc["suggest_mode"] == "hybrid":
        lines.append("mode: hybrid beats lexical with a 95% interval above 0: consider [search] mode = \"hybrid\" "
                     "(build the index with 'skillsift index' first)")
    elif doc["suggest_mode"] == "lexical":
        lines.append(f"mode: lexical beats hybrid with a 95% interval below 0: consider [search] mode = \"lexical\" "
                     f"(the repository ranks in {repo_mode} mode)")
    lines += _weight_lines(doc.get("example_weight"))
    if doc["wrote"]:
        lines.append(f"wrote the [search] keys to {doc['wrote']}; rebuild the index: skillsift index")
    return "\n".join(lines) + "\n"


def _weight_lines(w: dict | None) -> list[str]:
    if not w:
        return []
    if not w["tuned"]:
        return ["", f"example_weight: not tuned ({w['note']}); it stays {w['current']:g}"]
    lines = ["", f"example_weight (weight of known requests; {w['known_requests']} requests, {w['note']}), "
             f"scored with {w['setting']}:"]
    for row in w["candidates"]:
        mark = " (current)" if row["current"] else ""
        lines.append(f"  {row['weight']:<4g}{mark:10s} top1 {row['top1']:.3f} MRR {row['mrr']:.3f} "
                     f"({row['mrr_ci'][0]:.3f}-{row['mrr_ci'][1]:.3f})  dMRR vs current {_fmt(row['dmrr_vs_current'])}")
    cv = w["cross_validated"]
    lines += [f"  winner on all cases: {w['winner']:g}; chosen per fold: "
              f"{', '.join(f'{x:g}' for x in w['chosen_per_fold'])}",
              f"  cross-validated: MRR {cv['mrr']:.3f} ({cv['mrr_ci'][0]:.3f}-{cv['mrr_ci'][1]:.3f}), "
              f"paired vs current {w['current']:g}: {_fmt(cv['dmrr_vs_current'])}"]
    if w["change"]:
        lines.append(f"  decision: example_weight = {w['winner']:g} (cross-validated MRR gain over "
                     f"{w['current']:g} has a 95% interval above 0)")
    else:
        lines.append(f"  decision: keep example_weight = {w['current']:g} (no cross-validated MRR gain with a "
                     f"95% interval above 0)")
    return lines

"""Renderers of ``skillsift eval --why``: the evaluation report followed by why each case missed.

Text: the usual report, then the explanations, the trigger proposals and the skills
with no triggers and no examples.  JSON: the ``search-eval.v1`` document with a ``why``
key holding the ``search-why.v4`` document.  No I/O.
"""

from __future__ import annotations

import json

from ..evaluate.proposals import MIN_CASES
from ..evaluate.run import EvalResult
from ..evaluate.whynot import Competitor, ExpectedSkill, Proposal, Standing, WhyReport
from ..words import plural
from .evaluation import _shortest, render_text, result_json
from .sanitise import json_text

MAX_TERMS_SHOWN = 6
PROPOSALS_TITLE = {
    "triggers": ("trigger proposals (full view: each phrase appended to the skill's triggers in memory, which "
                 "skillsift's ranking and find_skill read and no agent's listing shows; cross-validated over the "
                 "skill's cases, shown only when it fixes or improves a held-out case and makes no case worse):"),
    "description": ("description proposals (listing view: each clause added to the skill's description in memory, "
                    "the text the agent lists, or put in place of its last sentences when added it would not fit, "
                    "within every targeted agent's per-entry cap and listing budget; "
                    "cross-validated over the skill's cases, shown only when it fixes or improves a held-out case "
                    "and makes no case worse):"),
    "examples": ("known-request proposals (full view, hybrid and vector mode: each request added whole to the "
                 "skill's known requests in memory, which skillsift's ranking and find_skill read as a vector of its "
                 "own and no agent's listing shows; cross-validated over the skill's cases, shown only when it fixes "
                 "or improves a held-out case and makes no case worse):"),
}


def render_with_why_json(result: EvalResult, why: WhyReport) -> str:
    """The ``search-eval.v1`` document with the ``search-why.v4`` document under ``why``."""
    doc = result_json(result)
    doc["why"] = _shortest(why.to_dict())

    return json_text(doc)


def render_with_why_text(result: EvalResult, why: WhyReport, *, hybrid_hint: bool = False) -> str:
    """The text report of the evaluation, then why each case missed."""
    return render_text(result, hybrid_hint=hybrid_hint) + render_why_text(why)


def _listed(ids, shown: int = 5) -> str:
    text = ", ".join(ids[:shown])
    return text + (f" and {len(ids) - shown} more" if len(ids) > shown else "")


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _fields(fields) -> str:
    return "/".join(fields)


def _terms(standing: Standing) -> str:
    shares = sorted(standing.terms, key=lambda t: (-t.points, t.term))
    shown = [f"{t.term} {t.points:.2f} [{_fields(t.fields)}]" for t in shares[:MAX_TERMS_SHOWN]]
    if len(shares) > MAX_TERMS_SHOWN:
        shown.append(f"+{len(shares) - MAX_TERMS_SHOWN} more")
    return ", ".join(shown)


def _standing_text(s: Standing, ranking: str) -> str:
    parts = [f"score {s.score:.4f}"]
    if ranking != "lexical":
        if s.cosine is not None:
            parts.append(f"cosine {s.cosine:.4f}")
        parts.append(f"lexical rank {s.lexical_rank or '-'}, vector rank {s.vector_rank or '-'}")
        if s.terms:
            parts.append(f"lexical {s.lexical_score:.4f}")
    text = ", ".join(parts)
    if s.terms:
        text += f": {_terms(s)}"
    elif ranking == "lexical":
        text += ": no query term"
    return text


def _expected_text(e: ExpectedSkill, ranking: str) -> str:
    s = e.standing
    where = "not retrieved" if s.rank is None else f"rank {s.rank}, " + _standing_text(s, ranking)
    text = f"expected {s.name}: {where}"
    if e.lacks:
        text += f"; lacks {', '.join(e.lacks)} (in none of name, triggers, keywords, description)"
    else:
        text += "; holds every query term"
    return text


def _competitor_text(c: Competitor) -> str:
    held = ", ".join(f"{t} [{_fields(f)}]" for t, f in c.overlap)
    text = f"competitor {c.name} (rank {c.rank}) holds {held}"
    if c.expected_lacks:
        text += f"; the expected skill lacks {', '.join(c.expected_lacks)}"
    return text


def _support(p: Proposal) -> str:
    return "one request" if p.support <= 1 else f"shared by {p.support} requests"


def _effect(p: Proposal) -> str:
    parts = []
    h = p.held_out
    if h is not None:
        gains = [f"{len(ids)} {word}" for word, ids in (("fixed", h.fixed), ("now first", h.first),
                                                        ("ranked better", h.improved)) if ids]
        parts.append(f"held out: {', '.join(gains) or 'no change'} of {plural(h.cases, 'case')}")
    if p.fixes:
        parts.append("fixes " + ", ".join(f"{i} (now rank {r})" for i, r in p.fixes))
    if p.improves:
        parts.append(f"improves {_listed(p.improves)}")
    if p.lower_past_k:
        parts.append(f"{plural(p.lower_past_k, 'case')} past k ranked lower")
    parts.append(f"mrr {p.mrr_change:+.4f}")
    return "; ".join(parts)


def _listing_text(p: Proposal) -> str:
    changes = f"changes the listing of {', '.join(p.agents)}" if p.agents else "changes no agent's listing"
    chars = []
    for c in p.listing:
        if not c.changes:
            continue
        cap = f"{c.entry_chars:,}/{c.entry_cap:,} entry" if c.entry_cap else f"{c.entry_chars:,} entry"
        budget = f", {c.used_chars:,}/{c.budget_chars:,} listing" if c.budget_chars else ""
        chars.append(f"{c.agent} {cap}{budget}")
    return changes + (f" ({'; '.join(chars)} characters)" if chars else "")


def _miss_lines(m, add) -> None:
    """One case not ranked first: its query terms, what ranked first, the expected skills, the competitor."""
    role = f" (role {m.role})" if m.role else ""
    where = "missed" if m.missed else f"rank {m.rank}"
    add(f"  {m.case_id}{role} [{where}]: {_q(m.query)}")
    add(f"    query terms: {', '.join(m.query_terms) or 'none'}")
    if m.winner is None:
        add("    ranked first: nothing (no skill holds a query term)")
    else:
        add(f"    ranked first: {m.winner.name}, {_standing_text(m.winner, m.ranking)}")
        if m.channel is not None:
            add(f"    put first by: {m.channel[0]} ({m.channel[1]:+.4f} over the best-ranked expected skill)")
    for e in m.expected:
        add(f"    {_expected_text(e, m.ranking)}")
    if m.competitor is not None:
        add(f"    {_competitor_text(m.competitor)}")


def _skill_proposal_lines(sp, add) -> None:
    """The proposals for one skill, or why none was checked."""
    if sp.skipped and "too few cases" not in sp.skipped:
        add(f"  {sp.skill}: not checked: {sp.skipped}")
    if not sp.proposals:
        return
    tried = plural(sp.tried, "request" if sp.field == "examples" else "phrase")
    add(f"  {sp.skill}: {sp.passing} of {tried} checked pass")
    for p in sp.proposals:
        origin = f"from {p.source}" if p.field == "examples" else f"{_support(p)}, from {p.source}"
        instead = f" in place of {_q(p.replaces)}" if p.replaces else ""
        add(f"    + {p.field}: {_q(p.text or p.phrase)}{instead} ({origin}; write it into {p.target})")
        add(f"      {_effect(p)}")
        add(f"      {_listing_text(p)}")


def _proposal_lines(why: WhyReport, add) -> None:
    """The proposals section: per skill, then the skills with too few cases or no passing phrase."""
    add("")
    add(PROPOSALS_TITLE[why.field or ("description" if why.view == "listing" else "triggers")])
    if why.mined_queries:
        add(f"  (phrases also drawn from {plural(why.mined_queries, 'mined query', 'mined queries')})")
    for sp in why.proposals:
        _skill_proposal_lines(sp, add)
    few = [sp.skill for sp in why.proposals if not sp.proposals and "too few cases" in sp.skipped]
    if few:
        add(f"  no proposal for {plural(len(few), 'skill')}, too few cases to check one on held-out cases "
            f"(each needs {MIN_CASES}; add cases or examples): {', '.join(few)}")
    failed = [sp for sp in why.proposals if not sp.proposals and not sp.skipped]
    if failed:
        add(f"  no phrase passes for {plural(len(failed), 'skill')}: "
            + ", ".join(f"{sp.skill} ({sp.tried} checked)" for sp in failed))
    if why.proposals_note:
        add(f"  note: {why.proposals_note}")


def render_why_text(why: WhyReport) -> str:
    lines: list[str] = []
    add = lines.append
    add("")
    behind = len(why.misses) - why.missed
    view = ", listing view" if why.view == "listing" else ""
    add(f"why not ({why.mode}{view}, k={why.k}): {plural(len(why.misses), 'case')} not ranked first "
        f"({why.missed} missed at k, {behind} ranked 2-{why.k})")
    for m in why.misses:
        _miss_lines(m, add)
    if why.proposals or why.proposals_note:
        _proposal_lines(why, add)
    add("")
    if why.bare_skills:
        add(f"skills with no triggers and no examples ({len(why.bare_skills)}): {', '.join(why.bare_skills)}")
    else:
        add("skills with no triggers and no examples: none")
    return "\n".join(lines) + "\n"

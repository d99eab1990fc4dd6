"""Why a labelled case missed, and which trigger phrases would fix it (``skillsift eval --why``).

For every positive case whose expected skill is not ranked first, the explanation says
which skill won and by what (its BM25F terms and points, its cosine, the fused score),
where the expected skill ranked and with what, which query terms none of the expected
skill's ranked fields (name, triggers, keywords, description) contain, and which of those
the winner does contain.

Proposals: each missed query, as written (trimmed, trailing punctuation removed), is a
candidate trigger for the expected skill.  A candidate is checked by ranking every case
again with that one trigger added (``rerank(skills)`` returns a ranker over the edited
catalog); it is kept only when it fixes at least one case (now ranked first, missed
before) and breaks none (ranked first before, not after).  The logic is pure: the
ranker factory is the caller's.  See docs/ranking-quality.md ("Why not").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..ranker.postings import FIELD_NAMES, field_text
from ..ranker.tokenize import tokenize

MAX_PROPOSALS = 50  # candidates checked per run (each ranks every case again)


@dataclass(frozen=True)
class Side:
    """What one skill got for a query."""

    name: str
    rank: int | None
    score: float
    lexical_points: float
    terms: tuple[tuple[str, float], ...]  # (term, points), best first
    vector_sim: float | None


@dataclass(frozen=True)
class Miss:
    case_id: str
    query: str
    winner: Side | None
    expected: Side
    missing_terms: tuple[str, ...]  # query terms in none of the expected skill's ranked fields
    winner_only_terms: tuple[str, ...]  # of those, the ones the winner's fields contain


@dataclass(frozen=True)
class Proposal:
    skill: str
    trigger: str
    fixes: tuple[str, ...]
    breaks: tuple[str, ...]


@dataclass
class WhyReport:
    mode: str
    misses: list[Miss] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)  # kept: fix something, break nothing
    checked: int = 0
    rejected: list[Proposal] = field(default_factory=list)
    bare_skills: list[str] = field(default_factory=list)  # no triggers and no examples


def _terms_of(skill) -> set[str]:
    out: set[str] = set()
    for name in FIELD_NAMES:
        out.update(tokenize(field_text(skill, name)))
    return out


def _side(hit, rank) -> Side:
    expl = hit.explanation
    terms = tuple(sorted(((t.term, t.points) for t in expl.terms), key=lambda x: (-x[1], x[0]))) if expl else ()
    points = expl.score if expl else (hit.score if hit.lexical_rank and hit.vector_sim is None else 0.0)
    return Side(hit.name, rank, float(hit.score), float(points), terms, hit.vector_sim)


def _top_ranks(ranker, cases, mode) -> dict[str, int | None]:
    """Case id -> rank of its best-ranked expected skill (None when not returned)."""
    out = {}
    for case in cases:
        result = ranker.search(case.query, limit=None, mode=mode, role=case.role or None)
        names = [h.name for h in result.hits]
        ranks = [names.index(e) + 1 for e in case.expect_ids if e in names]
        out[case.id] = min(ranks) if ranks else None
    return out


def trigger_text(query: str) -> str:
    return " ".join(query.split()).strip().rstrip("?.!;:,").strip()


def explain(ranker, cases: Sequence, mode: str, query_terms: Callable[[str], list[str]]) -> list[Miss]:
    """The explanation of every positive case whose expected skill is not first."""
    by_name = {s.name: s for s in ranker.skills}
    misses = []
    for case in cases:
        if case.negative:
            continue
        result = ranker.search(case.query, limit=None, mode=mode, role=case.role or None, explain=True)
        hits = list(result.hits)
        names = [h.name for h in hits]
        found = sorted((names.index(e), e) for e in case.expect_ids if e in names)
        if found and found[0][0] == 0:
            continue
        target = found[0][1] if found else case.expect_ids[0]
        if found:
            expected = _side(hits[found[0][0]], found[0][0] + 1)
        else:
            expected = Side(target, None, 0.0, 0.0, (), None)
        winner = _side(hits[0], 1) if hits else None
        terms = list(dict.fromkeys(query_terms(case.query)))
        have = _terms_of(by_name[target]) if target in by_name else set()
        missing = tuple(t for t in terms if t not in have)
        winner_terms = _terms_of(by_name[winner.name]) if winner and winner.name in by_name else set()
        misses.append(Miss(case.id, case.query, winner, expected, missing,
                           tuple(t for t in missing if t in winner_terms)))
    return misses


def propose(skills: Sequence, cases: Sequence, misses: Sequence[Miss], mode: str,
            rerank: Callable[[list], object], base_ranker) -> tuple[list[Proposal], list[Proposal], int]:
    """(kept, rejected, checked): each missed query tried as a trigger of its expected skill."""
    positives = [c for c in cases if not c.negative]
    before = _top_ranks(base_ranker, positives, mode)
    candidates = []
    for miss in misses:
        trigger = trigger_text(miss.query)
        pair = (miss.expected.name, trigger)
        if trigger and pair not in candidates:
            candidates.append(pair)
    candidates = candidates[:MAX_PROPOSALS]
    kept, rejected = [], []
    for skill_name, trigger in candidates:
        edited = []
        for s in skills:
            if s.name == skill_name and trigger.lower() not in (t.lower() for t in s.triggers):
                s = replace(s, triggers=(*s.triggers, trigger))
            edited.append(s)
        after = _top_ranks(rerank(edited), positives, mode)
        fixes = tuple(cid for cid in before if before[cid] != 1 and after[cid] == 1)
        breaks = tuple(cid for cid in before if before[cid] == 1 and after[cid] != 1)
        proposal = Proposal(skill_name, trigger, fixes, breaks)
        (kept if fixes and not breaks else rejected).append(proposal)
    return kept, rejected, len(candidates)


def bare_skills(skills: Sequence) -> list[str]:
    """Skills with no triggers and no examples, by name."""
    return sorted(s.name for s in skills if not s.triggers and not s.examples)


def report(ranker, cases: Sequence, mode: str, rerank: Callable[[list], object]) -> WhyReport:
    from ..ranker.lexical import LexicalIndex

    misses = explain(ranker, cases, mode, LexicalIndex.query_terms)
    skills = list(ranker.skills)
    kept, rejected, checked = propose(skills, cases, misses, mode, rerank, ranker) if misses else ([], [], 0)
    return WhyReport(mode, misses, kept, checked, rejected, bare_skills(skills))


def _side_text(label: str, side: Side) -> str:
    rank = "not ranked" if side.rank is None else f"rank {side.rank}"
    parts = [f"{label} {side.name} ({rank}, score {side.score:.6g})"]
    if side.terms:
        parts.append("lexical " + ", ".join(f"{t} {p:.3f}" for t, p in side.terms[:6])
                     + f" = {side.lexical_points:.3f}")
    elif side.rank is not None:
        parts.append("no lexical match")
    if side.vector_sim is not None:
        parts.append(f"cosine {side.vector_sim:.4f}")
    return "; ".join(parts)


def render_text(rep: WhyReport) -> str:
    lines = [f"why not ({rep.mode}): {len(rep.misses)} cases where the expected skill is not first"]
    for m in rep.misses:
        lines.append(f"- {m.case_id}: {m.query!r}")
        if m.winner is not None:
            lines.append("    " + _side_text("won:", m.winner))
        lines.append("    " + _side_text("expected:", m.expected))
        if m.missing_terms:
            lines.append(f"    {m.expected.name} has none of: {', '.join(m.missing_terms)}"
                         + (f" ({m.winner.name} has {', '.join(m.winner_only_terms)})"
                            if m.winner is not None and m.winner_only_terms else ""))
    lines.append("")
    lines.append(f"trigger proposals: {len(rep.proposals)} of {rep.checked} checked fix a case and break none")
    for p in rep.proposals:
        lines.append(f"- {p.skill}: add trigger {p.trigger!r} (fixes {', '.join(p.fixes)})")
    if rep.bare_skills:
        lines.append("")
        lines.append(f"skills with no triggers and no examples ({len(rep.bare_skills)}): {', '.join(rep.bare_skills)}")
    return "\n".join(lines) + "\n"


def rerank_factory(ranker, config):
    """``rerank(skills)``: a ranker over an edited catalog, like ``ranker`` (the I/O edge).

    Lexically it is a new ranker over the edited skills.  With an index, the skills whose
    embedded text changed are embedded again (one provider call each) and put into a copy
    of the index in memory, so the vector side sees the proposed trigger too; the query
    vectors already embedded are reused.
    """
    from ..catalog import catalog_from_skills
    from ..embedtext import embedded_text, text_digest
    from ..ranker.search import Ranker

    index = ranker.index
    provider = ranker.provider
    s = config.search

    def rerank(skills):
        catalog = catalog_from_skills(skills)
        if index is None or provider is None or isinstance(provider, BaseException):
            return Ranker(catalog, config)
        import numpy as np

        from ..index.manifest import ManifestItem
        from ..index.store import new_index

        items, vectors = list(index.items), np.array(index.matrix, dtype=np.float32, copy=True)
        for skill in skills:
            row = index.row(skill.domain, skill.name)
            if row < 0:
                continue
            text = embedded_text(skill, s.fields, s.index_body, s.body_chars)
            digest = text_digest(text)
            if items[row].text_digest != digest:
                vectors[row] = np.asarray(provider.embed([text]), dtype=np.float32)[0]
                old = items[row]
                items[row] = ManifestItem(id=old.id, domain=old.domain, item_digest=old.item_digest,
                                          text_digest=digest)
        m = index.manifest
        edited = new_index(provider=m.provider, model=m.model, items=items, vectors=vectors, dtype=m.dtype,
                           fields=m.fields, index_body=m.index_body, body_chars=m.body_chars)
        out = Ranker(catalog, config, index=edited, provider=provider, query_timeout_ms=0)
        out.query_cache = ranker.query_cache
        return out

    return rerank

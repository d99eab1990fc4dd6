"""Why a case missed, and which trigger phrases would fix it (``skillsift eval --why``).

Everything here works on data in memory: an :class:`~skillsift.evaluate.run.EvalResult`,
its cases, the catalog and a ranker.  Nothing is read or written; the query log is
mined by the caller and passed in as cases.  docs/evaluation.md ("Why a case missed")
describes the output and the rules:

* **explanation** of each missed case of the primary mode: the skill ranked first and
  by what (its lexical terms and points, and in hybrid/vector mode its cosine, fused
  score and lexical/vector ranks); each expected skill's rank and the query terms (after
  the ranker's own tokenizer and stemmer) that none of its searched fields (name,
  triggers, keywords, description) holds; the competing skill above it whose fields
  hold the most query terms.
* **trigger proposals** for each expected skill of a missed case: phrases taken from
  the queries that should have found it (the cases, then the mined queries), each
  checked by ranking every case again with the phrase appended to that skill's
  ``triggers`` in memory.  A proposal is kept when it fixes a miss and makes no case
  worse (see :func:`worse`).  In hybrid and vector mode the phrase also changes the
  skill's embedded text: the changed skill alone is embedded again (its other vectors
  are the index's) when the provider runs on this machine; a provider that sends text
  out is not used for it, and no proposal is made (``proposals_note`` says so).
* **bare skills**: skills with neither triggers nor examples.

Longer than 450 lines because the explanation and the proposals share the tokenised
fields, the ranking of every case and the comparison of two rankings; split, each half
would import the other's private parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..ranker.postings import FIELD_NAMES, field_text
from ..ranker.rounding import round_half_away
from ..ranker.tokenize import tokenize
from .cases import Case
from .metrics import CaseResult, NegativeResult, score_case, score_negative

WHY_SCHEMA_VERSION = 1
LEXICAL = "lexical"
MIN_SPAN_TERMS = 2  # a part of a query is proposed when it holds at least two searchable words
MAX_SPAN_WORDS = 4  # ... and at most four words
MAX_PHRASE_WORDS = 12  # a whole query longer than this is not proposed as one trigger
MAX_PHRASE_CHARS = 120
MAX_CANDIDATES_PER_SKILL = 24  # phrases checked per skill (each check ranks every case again)
MAX_PROPOSAL_SKILLS = 40  # skills given proposals per run, in name order
SHOWN_PER_SKILL = 3  # best passing proposals reported per skill
COMPETITOR_SCAN = 50  # the competitor is looked for among the first 50 skills above the expected ones
_EPS = 1e-12
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")
_CLAUSE_END = re.compile(r"[,;:!?()\[\]]|\.(?:\s|$)")

NON_LEXICAL_NOTE = ("no trigger proposals in {mode} mode: a new trigger also changes the skill's embedded text, "
                    "and checking it needs a provider on this machine to embed the changed skill again ({why}); "
                    "run --why with --mode lexical for lexical proposals")


def _r4(value: float) -> float:
    return round_half_away(float(value), 4)


# -- data --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TermShare:
    """One query term's part of a skill's lexical score."""

    term: str
    points: float
    fields: tuple[str, ...]  # the searched fields holding it

    def to_dict(self) -> dict:
        return {"term": self.term, "points": _r4(self.points), "fields": list(self.fields)}


@dataclass(frozen=True)
class Standing:
    """Where one skill stands for one query, and by what."""

    name: str
    rank: int | None  # 1-based in the full ranking; None = not retrieved
    score: float = 0.0  # the ranking's score (fused in hybrid)
    lexical_score: float = 0.0
    lexical_rank: int = 0
    vector_rank: int = 0
    cosine: float | None = None
    terms: tuple[TermShare, ...] = ()

    def to_dict(self) -> dict:
        out: dict = {"name": self.name, "rank": self.rank, "score": _r4(self.score),
                     "lexical_score": _r4(self.lexical_score)}
        if self.lexical_rank:
            out["lexical_rank"] = self.lexical_rank
        if self.vector_rank:
            out["vector_rank"] = self.vector_rank
        if self.cosine is not None:
            out["cosine"] = _r4(self.cosine)
        out["terms"] = [t.to_dict() for t in self.terms]
        return out


@dataclass(frozen=True)
class ExpectedSkill:
    """An expected skill of a missed case: its standing and the query terms it lacks."""

    standing: Standing
    lacks: tuple[str, ...]  # query terms none of its searched fields holds
    holds: tuple[tuple[str, tuple[str, ...]], ...]  # (query term, fields holding it)

    def to_dict(self) -> dict:
        out = self.standing.to_dict()
        out["lacks"] = list(self.lacks)
        out["holds"] = [{"term": t, "fields": list(f)} for t, f in self.holds]
        return out


@dataclass(frozen=True)
class Competitor:
    """The skill above the expected ones whose fields share the most query terms."""

    name: str
    rank: int
    overlap: tuple[tuple[str, tuple[str, ...]], ...]  # (query term, its fields holding it)
    expected_lacks: tuple[str, ...]  # the overlapping terms no expected skill holds

    def to_dict(self) -> dict:
        return {"name": self.name, "rank": self.rank,
                "overlap": [{"term": t, "fields": list(f)} for t, f in self.overlap],
                "expected_lacks": list(self.expected_lacks)}


@dataclass(frozen=True)
class MissExplanation:
    case_id: str
    query: str
    role: str
    ranking: str  # what the ranker used: lexical, hybrid or vector
    query_terms: tuple[str, ...]
    winner: Standing | None
    expected: tuple[ExpectedSkill, ...]
    competitor: Competitor | None

    def to_dict(self) -> dict:
        out: dict = {"id": self.case_id, "query": self.query}
        if self.role:
            out["role"] = self.role
        out["ranking"] = self.ranking
        out["query_terms"] = list(self.query_terms)
        out["winner"] = self.winner.to_dict() if self.winner is not None else None
        out["expected"] = [e.to_dict() for e in self.expected]
        out["competitor"] = self.competitor.to_dict() if self.competitor is not None else None
        return out


@dataclass(frozen=True)
class Proposal:
    """A trigger phrase for a skill and what appending it to the skill's triggers does."""

    skill: str
    phrase: str
    source: str  # the id of the case (or mined query) it comes from
    adds: tuple[str, ...]  # terms the skill's searched fields did not hold
    fixes: tuple[tuple[str, int], ...]  # (case id, its new rank): misses that become hits
    improves: tuple[str, ...]  # other cases ranked better (first relevant rank, recall or nDCG)
    lower_past_k: int = 0  # cases whose first relevant rank, already past k, moved further down
    mrr_change: float = 0.0  # the change of the mean reciprocal rank over the positive cases

    def to_dict(self) -> dict:
        return {"skill": self.skill, "phrase": self.phrase, "source": self.source, "adds": list(self.adds),
                "fixes": [{"id": i, "rank": r} for i, r in self.fixes], "improves": list(self.improves),
                "lower_past_k": self.lower_past_k, "mrr_change": _r4(self.mrr_change)}


@dataclass(frozen=True)
class SkillProposals:
    skill: str
    tried: int  # phrases checked
    passing: int  # of them, those that fix a miss and make no case worse
    proposals: tuple[Proposal, ...]  # the best SHOWN_PER_SKILL passing ones
    skipped: str = ""  # why no phrase was checked for this skill

    def to_dict(self) -> dict:
        out = {"skill": self.skill, "tried": self.tried, "passing": self.passing,
               "proposals": [p.to_dict() for p in self.proposals]}
        if self.skipped:
            out["skipped"] = self.skipped
        return out


@dataclass
class WhyReport:
    mode: str
    k: int
    misses: list[MissExplanation] = field(default_factory=list)
    proposals: list[SkillProposals] = field(default_factory=list)
    proposals_note: str = ""
    mined_queries: int = 0
    bare_skills: list[str] = field(default_factory=list)  # no triggers and no examples

    def to_dict(self) -> dict:
        out: dict = {"schema_version": WHY_SCHEMA_VERSION, "mode": self.mode, "k": self.k,
                     "misses": [m.to_dict() for m in self.misses],
                     "proposals": [p.to_dict() for p in self.proposals]}
        if self.proposals_note:
            out["proposals_note"] = self.proposals_note
        out["mined_queries"] = self.mined_queries
        out["bare_skills"] = list(self.bare_skills)
        return out


# -- terms of a skill --------------------------------------------------------------------------


def field_terms(skill) -> dict[str, frozenset[str]]:
    """The terms of each searched field (name, triggers, keywords, description)."""
    return {name: frozenset(tokenize(field_text(skill, name))) for name in FIELD_NAMES}


def _held(query_terms: Sequence[str], terms: Mapping[str, frozenset[str]]):
    """(term, fields holding it) for each query term some field holds, and the terms none holds."""
    holds, lacks = [], []
    for t in query_terms:
        where = tuple(name for name in FIELD_NAMES if t in terms[name])
        if where:
            holds.append((t, where))
        else:
            lacks.append(t)
    return tuple(holds), tuple(lacks)


def query_terms(query: str) -> tuple[str, ...]:
    """The query's terms as the lexical ranker sees them, each once, in query order."""
    return tuple(dict.fromkeys(tokenize(query)))


# -- explanations ------------------------------------------------------------------------------


def _standing(hit, rank: int | None) -> Standing:
    expl = hit.explanation
    terms: tuple[TermShare, ...] = ()
    lexical_score = 0.0
    if expl is not None:
        terms = tuple(TermShare(term=c.term, points=c.points, fields=tuple(f for f, _ in c.fields))
                      for c in expl.terms)
        lexical_score = expl.score
    return Standing(name=hit.name, rank=rank, score=hit.score, lexical_score=lexical_score,
                    lexical_rank=hit.lexical_rank, vector_rank=hit.vector_rank, cosine=hit.vector_sim, terms=terms)


def explain_miss(case: Case, search_result, by_name: Mapping) -> MissExplanation:
    """Explain one missed case from its full ranking (searched with ``explain=True``)."""
    terms = query_terms(case.query)
    hits = search_result.hits
    position = {h.name: i for i, h in enumerate(hits)}
    winner = _standing(hits[0], 1) if hits else None
    expected = []
    lacking: set[str] = set(terms)
    for name in case.expect_ids:
        skill = by_name[name]
        holds, lacks = _held(terms, field_terms(skill))
        lacking &= set(lacks)
        i = position.get(name)
        standing = _standing(hits[i], i + 1) if i is not None else Standing(name=name, rank=None)
        expected.append(ExpectedSkill(standing=standing, lacks=lacks, holds=holds))
    best = min((position[n] for n in case.expect_ids if n in position), default=len(hits))
    competitor = None
    top_overlap = 0
    for i, hit in enumerate(hits[:min(best, COMPETITOR_SCAN)]):
        holds, _ = _held(terms, field_terms(by_name[hit.name]))
        if len(holds) > top_overlap:  # ties keep the better-ranked skill
            top_overlap = len(holds)
            competitor = Competitor(name=hit.name, rank=i + 1, overlap=holds,
                                    expected_lacks=tuple(t for t, _ in holds if t in lacking))
    return MissExplanation(case_id=case.id, query=case.query, role=case.role, ranking=search_result.ranking,
                           query_terms=terms, winner=winner, expected=tuple(expected), competitor=competitor)


# -- outcomes and the "no case worse" rule ---------------------------------------------------------


def rank_value(rank: int | None) -> float:
    return float("inf") if rank is None else float(rank)


def worse(before, after, skill: str, k: int) -> bool:
    """Whether a proposal for ``skill`` made this case worse.

    A positive case is worse when it was a hit and is not, when its first relevant skill
    ranked within the top ``k`` and now ranks lower, when its recall@k or nDCG@k drops, or
    when an avoided skill now ranks first.  (A first relevant rank past ``k`` that moves
    further down changes no per-case metric but the reciprocal rank; :func:`check_proposal`
    bounds those moves by the mean reciprocal rank.)  A negative case (nothing expected)
    is worse when an avoided skill now ranks first, or when ``skill`` now ranks first and
    did not before (the new trigger makes it answer a query nothing should answer).
    """
    if isinstance(before, NegativeResult):
        return ((after.avoid_violated and not before.avoid_violated)
                or (after.top == skill and before.top != skill))
    return ((before.hit and not after.hit)
            or (before.rank is not None and before.rank <= k and rank_value(after.rank) > before.rank)
            or after.recall < before.recall - _EPS
            or after.ndcg < before.ndcg - _EPS
            or (after.avoid_violated and not before.avoid_violated))


def better(before: CaseResult, after: CaseResult) -> bool:
    return (rank_value(after.rank) < rank_value(before.rank) or after.recall > before.recall + _EPS
            or after.ndcg > before.ndcg + _EPS)


class CheckFailed(Exception):
    """A re-ranking that cannot be trusted (a search fell back to lexical, an embedding failed)."""


def rank_case(case: Case, ranker, k: int, mode: str = LEXICAL):
    """One case ranked in ``mode`` and scored at ``k`` (as the evaluation scores it)."""
    result = ranker.search(case.query, limit=None, mode=mode, role=case.role or None)
    if mode != LEXICAL and result.degraded:
        raise CheckFailed(f"a search fell back to lexical ({result.degraded})")
    ranked = [h.name for h in result.hits]
    if case.negative:
        top = float(result.hits[0].score) if result.hits else 0.0
        return score_negative(case, ranked, top)
    return score_case(case, ranked, k)


def rank_cases(cases: Sequence[Case], ranker, k: int, mode: str = LEXICAL) -> list:
    """Every case ranked in ``mode`` and scored at ``k``."""
    out: list[CaseResult | NegativeResult] = [rank_case(case, ranker, k, mode) for case in cases]
    return out


# -- candidate phrases -------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    phrase: str
    source: str
    adds: tuple[str, ...]
    order: tuple  # the order candidates are checked in


def _clean_words(query: str) -> list[tuple[str, int]]:
    """The query's white-space separated words, punctuation trimmed from their ends, each with
    the number of its clause (a comma, semicolon, colon, bracket or sentence end starts the next)."""
    words = []
    clause = 0
    for raw in query.split():
        word = _EDGE_PUNCT.sub("", raw)
        if word:
            words.append((word, clause))
        if _CLAUSE_END.search(raw + " "):
            clause += 1
    return words


def candidates(skill, sources: Sequence[tuple[str, str]]) -> list[Candidate]:
    """Phrases from ``sources`` ((id, query) pairs, most relevant first) worth trying as triggers.

    Each query gives itself (when at most MAX_PHRASE_WORDS words) and its runs of 2 to
    MAX_SPAN_WORDS words within one clause that begin and end with a searchable word and
    hold at least MIN_SPAN_TERMS searchable words; a phrase is kept
    only when it adds a term the skill's searched fields lack and is not already one of
    its triggers.  Checked first: phrases adding more missing terms, then whole queries,
    then fewer words, then by source order and position; at most MAX_CANDIDATES_PER_SKILL.
    """
    terms = field_terms(skill)
    have = frozenset().union(*terms.values())
    seen = {" ".join(t.split()).casefold() for t in skill.triggers}
    found: list[Candidate] = []
    for s_index, (source, query) in enumerate(sources):
        marked = _clean_words(query)
        words = [w for w, _ in marked]
        spans = []
        if 0 < len(words) <= MAX_PHRASE_WORDS:
            spans.append((0, len(words), True))
        for i in range(len(words)):
            for n in range(MIN_SPAN_TERMS, MAX_SPAN_WORDS + 1):
                if i + n <= len(words) and n < len(words) and marked[i][1] == marked[i + n - 1][1]:
                    spans.append((i, n, False))
        for start, n, whole in spans:
            span = words[start:start + n]
            if not whole and (not tokenize(span[0]) or not tokenize(span[-1])):
                continue
            phrase = " ".join(span)
            if not whole and len(set(tokenize(phrase))) < MIN_SPAN_TERMS:
                continue
            key = phrase.casefold()
            if key in seen or len(phrase) > MAX_PHRASE_CHARS:
                continue
            adds = tuple(t for t in dict.fromkeys(tokenize(phrase)) if t not in have)
            if not adds:
                continue
            seen.add(key)
            found.append(Candidate(phrase=phrase, source=source, adds=adds,
                                   order=(-len(adds), not whole, n, s_index, start)))
    found.sort(key=lambda c: c.order)
    return found[:MAX_CANDIDATES_PER_SKILL]


def with_trigger(skill, phrase: str):
    """``skill`` with ``phrase`` appended to its triggers (what writing it into SKILL.md gives)."""
    return replace(skill, triggers=(*skill.triggers, phrase))


@dataclass(frozen=True)
class Check:
    """What one phrase does to every case."""

    passes: bool
    fixes: tuple[tuple[str, int], ...] = ()
    improves: tuple[str, ...] = ()
    lower_past_k: int = 0
    mrr_change: float = 0.0


def check_proposal(skill_name: str, phrase: str, catalog, cases: Sequence[Case], k: int, before: Sequence,
                   checker) -> Check:
    """Append ``phrase`` to the skill's triggers and rank the cases again.

    It passes when it fixes one of the skill's own missed cases, makes no case worse
    (:func:`worse`) and does not lower the mean reciprocal rank.  The skill's own missed
    cases are ranked first: a phrase that fixes none of them fails without ranking the
    rest; the others are ranked in order, stopping at the first one made worse.
    ``checker`` is a :class:`LexicalCheck` or :class:`VectorCheck`.
    """
    import math

    from ..catalog.load import Catalog

    skills = tuple(with_trigger(s, phrase) if s.name == skill_name else s for s in catalog.skills)
    changed = Catalog(root=catalog.root, skills=skills, diagnostics=catalog.diagnostics)
    ranker = checker.ranker(changed, skill_name, phrase)
    own = [i for i, b in enumerate(before)
           if isinstance(b, CaseResult) and not b.hit and skill_name in b.expected]
    after = {i: rank_case(cases[i], ranker, k, checker.mode) for i in own}
    if not any(after[i].hit for i in own):
        return Check(passes=False)
    fixes, improves, changes = [], [], []
    lower = 0
    for i, b in enumerate(before):
        a = after[i] if i in after else rank_case(cases[i], ranker, k, checker.mode)
        if worse(b, a, skill_name, k):
            return Check(passes=False)
        if isinstance(b, CaseResult):
            changes.append(a.reciprocal - b.reciprocal)
            if not b.hit and a.hit:
                fixes.append((b.id, a.rank))
            elif better(b, a):
                improves.append(b.id)
            elif rank_value(a.rank) > rank_value(b.rank):
                lower += 1
    positives = sum(1 for b in before if isinstance(b, CaseResult))
    mrr_change = math.fsum(changes) / positives if positives else 0.0
    if mrr_change < -_EPS:
        return Check(passes=False)
    return Check(passes=True, fixes=tuple(fixes), improves=tuple(improves), lower_past_k=lower,
                 mrr_change=mrr_change)


def propose(skill_name: str, catalog, cases: Sequence[Case], k: int, before: Sequence,
            sources: Sequence[tuple[str, str]], checker) -> SkillProposals:
    """The passing trigger proposals of one skill, best first.

    Best: most fixes, then the largest gain in mean reciprocal rank (9 decimals: better
    ranks for the fixed and improved cases), then fewest cases past k ranked lower, then the
    most terms added (more of the request the skill should answer), then fewest words, then
    the phrase (by code point), so the order is the same on every run.
    """
    skill = catalog.get(skill_name)
    skipped = checker.skip(skill)
    if skipped:
        return SkillProposals(skill=skill_name, tried=0, passing=0, proposals=(), skipped=skipped)
    tried = candidates(skill, sources)
    checker.prepare(skill, [c.phrase for c in tried])
    passing = []
    for cand in tried:
        check = check_proposal(skill_name, cand.phrase, catalog, cases, k, before, checker)
        if check.passes:
            passing.append(Proposal(skill=skill_name, phrase=cand.phrase, source=cand.source, adds=cand.adds,
                                    fixes=check.fixes, improves=check.improves, lower_past_k=check.lower_past_k,
                                    mrr_change=check.mrr_change))
    passing.sort(key=lambda p: (-len(p.fixes), -round_half_away(p.mrr_change, 9), p.lower_past_k, -len(p.adds),
                                len(p.phrase.split()), p.phrase))
    return SkillProposals(skill=skill_name, tried=len(tried), passing=len(passing),
                          proposals=tuple(passing[:SHOWN_PER_SKILL]))


def _sources(skill_name: str, cases: Sequence[Case], missed: set[str], mined: Iterable[Case]):
    """(id, query) of the queries that should have found the skill: its missed cases, its other
    cases, then the mined queries labelled with it (each query once)."""
    mine = [c for c in cases if skill_name in c.expect_ids]
    ordered = [c for c in mine if c.id in missed] + [c for c in mine if c.id not in missed]
    ordered += [c for c in mined if skill_name in c.expect_ids]
    out, seen = [], set()
    for c in ordered:
        key = " ".join(c.query.split()).casefold()
        if key not in seen:
            seen.add(key)
            out.append((c.id, c.query))
    return out


def bare_skills(catalog) -> list[str]:
    """Names of the skills with no triggers and no examples, in name order."""
    return sorted(s.name for s in catalog.skills if not s.triggers and not s.examples)


class LexicalCheck:
    """Proposals ranked again lexically: a new lexical index over the changed catalog."""

    mode = LEXICAL

    def __init__(self, config):
        self.config = config

    def skip(self, skill) -> str:
        return ""

    def prepare(self, skill, phrases: Sequence[str]) -> None:
        pass

    def ranker(self, catalog, skill_name: str = "", phrase: str = ""):
        from ..ranker.search import Ranker

        return Ranker(catalog, self.config)


class VectorCheck:
    """Proposals ranked again in hybrid or vector mode.

    The changed skill is embedded again (all phrases of a skill in one batch), normalised
    and quantised as ``skillsift index`` stores it, and appended to a copy of the index
    under the skill's key; every other row is the index's own.  The query vectors come
    from the evaluated ranker's cache (the evaluation embedded every case's query).
    """

    def __init__(self, ranker, mode: str):
        self.base = ranker
        self.mode = mode
        self.config = ranker.config
        self.vectors: dict[str, object] = {}

    @staticmethod
    def unusable(ranker) -> str:
        """Why proposals cannot be checked in a non-lexical mode with ``ranker``, "" when they can."""
        from ..index.build import sends_text_out

        if getattr(ranker, "index", None) is None:
            return "no usable index is attached"
        provider = getattr(ranker, "provider", None)
        if provider is None or isinstance(provider, BaseException):
            return "the embedding provider is unavailable"
        if sends_text_out(provider):
            return "the configured provider sends text off this machine"
        return ""

    def skip(self, skill) -> str:
        """Why the skill's phrases are not checked: a skill ranked without a usable vector
        would gain from being embedded at all, not from the phrase."""
        from ..ranker.vector_search import MISSING

        position = next(i for i, s in enumerate(self.base.skills) if s.name == skill.name)
        row = self.base.vectors.rows()[position]
        if row >= 0:
            return ""
        state = "has no vector in the index" if row == MISSING else "has a stale vector"
        return f"{skill.name} {state}: run 'skillsift index' first"

    def _text(self, skill) -> str:
        from ..catalog.embedtext import embedded_text

        s = self.config.search
        return embedded_text(skill, s.fields, s.index_body, s.body_chars)

    def prepare(self, skill, phrases: Sequence[str]) -> None:
        import numpy as np

        from ..embed.base import EmbedError

        self.vectors = {}
        if not phrases:
            return
        texts = [self._text(with_trigger(skill, p)) for p in phrases]
        try:
            rows = np.asarray(self.base.provider.embed(texts), dtype=np.float32)
        except EmbedError as exc:
            raise CheckFailed(f"embedding {skill.name} again failed: {getattr(exc, 'message', exc)}") from None
        if rows.shape != (len(texts), self.base.index.dims) or not np.isfinite(rows).all():
            raise CheckFailed(f"the provider returned unusable vectors for {skill.name}")
        self.vectors = dict(zip(phrases, rows, strict=True))

    def ranker(self, catalog, skill_name: str, phrase: str):
        from dataclasses import replace as replace_

        import numpy as np

        from ..catalog.embedtext import text_digest
        from ..index.manifest import ManifestItem
        from ..index.store import Index, new_index
        from ..ranker.search import Ranker

        index = self.base.index
        m = index.manifest
        skill = catalog.get(skill_name)
        item = ManifestItem(skill.name, skill.domain, skill.digest, text_digest(self._text(skill)))
        row = new_index(provider=m.provider, model=m.model, items=[item], vectors=[self.vectors[phrase]],
                        dtype=m.dtype).matrix[0]
        matrix = np.vstack([index.matrix, row[None, :]])
        items = (*m.items, replace_(item, row=len(m.items)))  # the key now names the appended row
        patched = Index(replace_(m, items=items), matrix)
        ranker = Ranker(catalog, self.config, index=patched, provider=self.base.provider, query_timeout_ms=0)
        ranker.query_cache = self.base.query_cache
        return ranker


def why_not(result, cases: Sequence[Case], catalog, config, ranker, *, mined: Sequence[Case] = (),
            proposals: bool = True) -> WhyReport:
    """Explain the misses of ``result``'s primary mode and propose triggers for their skills.

    ``cases`` are the cases ``result`` evaluated (in the same order); ``ranker`` is the
    ranker it used (asked again, with ``explain=True``, for the missed cases only);
    ``mined`` are cases mined from the query log, used only as phrase sources.  In a
    non-lexical mode proposals are checked in that mode (:class:`VectorCheck`) when the
    ranker's provider runs on this machine.
    """
    mode, k = result.mode, result.k
    report = WhyReport(mode=mode, k=k, mined_queries=len(mined), bare_skills=bare_skills(catalog))
    by_id = {c.id: c for c in cases}
    missed = [m.id for m in result.primary.misses]
    for case_id in missed:
        case = by_id[case_id]
        found = ranker.search(case.query, limit=None, mode=mode, role=case.role or None, explain=True)
        report.misses.append(explain_miss(case, found, catalog.by_name))
    if not proposals or not missed:
        return report
    checker: LexicalCheck | VectorCheck = LexicalCheck(config)
    if mode != LEXICAL:
        why = VectorCheck.unusable(ranker)
        if why:
            report.proposals_note = NON_LEXICAL_NOTE.format(mode=mode, why=why)
            return report
        checker = VectorCheck(ranker, mode)
    skills = sorted({name for case_id in missed for name in by_id[case_id].expect_ids})
    if len(skills) > MAX_PROPOSAL_SKILLS:
        report.proposals_note = (f"trigger proposals for the first {MAX_PROPOSAL_SKILLS} of {len(skills)} "
                                 "skills with misses (name order)")
        skills = skills[:MAX_PROPOSAL_SKILLS]
    missed_set = set(missed)
    try:
        before = rank_cases(cases, ranker, k, mode)  # as the evaluation ranked them
        for name in skills:
            sources = _sources(name, cases, missed_set, mined)
            report.proposals.append(propose(name, catalog, cases, k, before, sources, checker))
    except CheckFailed as exc:
        report.proposals = []
        report.proposals_note = f"no trigger proposals: {exc}"
    return report

"""Why a case is not ranked first, and which edits would fix it (``skillsift eval --why``).

Everything here works on data in memory: an :class:`~skillsift.evaluate.run.EvalResult`,
its cases, the catalog and a ranker.  Nothing is read or written; the query log is
mined by the caller and passed in as cases.  docs/why-not.md ("Why a case missed")
describes the output and the rules:

* **explanation** of every case of the primary mode whose expected skill is not ranked
  first (the misses at k, then the cases ranked 2..k): the skill ranked first and by what
  (its lexical terms and points, and in hybrid/vector mode its cosine, fused score and
  lexical/vector ranks); each expected skill's rank and the query terms (after the ranker's
  own tokenizer and stemmer) that none of its searched fields holds; the competing skill
  above it whose fields hold the most query terms.
* **proposals** for each expected skill of an explained case: an edit of the field the
  view reads (:class:`Edits`: triggers in the full view, the description in the listing
  view), chosen and checked by cross-validation over the skill's cases
  (:mod:`skillsift.evaluate.proposals`) by ranking every case again with the edit written in.
  In hybrid and vector mode the edit also changes the skill's embedded text: the changed
  skill alone is embedded again (its other vectors are the index's) when the provider runs
  on this machine; a provider that sends text out is not used for it, and no proposal is
  made (``proposals_note`` says so).
* **bare skills**: skills with neither triggers nor examples.

Longer than 450 lines because the explanation and the proposals share the tokenised
fields, the ranking of every case and the comparison of two rankings; split, each half
would import the other's private parts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..catalog.agents import BY_NAME
from ..catalog.listing import LISTED, listed_skills
from ..catalog.load import Catalog
from ..files import glob_magic
from ..ranker.examples import normalised
from ..ranker.postings import FIELD_NAMES, field_text
from ..ranker.rounding import round_half_away
from ..ranker.tokenize import tokenize
from ..secrets.scan import detect_secret
from .case_change import rank_value
from .cases import Case
from .metrics import CaseResult
from .proposal_checks import LEXICAL, CheckFailed, LexicalCheck, RequestCheck, VectorCheck, rank_case, rank_cases
from .proposals import (
    CLAUSE,
    DESCRIPTION,
    EXAMPLES,
    SHOWN_PER_SKILL,
    TRIGGERS,
    AgentChars,
    HeldOut,
    Trial,
    cross_validate,
    description_of,
    edit_skill,
    listing_effect,
    listings_of,
    tail_sentences,
)

WHY_SCHEMA_VERSION = 4
MAX_PROPOSAL_SKILLS = 40  # skills given proposals per run, in name order (eval --why-skills; 0: all)
COMPETITOR_SCAN = 50  # the competitor is looked for among the first 50 skills above the expected ones

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
    rank: int | None = None  # the first relevant skill's rank (None: not retrieved)
    missed: bool = True  # not within the top k (else ranked 2..k)
    channel: tuple[str, float] | None = None  # the channel that put the winner first, and its advantage

    def to_dict(self) -> dict:
        out: dict = {"id": self.case_id, "query": self.query, "rank": self.rank, "missed": self.missed}
        if self.role:
            out["role"] = self.role
        out["ranking"] = self.ranking
        out["query_terms"] = list(self.query_terms)
        out["winner"] = self.winner.to_dict() if self.winner is not None else None
        out["expected"] = [e.to_dict() for e in self.expected]
        if self.channel is not None:
            out["channel"] = {"name": self.channel[0], "advantage": _r4(self.channel[1])}
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
    field: str = TRIGGERS  # the field the edit writes: triggers (full view) or description (listing view)
    text: str = ""  # the text written into that field
    support: int = 1  # the skill's requests holding every term of the phrase
    held_out: HeldOut | None = None  # its effect on held-out cases
    listing: tuple[AgentChars, ...] = ()  # listing view: characters per targeted agent after the edit
    agents: tuple[str, ...] = ()  # the agents whose own listing the edit changes
    target: str = ""  # the file the edit is written into (relative to the repository)
    replaces: str = ""  # listing view: the end of the description the text takes the place of ("" = added)

    def to_dict(self) -> dict:
        out = {"skill": self.skill, "phrase": self.phrase, "source": self.source, "adds": list(self.adds),
               "fixes": [{"id": i, "rank": r} for i, r in self.fixes], "improves": list(self.improves),
               "lower_past_k": self.lower_past_k, "mrr_change": _r4(self.mrr_change), "field": self.field,
               "text": self.text or self.phrase, "replaces": self.replaces, "support": self.support,
               "agents": list(self.agents), "target": self.target}
        if self.held_out is not None:
            out["held_out"] = self.held_out.to_dict()
        if self.listing:
            out["listing"] = [c.to_dict() for c in self.listing]
        return out


@dataclass(frozen=True)
class SkillProposals:
    skill: str
    tried: int  # phrases checked
    passing: int  # of them, those that fix a miss and make no case worse
    proposals: tuple[Proposal, ...]  # the best SHOWN_PER_SKILL passing ones
    skipped: str = ""  # why no phrase was checked for this skill
    field: str = TRIGGERS

    def to_dict(self) -> dict:
        out = {"skill": self.skill, "field": self.field, "tried": self.tried, "passing": self.passing,
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
    view: str = "full"  # full (proposals write triggers or known requests) or listing (they edit the description)
    field: str = ""  # what the proposals write: triggers, description or examples ("" before they are made)

    @property
    def missed(self) -> int:
        return sum(1 for m in self.misses if m.missed)

    def to_dict(self) -> dict:
        out: dict = {"schema_version": WHY_SCHEMA_VERSION, "mode": self.mode, "k": self.k, "view": self.view,
                     "field": self.field or (DESCRIPTION if self.view == "listing" else TRIGGERS),
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


def explain_miss(case: Case, search_result, by_name: Mapping, rank: int | None = None,
                 missed: bool = True) -> MissExplanation:
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
                           query_terms=terms, winner=winner, expected=tuple(expected), competitor=competitor,
                           rank=rank, missed=missed, channel=deciding_channel(hits, best))


def deciding_channel(hits, best: int) -> tuple[str, float] | None:
    """The channel whose share put ``hits[0]`` furthest ahead of ``hits[best]`` (the best-ranked
    expected skill; a share of 0 in each channel when it was not retrieved), and by how much.

    Channels are the shares ``--explain`` gives a blend or zscore hit (description, requests,
    vector, lexical); None without them (lexical mode, the other fusions) or when nothing ranked
    first.  Ties go to the channel listed first.
    """
    if not hits or hits[0].channels is None:
        return None
    winner = dict(hits[0].channels)
    behind = dict(hits[best].channels or ()) if best < len(hits) else {}
    name, advantage = max(((c, winner[c] - behind.get(c, 0.0)) for c in winner), key=lambda t: t[1])
    return name, advantage


# -- candidate phrases -------------------------------------------------------------------------


def _mined_sources(skill_name: str, mined: Iterable[Case]) -> list[tuple[str, str]]:
    """(id, query) of the mined queries labelled with the skill (each query once)."""
    out, seen = [], set()
    for c in mined:
        key = " ".join(c.query.split()).casefold()
        if skill_name in c.expect_ids and key not in seen:
            seen.add(key)
            out.append((c.id, c.query))
    return out


class Edits:
    """How a proposal is written into a skill and what the ranker then ranks.

    Full view (``view`` None or full): a phrase appended to the skill's ``triggers``.  Listing
    view: a clause added to its ``description``, the other skills as read; the ranked catalog
    is the agent's listing of the edited skills (:func:`~skillsift.catalog.listing.listed_skills`), and
    an edit that changes any other entry's state in a targeted agent's listing is refused.  When
    the clause added does not fit, it replaces the description's last sentence, else its last
    two, ... (:func:`~skillsift.evaluate.proposals.tail_sentences`): the first replacement that
    fits is the edit (:meth:`edit`).
    """

    def __init__(self, catalog, config, view=None):
        self.catalog = catalog
        self.view = view if view is not None and getattr(view, "listing", None) is not None else None
        self.field = DESCRIPTION if self.view is not None else TRIGGERS
        names = tuple(getattr(config.validate, "agents", ()) or ())
        self.targets = tuple(BY_NAME[n] for n in names if n in BY_NAME)
        if self.view is not None:
            self.agent = BY_NAME[self.view.agent]
            if self.agent not in self.targets:
                self.targets = (self.agent, *self.targets)
            listed = {e.path for e in self.view.listing.entries if e.listed in LISTED}
            self.raw = {s.name: s for s in self.view.skills if s.path in listed}
        self._edits: dict[tuple[str, str], tuple | None] = {}
        self._before: dict[str, dict] | None = None

    whole = False  # the candidates are phrases of the requests, not whole requests

    def target(self, name: str) -> str:
        return (self.catalog.get(name) if self.view is None else self.raw[name]).path

    def existing(self, name: str) -> set[str]:
        skill = self.catalog.get(name) if self.view is None else self.raw[name]
        return {" ".join(t.split()).casefold() for t in skill.triggers} if self.field == TRIGGERS else set()

    def apply(self, name: str, phrase: str):
        """``(ranked catalog, ranked skill)`` with ``phrase`` written in, or None when the edit is refused."""

        if self.view is None:
            edited = edit_skill(self.catalog.get(name), TRIGGERS, phrase)
            skills = tuple(edited if s.name == name else s for s in self.catalog.skills)
            return Catalog(root=self.catalog.root, skills=skills, diagnostics=self.catalog.diagnostics), edited

        found = self.edit(name, phrase)
        if found is None:
            return None
        edited = found[0]
        changed = [edited if s.path == edited.path else s for s in self.view.skills]
        _listing, shown = listed_skills(changed, self.agent, self.view.listing.context_window)
        ranked = next(s for s in shown if s.path == edited.path)
        return Catalog(root=self.catalog.root, skills=shown), ranked

    def effect(self, edited):
        if self._before is None:  # every edit is compared with the same unedited listings
            self._before = listings_of(self.view.skills, self.targets, self.view.listing.context_window)
        return listing_effect(self.view.skills, edited, self.targets, self.view.listing.context_window,
                              self.agent.name, self._before)

    def edit(self, name: str, phrase: str):
        """Listing view: ``(edited skill, replaced text, characters per targeted agent)`` of the clause
        for ``phrase`` (added, else in place of the fewest last sentences with which every targeted
        listing holds), or None when no such edit fits; made once per phrase."""
        key = (name, phrase)
        if key not in self._edits:
            raw = self.raw[name]
            found = None
            for replaces in ("", *tail_sentences(description_of(raw))):
                edited = edit_skill(raw, DESCRIPTION, phrase, replaces)
                chars = self.effect(edited)
                if chars is not None:
                    found = (edited, replaces, chars)
                    break
            self._edits[key] = found
        return self._edits[key]

    def replaced(self, name: str, phrase: str) -> str:
        """The end of the description the clause for ``phrase`` takes the place of ("" when it is added)."""
        found = self.edit(name, phrase) if self.view is not None else None
        return found[1] if found is not None else ""

    def describe(self, name: str, phrase: str) -> tuple[tuple[AgentChars, ...], tuple[str, ...]]:
        """(characters per targeted agent, the agents whose own listing the edit changes)."""
        if self.view is None:
            return (), tuple(a.name for a in self.targets if TRIGGERS in a.entry_fields)
        found = self.edit(name, phrase)
        chars = found[2] if found is not None else ()
        return chars, tuple(c.agent for c in chars if c.changes)


class RequestEdits:
    """Known requests as the full view's proposals in hybrid and vector mode (the examples kind).

    A proposal adds one of the skill's requests, whole, to its known requests: the ranking
    reads it as a vector of its own (docs/query-mining.md), no agent's listing shows it, and the
    skill's text is unchanged.  It is written into the first examples file ``[search] examples``
    names by path (a glob names none), else into the skill's frontmatter ``examples``.  A request
    in which the secrets scanner finds a credential is never proposed (``mine --into`` never writes
    one either).
    """

    field = EXAMPLES
    view = None
    whole = True

    def __init__(self, catalog, config, known: Sequence[tuple[str, str]]):
        self.catalog = catalog
        self.known: dict[str, set[str]] = {}
        for skill, text in known:
            self.known.setdefault(skill, set()).add(normalised(text))
        paths = [p.replace("\\", "/").strip() for p in config.search.examples]
        self.file = next((p for p in paths if p and not glob_magic(p)), "")
        self.patterns = tuple(config.secret_patterns)

    def target(self, name: str) -> str:
        return self.file or self.catalog.get(name).path

    def existing(self, name: str) -> set[str]:
        return set(self.known.get(name, ()))

    def apply(self, name: str, phrase: str):
        """The catalog is unchanged; a request holding a secret is refused (None): it would be committed."""

        if detect_secret(phrase, self.patterns):
            return None
        return self.catalog, self.catalog.get(name)

    def describe(self, name: str, phrase: str) -> tuple[tuple[AgentChars, ...], tuple[str, ...]]:
        return (), ()

    def replaced(self, name: str, phrase: str) -> str:
        return ""


def propose(skill_name: str, catalog, cases: Sequence[Case], k: int, before: Sequence,
            mined: Sequence[tuple[str, str]], checker, edits: Edits | RequestEdits) -> SkillProposals:
    """The cross-validated proposals of one skill, best first (:mod:`skillsift.evaluate.proposals`)."""
    skill = catalog.get(skill_name)
    skipped = checker.skip(skill)
    if skipped:
        return SkillProposals(skill=skill_name, tried=0, passing=0, proposals=(), skipped=skipped,
                              field=edits.field)
    terms = frozenset().union(*field_terms(skill).values())

    def trial(phrase: str) -> Trial:
        applied = edits.apply(skill_name, phrase)
        if applied is None:
            return Trial(rank=lambda i: None, after={}, failed=True)
        changed, ranked = applied
        checker.prepare(ranked, [phrase])
        ranker = checker.ranker(changed, skill_name, phrase)
        return Trial(rank=lambda i: rank_case(cases[i], ranker, k, checker.mode), after={})

    tried, passing, why = cross_validate(skill_name, cases, before, k, skill_terms=terms,
                                         existing=edits.existing(skill_name), mined=mined, trial=trial,
                                         whole=edits.whole)
    shown: list[Proposal] = []
    for cand, held, fixes, improves, lower, mrr in passing:
        if len(shown) == SHOWN_PER_SKILL:
            break
        if any(cand.phrase.casefold() in p.phrase.casefold() for p in shown):
            continue  # a part of a phrase already shown, ranked no better
        chars, agents = edits.describe(skill_name, cand.phrase)
        text = CLAUSE.format(phrase=cand.phrase).strip() if edits.field == DESCRIPTION else cand.phrase
        shown.append(Proposal(skill=skill_name, phrase=cand.phrase, source=cand.source, adds=cand.adds, fixes=fixes,
                              improves=improves, lower_past_k=lower, mrr_change=mrr, field=edits.field, text=text,
                              support=cand.support, held_out=held, listing=chars, agents=agents,
                              target=edits.target(skill_name), replaces=edits.replaced(skill_name, cand.phrase)))
    return SkillProposals(skill=skill_name, tried=tried, passing=len(passing), proposals=tuple(shown),
                          skipped=why, field=edits.field)


def bare_skills(catalog) -> list[str]:
    """Names of the skills with no triggers and no examples, in name order."""
    return sorted(s.name for s in catalog.skills if not s.triggers and not s.examples)


def not_first(result) -> list[CaseResult]:
    """The primary mode's cases whose expected skill is not ranked first: the misses at k (in case
    order), then the cases ranked 2..k (by rank, then case order)."""
    cases = result.primary.cases
    missed = [c for c in cases if not c.hit]
    behind = sorted((c for c in cases if c.hit and c.rank != 1), key=lambda c: rank_value(c.rank))
    return missed + behind


def why_not(result, cases: Sequence[Case], catalog, config, ranker, *, mined: Sequence[Case] = (),
            proposals: bool = True, view=None, max_skills: int = MAX_PROPOSAL_SKILLS) -> WhyReport:
    """Explain every case of ``result``'s primary mode whose expected skill is not first, and propose edits.

    ``cases`` are the cases ``result`` evaluated (in the same order); ``ranker`` is the
    ranker it used (asked again, with ``explain=True``, for the explained cases only);
    ``mined`` are cases mined from the query log, used only as phrase sources.  ``view``
    (a :class:`~skillsift.catalog.listing.View`): in the listing view proposals edit the description
    the agent lists (:class:`Edits`).  In a non-lexical mode proposals are checked in that
    mode (:class:`VectorCheck`) when the ranker's provider runs on this machine.
    """
    mode, k = result.mode, result.k
    edits = Edits(catalog, config, view)
    report = WhyReport(mode=mode, k=k, mined_queries=len(mined),
                       bare_skills=bare_skills(catalog if edits.view is None else edits.view.full),
                       view="listing" if edits.view is not None else "full")
    by_id = {c.id: c for c in cases}
    explained = not_first(result)
    for outcome in explained:
        case = by_id[outcome.id]
        found = ranker.search(case.query, limit=None, mode=mode, role=case.role or None, explain=True)
        report.misses.append(explain_miss(case, found, catalog.by_name, rank=outcome.rank, missed=not outcome.hit))
    if not proposals or not explained:
        return report
    checker: LexicalCheck | VectorCheck = LexicalCheck(config)
    chosen: Edits | RequestEdits = edits
    if mode != LEXICAL:
        why = VectorCheck.unusable(ranker)
        if why:
            report.proposals_note = NON_LEXICAL_NOTE.format(mode=mode, why=why)
            return report
        if edits.view is None and config.search.example_weight > 0:  # the full view ranks known requests
            chosen = RequestEdits(catalog, config, getattr(ranker, "_known", ()))
            checker = RequestCheck(ranker, mode, cases)
        else:
            checker = VectorCheck(ranker, mode)
    report.field = chosen.field
    skills = sorted({name for outcome in explained for name in by_id[outcome.id].expect_ids
                     if name in catalog.by_name})
    if 0 < max_skills < len(skills):
        report.proposals_note = (f"proposals for the first {max_skills} of {len(skills)} skills with cases not "
                                 "ranked first (name order; --why-skills N, 0 for all)")
        skills = skills[:max_skills]
    try:
        before = rank_cases(cases, ranker, k, mode)  # as the evaluation ranked them
        for name in skills:
            report.proposals.append(propose(name, catalog, cases, k, before, _mined_sources(name, mined), checker,
                                            chosen))
    except CheckFailed as exc:
        report.proposals = []
        report.proposals_note = f"no proposals: {exc}"
    return report

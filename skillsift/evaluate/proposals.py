"""Proposals of ``eval --why`` that carry to new requests (docs/why-not.md, "Proposals").

A proposal is an edit of the field the ranked view reads: in the full view a phrase added to
the skill's ``triggers`` (skillsift's ranking and MCP ``find_skill`` read it, no agent's own
choice does); in the listing view a clause added to its ``description`` (what the agent
lists), checked against the per-entry cap and the listing budget of every targeted agent
(``[validate] agents``) with :func:`~skillsift.catalog.listing.build_listing` itself: an edit that
would cut this entry or any other, or drop a description to name-only, is never proposed.
When the clause does not fit (a listing at its budget, an entry at its cap), the clause may
*replace* the description's last sentences instead (:func:`tail_sentences`: the last one, then
the last two, ... up to :data:`MAX_REPLACED_SENTENCES`, never the first): the shortest
replacement with which every targeted listing still holds is the edit, and it is checked like
any other, so a sentence whose words a case needs is not replaced.

Phrases are chosen and checked by cross-validation over the skill's own positive cases:
the cases are dealt into folds (case order, fold ``i % folds``); a fold's phrases come from
the queries of the other folds only, and a phrase is kept when, written in, it fixes or
improves a held-out case of its fold and makes no case of the whole set worse
(:func:`~skillsift.evaluate.whynot.worse`) nor lowers the mean reciprocal rank.  Phrases that
several of the skill's requests share are tried first (``support``), and single words only
when shared.  A skill with fewer than :data:`MIN_CASES` cases has nothing to hold out: it gets
no proposal and a sentence saying so.  Pure: the caller passes a checker that ranks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..catalog.listing import FULL, LISTED, build_listing, entry_text
from ..ranker.examples import normalised
from ..ranker.tokenize import tokenize
from .case_change import better, rank_value, worse
from .cases import Case
from .metrics import CaseResult

MIN_CASES = 2  # a skill needs this many positive cases to hold one out
MAX_FOLDS = 3
MAX_CANDIDATES_PER_FOLD = 16
MAX_SPAN_WORDS = 4
MAX_PHRASE_WORDS = 12
MAX_PHRASE_CHARS = 120
SHOWN_PER_SKILL = 3
MAX_REQUEST_CHARS = 500  # a longer request is not proposed as a known request
TRIGGERS, DESCRIPTION, EXAMPLES = "triggers", "description", "examples"
CLAUSE = ' Use it for "{phrase}".'
MAX_REPLACED_SENTENCES = 3  # a clause that does not fit replaces at most this many last sentences
_EPS = 1e-12

TOO_FEW = ("too few cases to check a proposal on held-out ones: {n} positive {cases} (at least {min} needed; "
           "add cases for it, or examples)")


@dataclass(frozen=True)
class AgentChars:
    """What a description edit does to one agent's listing."""

    agent: str
    changes: bool  # the agent lists this skill's description: its listing changes
    entry_chars: int = 0  # the entry's text after the edit
    entry_cap: int | None = None
    used_chars: int = 0  # the whole listing after the edit
    budget_chars: int | None = None

    def to_dict(self) -> dict:
        return {"agent": self.agent, "changes": self.changes, "entry_chars": self.entry_chars,
                "entry_cap": self.entry_cap, "used_chars": self.used_chars, "budget_chars": self.budget_chars}


@dataclass(frozen=True)
class HeldOut:
    """A phrase's effect on the held-out cases of the folds it was proposed from."""

    cases: int  # held-out cases checked
    fixed: tuple[str, ...] = ()  # missed at k, now hits
    first: tuple[str, ...] = ()  # now ranked first (they were not)
    improved: tuple[str, ...] = ()  # ranked better otherwise

    @property
    def gains(self) -> int:
        return len(set(self.fixed) | set(self.first) | set(self.improved))

    def to_dict(self) -> dict:
        return {"cases": self.cases, "fixed": list(self.fixed), "first": list(self.first),
                "improved": list(self.improved)}


@dataclass(frozen=True)
class Phrase:
    phrase: str
    source: str
    adds: tuple[str, ...]
    support: int  # the skill's (training) requests holding every term of the phrase
    order: tuple


_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")
_CLAUSE_END = re.compile(r"[,;:!?()\[\]]|\.(?:\s|$)")


def _words(query: str) -> list[tuple[str, int]]:
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


def phrases(skill_terms: frozenset[str], existing: set[str], sources: Sequence[tuple[str, str]]) -> list[Phrase]:
    """Candidate phrases from ``sources`` ((id, query), the fold's training requests first).

    Spans of 1 to MAX_SPAN_WORDS words within one clause that begin and end with a searchable
    word, and the whole query (up to MAX_PHRASE_WORDS words); a phrase must add a term the
    skill's ranked fields lack.  ``support``: how many of the sources hold all its terms; a
    single word, or a span of one searchable term, only when two or more do.  Order: most
    support, most terms added, whole queries before parts, fewer words, source and position.
    """
    term_sets = [(sid, frozenset(tokenize(q))) for sid, q in sources]
    found: dict[str, Phrase] = {}
    for s_index, (source, query) in enumerate(sources):
        marked = _words(query)
        words = [w for w, _ in marked]
        spans = [(0, len(words), True)] if 0 < len(words) <= MAX_PHRASE_WORDS else []
        for i in range(len(words)):
            for n in range(1, MAX_SPAN_WORDS + 1):
                if i + n <= len(words) and n < len(words) and marked[i][1] == marked[i + n - 1][1]:
                    spans.append((i, n, False))
        for start, n, whole in spans:
            span = words[start:start + n]
            if not whole and (not tokenize(span[0]) or not tokenize(span[-1])):
                continue
            phrase = " ".join(span)
            key = phrase.casefold()
            if key in existing or key in found or len(phrase) > MAX_PHRASE_CHARS:
                continue
            terms = frozenset(tokenize(phrase))
            adds = tuple(t for t in dict.fromkeys(tokenize(phrase)) if t not in skill_terms)
            if not adds:
                continue
            support = sum(1 for _sid, ts in term_sets if terms <= ts)
            if len(terms) < 2 and support < 2:
                continue
            found[key] = Phrase(phrase=phrase, source=source, adds=adds, support=support,
                                order=(-support, -len(adds), not whole, n, s_index, start))
    return sorted(found.values(), key=lambda p: p.order)


def requests(existing: set[str], sources: Sequence[tuple[str, str]]) -> list[Phrase]:
    """Candidate known requests (the full view's examples kind): each source's whole request.

    A request is proposed whole, never a fragment: the ranker compares a query with a known
    request's embedding, so a request helps the requests that mean the same, in other words.
    Left out: a request whose normalised text (:func:`skillsift.ranker.examples.normalised`) is in
    ``existing`` (already known for the skill) or came earlier, and one over MAX_REQUEST_CHARS.
    Order: the sources' (the fold's training requests not ranked first come first).
    """

    out: list[Phrase] = []
    seen = set(existing)
    for s_index, (source, query) in enumerate(sources):
        text = " ".join(query.split())
        key = normalised(text)
        if not key or key in seen or len(text) > MAX_REQUEST_CHARS:
            continue
        seen.add(key)
        out.append(Phrase(phrase=text, source=source, adds=(), support=1, order=(s_index,)))
    return out


# -- edits -------------------------------------------------------------------------------------


# what ends a sentence and the space after it; a line break is matched from the break itself (a pattern
# that began with the spaces before it would try every space of a long run again: quadratic)
_SENTENCE_GAP = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n\s*")


def description_of(skill) -> str:
    """The description a description edit starts from (the frontmatter's, right-trimmed)."""
    front = skill.frontmatter if isinstance(skill.frontmatter, dict) else {}
    described = front.get("description")
    return described.rstrip() if isinstance(described, str) and described.strip() else skill.description.rstrip()


def tail_sentences(text: str, most: int = MAX_REPLACED_SENTENCES) -> list[str]:
    """The ends of ``text`` a clause may replace: its last sentence, its last two, ... (at most ``most``),
    shortest first; never the first sentence.  A sentence ends at ``.``, ``!`` or ``?`` (and a closing
    quote or bracket) before white space, or at a line break."""
    starts = [m.end() for m in _SENTENCE_GAP.finditer(text) if 0 < m.start() and m.end() < len(text)]
    return [text[start:] for start in reversed(starts)][:max(0, most)]


def edit_skill(skill, field: str, phrase: str, replaces: str = ""):
    """``skill`` as it reads with ``phrase`` written into ``field`` (what editing SKILL.md gives).

    ``replaces`` (description only): the end of the description the clause takes the place of
    (one of :func:`tail_sentences`); ValueError when the description does not end with it.
    """
    front = dict(skill.frontmatter) if isinstance(skill.frontmatter, dict) else {}
    if field == TRIGGERS:
        front["triggers"] = [*skill.triggers, phrase]
        return replace(skill, triggers=(*skill.triggers, phrase), frontmatter=front)
    base = description_of(skill)
    if replaces:
        if not base.endswith(replaces) or not base[:len(base) - len(replaces)].strip():
            raise ValueError(f"the description of {skill.name} does not end with {replaces!r} after a first sentence")
        base = base[:len(base) - len(replaces)].rstrip()
    new = base + CLAUSE.format(phrase=phrase)
    front["description"] = new
    return replace(skill, description=new, frontmatter=front)


def listings_of(skills: Sequence, agents: Sequence, context_window: int | None) -> dict[str, dict]:
    """Per agent name, each path's entry in the listing it builds from ``skills`` (what
    :func:`listing_effect` compares an edit with; made once for many edits of the same skills)."""

    return {agent.name: {e.path: e for e in build_listing(skills, agent, context_window).entries} for agent in agents}


def listing_effect(skills: Sequence, edited, agents: Sequence, context_window: int | None,
                   ranked_agent: str, before_listings: dict[str, dict] | None = None) -> tuple[AgentChars, ...] | None:
    """Per targeted agent, what the edit does to its listing; None when it breaks one.

    An edit breaks a listing when any other entry's state changes (an entry newly cut at the
    cap, a description newly dropped to name-only, a skill newly not loaded), when the edited
    entry's state changes to anything but ``full`` (a replacement may bring a cut entry under
    the cap), or when the edited entry of the ranked agent does not show the whole new text.
    ``before_listings``: :func:`listings_of` the unedited ``skills`` when the caller has it.
    """

    out = []
    changed = [edited if s.path == edited.path else s for s in skills]
    if before_listings is None:
        before_listings = listings_of(skills, agents, context_window)
    for agent in agents:
        before = before_listings[agent.name]
        listing = build_listing(changed, agent, context_window)
        after = {e.path: e for e in listing.entries}
        if any(before[p].listed != after[p].listed for p in after if p != edited.path):
            return None
        if after[edited.path].listed not in (before[edited.path].listed, FULL):
            return None
        entry = after[edited.path]
        if agent.name == ranked_agent and entry.listed != FULL:
            return None
        reads = entry.listed in LISTED and entry.listed != "name-only" and "description" in agent.entry_fields

        front = edited.frontmatter if isinstance(edited.frontmatter, dict) else {}
        out.append(AgentChars(agent=agent.name, changes=reads, entry_chars=len(entry_text(front, agent.entry_fields)),
                              entry_cap=agent.entry_cap, used_chars=listing.used_chars,
                              budget_chars=listing.budget_chars))
    return tuple(out)


# -- cross-validated search -----------------------------------------------------------------------


@dataclass
class Trial:
    """One phrase written in: the cases ranked so far with it (lazily), and whether one got worse."""

    rank: Callable[[int], object]
    after: dict
    failed: bool = False

    def get(self, i: int):
        if i not in self.after:
            self.after[i] = self.rank(i)
        return self.after[i]


def folds_of(own: Sequence[int]) -> list[list[int]]:
    count = min(MAX_FOLDS, len(own))
    return [[c for j, c in enumerate(own) if j % count == f] for f in range(count)]


def _gain(b: CaseResult, a: CaseResult) -> str:
    if not b.hit and a.hit:
        return "fixed"
    if b.rank != 1 and a.rank == 1:
        return "first"
    return "improved" if better(b, a) else ""


def _fold_trials(skill_name: str, cases: Sequence[Case], before: Sequence, k: int, own: list[int], *, skill_terms,
                 existing, mined, trial, whole: bool) -> tuple[dict, dict, dict]:
    """``(trials, held, chosen)``: each fold's candidates, found on the other folds, tried on the fold.

    ``held[key]`` lists the held-out cases of the folds where the candidate gained and harmed none;
    ``chosen[key]`` is the candidate as first found.
    """
    trials: dict[str, Trial] = {}
    held: dict[str, list[int]] = {}
    chosen: dict[str, Phrase] = {}
    for fold in folds_of(own):
        train = [i for i in own if i not in fold]
        sources = [(cases[i].id, cases[i].query) for i in train if before[i].rank != 1]
        sources += [(cases[i].id, cases[i].query) for i in train if before[i].rank == 1] + list(mined)
        found = requests(existing, sources) if whole else phrases(skill_terms, existing, sources)
        for cand in found[:MAX_CANDIDATES_PER_FOLD]:
            key = cand.phrase.casefold()
            t = trials.get(key)
            if t is None:
                t = trials[key] = trial(cand.phrase)
            if t.failed:
                continue
            gains = [i for i in fold if _gain(before[i], t.get(i))]
            if any(worse(before[i], t.get(i), skill_name, k) for i in fold):
                t.failed = True
                continue
            if gains:
                held.setdefault(key, []).extend(fold)
                chosen.setdefault(key, cand)
    return trials, held, chosen


def _whole_effect(before: Sequence, t: Trial, skill_name: str, k: int):
    """``(fixes, improves, mrr changes, lower)`` of a trial on every case, or None (and the trial failed)
    when it makes a case worse."""
    fixes, improves, changes, lower = [], [], [], 0
    for i, b in enumerate(before):
        a = t.get(i)
        if worse(b, a, skill_name, k):
            t.failed = True
            return None
        if isinstance(b, CaseResult):
            changes.append(a.reciprocal - b.reciprocal)
            if not b.hit and a.hit:
                fixes.append((b.id, a.rank))
            elif rank_value(a.rank) < rank_value(b.rank) or _gain(b, a):
                improves.append(b.id)
            elif rank_value(a.rank) > rank_value(b.rank):
                lower += 1
    return fixes, improves, changes, lower


def _held_out(cases: Sequence[Case], before: Sequence, t: Trial, held: list[int]) -> HeldOut:
    """What a trial gained on the held-out cases ``held``."""
    out = sorted(set(held))
    kinds: dict[str, list[str]] = {"fixed": [], "first": [], "improved": []}
    for i in out:
        g = _gain(before[i], t.get(i))
        if g:
            kinds[g].append(cases[i].id)
    return HeldOut(cases=len(out), fixed=tuple(kinds["fixed"]), first=tuple(kinds["first"]),
                   improved=tuple(kinds["improved"]))


def cross_validate(skill_name: str, cases: Sequence[Case], before: Sequence, k: int, *, skill_terms, existing,
                   mined: Sequence[tuple[str, str]], trial: Callable[[str], Trial], whole: bool = False):
    """``(tried, passing, skipped)``: the phrases that pass held-out folds for ``skill_name``.

    ``passing`` holds ``(Phrase, HeldOut, fixes, improves, lower_past_k, mrr_change)``;
    ``trial(phrase)`` makes a :class:`Trial` ranking the cases with the phrase written in.
    ``whole``: the candidates are whole requests (:func:`requests`), else phrases (:func:`phrases`).
    """
    own = [i for i, c in enumerate(cases) if not c.negative and skill_name in c.expect_ids]
    if len(own) < MIN_CASES:
        return 0, [], TOO_FEW.format(n=len(own), cases="case" if len(own) == 1 else "cases", min=MIN_CASES)
    trials, held, chosen = _fold_trials(skill_name, cases, before, k, own, skill_terms=skill_terms,
                                        existing=existing, mined=mined, trial=trial, whole=whole)
    passing = []
    for key, cand in chosen.items():
        t = trials[key]
        effect = _whole_effect(before, t, skill_name, k)
        if effect is None or t.failed:
            continue
        fixes, improves, changes, lower = effect
        positives = sum(1 for b in before if isinstance(b, CaseResult))
        mrr_change = math.fsum(changes) / positives if positives else 0.0
        if mrr_change < -_EPS:
            continue
        passing.append((cand, _held_out(cases, before, t, held[key]), tuple(fixes), tuple(improves), lower,
                        mrr_change))
    passing.sort(key=lambda p: (-p[1].gains, -p[0].support, -len(p[2]), -round(p[5], 9), p[4], -len(p[0].adds),
                                len(p[0].phrase.split()), p[0].phrase))
    return len(trials), passing, ""

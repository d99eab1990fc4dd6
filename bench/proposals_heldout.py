"""Do ``eval --why`` proposals carry to requests they were not fitted on?  The held-out-half protocol.

    python bench/proposals_heldout.py [--metatool ../shared/benchmarks/metatool-dev]
                                      [--corpora ../shared/corpora] [--skills 40] [--per-skill 1]
                                      [--views full,hybrid,listing,listing-hybrid] [--agent claude-code]
                                      [--whole] [--context-window 1000000] [--oracle all|ceiling] [--json FILE]

For each development set (the MetaTool dev split; the real-skills set of
``bench/skills_devset.py``) and each view:

* ``full``: the full view in lexical mode; proposals add ``triggers``;
* ``hybrid``: the full view in hybrid mode (an index built in memory with the local model);
  proposals add known requests (``eval --why``'s examples kind), written in as an examples
  file would hold them;
* ``listing``: the listing view of ``--agent`` in lexical mode; proposals add a clause to the
  description it lists;
* ``listing-hybrid``: the same in hybrid mode (the shown texts embedded; ``--whole``: the
  clauses quote whole requests instead of phrases).

1. The positive cases are split in two halves per skill: each skill's cases in file order go
   to A, B, A, B, ... so every skill with two or more cases has cases on both sides.
2. Fit on half A only: the cases of A are ranked in the view, and for the skills with a case of
   A not ranked first and at least two cases in A (at most ``--skills`` of them, in an order
   seeded by the set's name), ``eval --why``'s own cross-validated proposals are made
   (:func:`skillsift.evaluate.whynot.propose`, the same code path, every case of A checked).
3. Write in: each skill's best proposal is written into the skill as proposed (what editing
   SKILL.md gives: :func:`skillsift.evaluate.proposals.edit_skill`; a listing clause that replaces
   the description's last sentences replaces them), one skill after the other; one
   that would make a case of A worse than before any edit, against the edits kept so far, is
   not kept (so no case of A is made worse, by construction, and the count is printed).
4. Score half B in the same view before and after, over every case of B and over the B cases
   of the edited skills: top1 and MRR with paired 95% bootstrap intervals.

The real-skills set is ranked by the text the set keeps (its description with the sentences
holding its own queries removed; see that file); its frontmatter is rewritten to the same
text so the listing reads what is ranked, and ``when_to_use`` is dropped for the same reason.
Skills are placed under ``.claude/skills`` so the Claude Code profile serves every one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from harness import METATOOL
from skills_devset import DEFAULT_CORPORA
from skills_devset import build as build_devset

from skillsift.catalog.agents import BY_NAME
from skillsift.catalog.listing import LISTING_VIEW, View, listed_skills
from skillsift.catalog.load import Catalog, catalog_from_skills, load_catalog
from skillsift.config import Config
from skillsift.evaluate.case_change import worse
from skillsift.evaluate.cases import Case, Expected, load_cases
from skillsift.evaluate.intervals import paired
from skillsift.evaluate.metrics import series
from skillsift.evaluate.proposal_checks import LexicalCheck, RequestCheck, VectorCheck, rank_cases
from skillsift.evaluate.proposals import MIN_CASES, edit_skill
from skillsift.evaluate.whynot import Edits, RequestEdits, propose
from skillsift.ranker.search import Ranker

DEFAULT_METATOOL = METATOOL
K = 5
AGENT = "claude-code"
WHOLE = False  # listing-hybrid: clauses quote whole requests (--whole), not phrases
CEILING_MIN_CASES = False  # --oracle ceiling: only skills with MIN_CASES cases in A (--ceiling-min-cases)
CEILING_KEEP_A = False  # --oracle ceiling: an edit making a case of A worse is not kept (--ceiling-keep-a)
CEILING_PHRASES = False  # --oracle ceiling (lexical views): the protocol's phrase candidates, not whole requests


def served(skill):
    """The skill as if found under .claude/skills (every profile's folders differ; Claude Code's serves it)."""
    return replace(skill, path=f".claude/skills/{skill.name}/SKILL.md")


def metatool(data: Path):
    config = Config(root=str(data), skills=("skills/*",))
    skills = [served(s) for s in load_catalog(str(data), config).skills]
    cases = [c for c in load_cases(str(data / "cases.yaml")).cases if not c.negative]
    return skills, cases


def real_skills(corpora: Path):
    ds = build_devset(corpora)
    skills = []
    for s in ds.skills:
        front = {k: v for k, v in (s.frontmatter or {}).items() if k != "when_to_use"}
        front.update(description=s.description, triggers=list(s.triggers))
        skills.append(served(replace(s, frontmatter=front)))
    cases = [Case(id=f"real-{i:05d}", query=c.query, expect=(Expected(id=c.skill),)) for i, c in enumerate(ds.cases)]
    return skills, cases


def halves(cases):
    seen: dict[str, int] = {}
    a, b = [], []
    for c in cases:
        name = c.expect_ids[0]
        (a if seen.get(name, 0) % 2 == 0 else b).append(c)
        seen[name] = seen.get(name, 0) + 1
    return a, b


def make_view(skills, view: str, window: int | None):
    full = catalog_from_skills(skills)
    if not view.startswith(LISTING_VIEW):
        return View(name="full", catalog=full, full=full)
    listing, shown = listed_skills(skills, BY_NAME[AGENT], window)
    return View(name=LISTING_VIEW, catalog=Catalog(skills=shown), full=full, skills=tuple(skills), agent=AGENT,
                listing=listing)


def ranked(skills, cases, view: str, window: int | None, config):
    v = make_view(skills, view, window)
    return v, rank_cases(cases, Ranker(v.catalog, config), K)


def wanted_skills(label: str, a, before_a, catalog, max_skills: int) -> list[str]:
    """The skills given proposals: a case of A not ranked first and MIN_CASES cases in A, in an order
    seeded by the set's name, at most ``max_skills``."""
    counts: dict[str, int] = {}
    for c in a:
        counts[c.expect_ids[0]] = counts.get(c.expect_ids[0], 0) + 1
    return sorted({c.expect_ids[0] for c, r in zip(a, before_a, strict=True) if r.rank != 1
                   and counts[c.expect_ids[0]] >= MIN_CASES and c.expect_ids[0] in catalog.by_name},
                  key=lambda n: hashlib.sha256(f"{label}/{n}".encode()).hexdigest())[:max_skills]


def written(skill, field: str, proposal):
    """``skill`` with ``proposal`` written in as proposed (a clause that replaces the description's last
    sentences replaces them), or None when an earlier edit changed the end it replaces."""
    try:
        return edit_skill(skill, field, proposal.phrase, proposal.replaces)
    except ValueError:
        return None


def fit(wanted, catalog, a, before_a, checker, edits, per_skill: int):
    """``eval --why``'s proposals for each wanted skill on half A: (best per skill, tried, passing)."""
    best = {}
    tried = passing = 0
    for name in wanted:
        sp = propose(name, catalog, a, K, before_a, [], checker, edits)
        tried += sp.tried
        passing += sp.passing
        if sp.proposals:
            best[name] = sp.proposals[:per_skill]
    return best, tried, passing


def report(label: str, view: str, a, b, wanted, fitted, kept, reverted, before_a, final_a, before_b, after_b,
           per_skill: int, started: float, **extra) -> dict:
    """The row of one set and view, printed and returned."""
    best, tried, passing = fitted
    worse_a = sum(1 for x, y in zip(before_a, final_a, strict=True) if worse(x, y, "", K))
    idx = [i for i, c in enumerate(b) if c.expect_ids[0] in set(kept)]
    out = {"set": label, "view": view, "cases_a": len(a), "cases_b": len(b), "skills_checked": len(wanted),
           "phrases_tried": tried, "phrases_passing": passing, "skills_with_proposal": len(best),
           "written": len(kept), **extra, "not_kept": reverted, "a_cases_worse": worse_a,
           "b_all": summary(before_b, after_b),
           "b_edited_skills": summary([before_b[i] for i in idx], [after_b[i] for i in idx]),
           "a_all": summary(before_a, final_a),
           "per_skill": per_skill, "examples": {n: best[n][0].text for n in kept[:8] if best.get(n)},
           "seconds": round(time.perf_counter() - started, 1)}
    print_row(out)
    return out


class Hybrid:
    """The full view in hybrid mode: an index of the set's skills built in memory with the local
    model (what ``skillsift index`` stores), every case's query embedded once, and proposals that add
    known requests (``eval --why``'s examples kind, :class:`RequestEdits` and :class:`RequestCheck`)."""

    mode = "hybrid"

    def __init__(self, skills, cases, config):
        from skillsift.embed.local import LocalProvider
        from skillsift.index.build import build_index, plan_build

        s = config.search
        self.provider = LocalProvider()
        self.catalog = catalog_from_skills(skills)
        plan = plan_build(self.catalog.skills, None, provider=self.provider, fields=s.fields,
                          index_body=s.index_body, body_chars=s.body_chars)
        self.index = build_index(plan, self.provider, batch_size=s.batch_size).index
        self.base = Ranker(self.catalog, config, index=self.index, provider=self.provider, query_timeout_ms=0)
        self.base.warm_queries([c.query for c in cases])
        self.config = config

    def with_known(self, cases, known):
        """The base ranker with these known requests, held out as ``eval`` holds them for ``cases``
        (a query's own text never its evidence; k-fold when some case queries are known requests)."""
        from skillsift.catalog.embedtext import text_digest
        from skillsift.evaluate.examples import HeldOutExamples
        from skillsift.ranker.setup import request_rows

        cached = self.__dict__.setdefault("rows", {})  # each request embedded once per run
        missing = [(n, t) for n, t in known if (n, text_digest(t)) not in cached]
        if missing:
            rows, problem = request_rows(self.index, missing, self.provider,
                                         batch_size=self.config.search.batch_size)
            if rows is None:
                raise SystemExit(f"embedding the known requests failed: {problem}")
            cached.update(rows)
        rows = {(n, text_digest(t)): cached[(n, text_digest(t))] for n, t in known}
        return HeldOutExamples(self.base.with_requests(tuple(known), rows), cases, tuple(known))

    def rank(self, cases, known=()):
        return rank_cases(cases, self.with_known(cases, known) if known else self.base, K, self.mode)


def summary(before, after) -> dict:
    d = paired(series(before), series(after))
    n = len(before)
    out = {"n": n}
    for key in ("top1", "mrr"):
        b = sum(series(before)[key]) / n if n else 0.0
        a = sum(series(after)[key]) / n if n else 0.0
        out[key] = {"before": round(b, 4), "after": round(a, 4), "diff": round(d[key].diff, 4) if d else 0.0,
                    "low": round(d[key].low, 4) if d else 0.0, "high": round(d[key].high, 4) if d else 0.0}
    return out


def run_requests(label: str, skills, cases, max_skills: int, per_skill: int = 1) -> dict:
    """The protocol in the full view, hybrid mode: proposals add known requests (the examples kind)."""
    started = time.perf_counter()
    config = Config(root=".")
    a, b = halves(cases)
    h = Hybrid(skills, cases, config)
    before_a = h.rank(a)
    wanted = wanted_skills(label, a, before_a, h.catalog, max_skills)
    edits = RequestEdits(h.catalog, config, ())
    checker = RequestCheck(h.base, h.mode, a)
    fitted = fit(wanted, h.catalog, a, before_a, checker, edits, per_skill)
    best = fitted[0]
    known: list[tuple[str, str]] = []
    kept, reverted = [], 0
    for name, shown in sorted(best.items()):
        for p in shown:
            trial = [*known, (name, p.text)]
            after_a = h.rank(a, trial)
            if any(worse(x, y, name, K) for x, y in zip(before_a, after_a, strict=True)):
                reverted += 1
                continue
            known = trial
            if name not in kept:
                kept.append(name)
    return report(label, "full, hybrid: known requests", a, b, wanted, fitted, kept, reverted, before_a,
                  h.rank(a, known), h.rank(b), h.rank(b, known), per_skill, started, requests_written=len(known))


class ListingHybrid:
    """The listing view in hybrid mode: every skill's shown text embedded (an index over the full
    texts, then :func:`skillsift.ranker.setup.view_index`, as ``eval --view listing`` does),
    description clauses checked by :class:`VectorCheck` (the edited skill embedded again)."""

    mode = "hybrid"

    def __init__(self, skills, cases, window, config):
        from skillsift.embed.local import LocalProvider
        from skillsift.index.build import build_index, plan_build

        s = config.search
        self.config, self.window = config, window
        self.provider = LocalProvider()
        full = catalog_from_skills(skills)
        plan = plan_build(full.skills, None, provider=self.provider, fields=s.fields, index_body=s.index_body,
                          body_chars=s.body_chars)
        self.index = build_index(plan, self.provider, batch_size=s.batch_size).index
        self.cache = None
        self.queries = [c.query for c in cases]

    def ranker(self, skills):
        from skillsift.ranker.setup import view_index

        v = make_view(skills, LISTING_VIEW, self.window)
        vindex, problem = view_index(self.index, self.provider, v.catalog.skills, self.config)
        if vindex is None:
            raise SystemExit(problem)
        ranker = Ranker(v.catalog, self.config, index=vindex, provider=self.provider, query_timeout_ms=0)
        if self.cache is None:
            ranker.warm_queries(self.queries)
            self.cache = ranker.query_cache
        ranker.query_cache = self.cache
        return v, ranker

    def rank(self, skills, cases):
        v, ranker = self.ranker(skills)
        return v, ranker, rank_cases(cases, ranker, K, self.mode)


def run_listing_hybrid(label: str, skills, cases, max_skills: int, window: int | None, per_skill: int = 1) -> dict:
    started = time.perf_counter()
    config = Config(root=".")
    a, b = halves(cases)
    h = ListingHybrid(skills, cases, window, config)
    v, base, before_a = h.rank(skills, a)
    wanted = wanted_skills(label, a, before_a, v.catalog, max_skills)
    edits = Edits(v.catalog, config, v)
    edits.whole = WHOLE
    checker = VectorCheck(base, h.mode)
    fitted = fit(wanted, v.catalog, a, before_a, checker, edits, per_skill)
    best = fitted[0]
    current = list(skills)
    kept, reverted = [], 0
    for name, shown in sorted(best.items()):
        for p in shown:
            edited = written(next(s for s in current if s.name == name), "description", p)
            if edited is None or edits.effect(edited) is None:
                reverted += 1
                continue
            trial = [edited if s.name == name else s for s in current]
            _v, _r, after_a = h.rank(trial, a)
            if any(worse(x, y, name, K) for x, y in zip(before_a, after_a, strict=True)):
                reverted += 1
                continue
            current = trial
            if name not in kept:
                kept.append(name)
            now = make_view(current, LISTING_VIEW, window)
            edits = Edits(now.catalog, config, now)
            edits.whole = WHOLE
    view = f"listing ({AGENT}), hybrid" + (", whole requests" if WHOLE else "")
    return report(label, view, a, b, wanted, fitted, kept, reverted, before_a, h.rank(current, a)[2],
                  h.rank(skills, b)[2], h.rank(current, b)[2], per_skill, started)


def run(label: str, skills, cases, view: str, max_skills: int, window: int | None, per_skill: int = 1) -> dict:
    if view == "hybrid":
        return run_requests(label, skills, cases, max_skills, per_skill)
    if view == "listing-hybrid":
        return run_listing_hybrid(label, skills, cases, max_skills, window, per_skill)
    started = time.perf_counter()
    config = Config(root=".")
    a, b = halves(cases)
    v, before_a = ranked(skills, a, view, window, config)
    wanted = wanted_skills(label, a, before_a, v.catalog, max_skills)
    edits = Edits(v.catalog, Config(root="."), v if view == LISTING_VIEW else None)
    edits.whole = WHOLE
    checker = LexicalCheck(config)
    fitted = fit(wanted, v.catalog, a, before_a, checker, edits, per_skill)
    best = fitted[0]
    field = "description" if view == LISTING_VIEW else "triggers"
    current = list(skills)
    kept, reverted = [], 0
    for name, shown in sorted(best.items()):
        for p in shown:
            edited = written(next(s for s in current if s.name == name), field, p)
            if edited is None or view == LISTING_VIEW and edits.effect(edited) is None:
                reverted += 1  # an earlier edit used the room this one needed
                continue
            trial = [edited if s.name == name else s for s in current]
            _v, after_a = ranked(trial, a, view, window, config)
            if any(worse(x, y, name, K) for x, y in zip(before_a, after_a, strict=True)):
                reverted += 1
                continue
            current = trial
            if name not in kept:
                kept.append(name)
            if view == LISTING_VIEW:
                now = make_view(current, view, window)
                edits = Edits(now.catalog, Config(root="."), now)
                edits.whole = WHOLE
    shown_view = view + (", whole requests" if WHOLE else "")
    return report(label, shown_view, a, b, wanted, fitted, kept, reverted, before_a,
                  ranked(current, a, view, window, config)[1], ranked(skills, b, view, window, config)[1],
                  ranked(current, b, view, window, config)[1], per_skill, started)


def requests_of(a) -> dict[str, list[str]]:
    """Each skill's requests in half A, in file order."""
    by_skill: dict[str, list[str]] = {}
    for c in a:
        by_skill.setdefault(c.expect_ids[0], []).append(c.query)
    return by_skill


def run_oracle(label: str, skills, cases, view: str, window: int | None) -> dict:
    """The ceiling of the protocol: every request of half A written into its skill, unchecked.

    No proposal can write more than half A holds, so this is what writing all of it gives half B
    in the view (``full``: each request a trigger; ``listing``: each request quoted in a
    description clause, the listing's caps and budget applied as the agent applies them, so a
    clause past the cap is cut and a description past the budget dropped; ``hybrid``: each request
    a known request).  Nothing is cross-validated and no case of A is protected.
    """
    started = time.perf_counter()
    config = Config(root=".")
    a, b = halves(cases)
    by_skill = requests_of(a)
    if view == "hybrid":
        h = Hybrid(skills, cases, config)
        known = [(name, q) for name, qs in sorted(by_skill.items()) for q in qs if name in h.catalog.by_name]
        before_a, before_b = h.rank(a), h.rank(b)
        final_a, after_b = h.rank(a, known), h.rank(b, known)
        written = sorted({n for n, _q in known})
    else:
        field = "description" if view == LISTING_VIEW else "triggers"
        current = []
        for skill in skills:
            for q in by_skill.get(skill.name, ()):
                skill = edit_skill(skill, field, q)
            current.append(skill)
        written = sorted(n for n in by_skill if any(s.name == n for s in skills))
        _v, before_a = ranked(skills, a, view, window, config)
        _v, before_b = ranked(skills, b, view, window, config)
        _v, final_a = ranked(current, a, view, window, config)
        _v, after_b = ranked(current, b, view, window, config)
    fitted = ({n: [] for n in written}, 0, 0)
    return report(label, f"{view}: every request of A written in", a, b, written, fitted, written, 0,
                  before_a, final_a, before_b, after_b, 0, started)


def _gain(before, after) -> tuple[int, float]:
    """(cases first after - before, reciprocal ranks after - before)."""
    s0, s1 = series(before), series(after)
    return (round(sum(s1["top1"]) - sum(s0["top1"])), sum(s1["mrr"]) - sum(s0["mrr"]))


def _a_worse(before_a, after_a) -> bool:
    """Whether any case of A ranks worse than before any edit (the protocol's rule)."""
    return any(worse(x, y, "", K) for x, y in zip(before_a, after_a, strict=True))


def _best_phrase(name, requests, current, position, field, view, window, config, a, b, before_a, now_b):
    """``--ceiling-phrases``: the protocol's candidate phrases of the skill's requests of A (the first
    ``MAX_CANDIDATES_PER_FOLD``, in the protocol's order, from all of its requests of A at once) each
    written in alone and half B ranked; the one that gains B the most cases first (then the most MRR)
    is kept, unless it makes a case of A worse (``--ceiling-keep-a``: then the next best).  Returns
    ``(skills, ranked B)`` with the kept phrase written in, or None when none is kept."""
    from skillsift.evaluate.proposals import MAX_CANDIDATES_PER_FOLD, phrases
    from skillsift.evaluate.whynot import field_terms

    skill = current[position[name]]
    ranked_skill = skill if view != LISTING_VIEW else replace(skill, triggers=(), keywords=(), examples=(),
                                                             not_for=(), body="")
    terms = frozenset().union(*field_terms(ranked_skill).values())
    existing = {" ".join(t.split()).casefold() for t in skill.triggers} if field == "triggers" else set()
    found = phrases(terms, existing, [(f"a{i}", q) for i, q in enumerate(requests)])[:MAX_CANDIDATES_PER_FOLD]
    gains = []
    for cand in found:
        edited = edit_skill(skill, field, cand.phrase)
        trial = list(current)
        trial[position[name]] = edited
        _v, trial_b = ranked(trial, b, view, window, config)
        g = _gain(now_b, trial_b)
        if g[0] > 0 or (g[0] == 0 and g[1] > 1e-9):
            gains.append((-g[0], -g[1], cand.order, trial, trial_b))
    for _g0, _g1, _order, trial, trial_b in sorted(gains, key=lambda x: x[:3]):
        if CEILING_KEEP_A and _a_worse(before_a, ranked(trial, a, view, window, config)[1]):
            continue
        return trial, trial_b
    return None


def run_ceiling(label: str, skills, cases, view: str, window: int | None) -> dict:
    """An upper bound no selection from half A can pass: each request of A is written into its skill
    (one at a time, skills in name order) and kept only when it raises half B's count of cases
    ranked first (or keeps it and raises B's MRR), judged on half B itself.  Selecting with the
    answers to the test is what no honest protocol can do, so a proposal fitted on A gains at most
    about this much on B with the same kind of edit (a greedy choice, not the exact maximum)."""
    started = time.perf_counter()
    config = Config(root=".")
    a, b = halves(cases)
    by_skill = requests_of(a)
    if CEILING_MIN_CASES:  # only the skills the protocol's rule lets a proposal reach (MIN_CASES cases in A)
        by_skill = {n: qs for n, qs in by_skill.items() if len(qs) >= MIN_CASES}
    if view == "hybrid":
        h = Hybrid(skills, cases, config)
        before_a, before_b = h.rank(a), h.rank(b)
        known: list[tuple[str, str]] = []
        now_b = before_b
        kept = []
        h.with_known(a, [(n, q) for n, qs in by_skill.items() for q in qs if n in h.catalog.by_name])  # embed once
        for name in sorted(n for n in by_skill if n in h.catalog.by_name):
            # a skill's requests of A together (one trial per skill: each re-ranks the whole of B)
            trial = [*known, *((name, q) for q in by_skill[name])]
            trial_b = h.rank(b, trial)
            g = _gain(now_b, trial_b)
            if g[0] > 0 or (g[0] == 0 and g[1] > 1e-9):
                if CEILING_KEEP_A and _a_worse(before_a, h.rank(a, trial)):  # the protocol's own rule
                    continue
                known, now_b = trial, trial_b
                kept.append(name)
        final_a, after_b = h.rank(a, known), now_b
    else:
        field = "description" if view == LISTING_VIEW else "triggers"
        current = list(skills)
        position = {s.name: i for i, s in enumerate(current)}
        _v, before_a = ranked(skills, a, view, window, config)
        _v, before_b = ranked(skills, b, view, window, config)
        now_b = before_b
        kept = []
        for name in sorted(n for n in by_skill if n in position):
            if CEILING_PHRASES:
                best = _best_phrase(name, by_skill[name], current, position, field, view, window, config, a, b,
                                    before_a, now_b)
                if best is not None:
                    current, now_b = best
                    kept.append(name)
                continue
            for q in by_skill[name]:
                trial = list(current)
                trial[position[name]] = edit_skill(current[position[name]], field, q)
                _v, trial_b = ranked(trial, b, view, window, config)
                g = _gain(now_b, trial_b)
                if g[0] > 0 or (g[0] == 0 and g[1] > 1e-9):
                    if CEILING_KEEP_A and _a_worse(before_a, ranked(trial, a, view, window, config)[1]):
                        continue  # the protocol's own rule: no case of A worse than before any edit
                    current, now_b = trial, trial_b
                    kept.append(name)
        _v, final_a = ranked(current, a, view, window, config)
        after_b = now_b
    kept = list(dict.fromkeys(kept))
    fitted = ({n: [] for n in kept}, 0, 0)
    scope = (f", skills with {MIN_CASES}+ cases in A" if CEILING_MIN_CASES else "") + (
        ", no case of A worse" if CEILING_KEEP_A else "")
    what = "the best phrase of A's requests" if CEILING_PHRASES and view != "hybrid" else "requests of A"
    return report(label, f"{view}: {what} kept when they help B (ceiling{scope})", a, b, sorted(by_skill),
                  fitted,
                  kept, 0, before_a, final_a, before_b, after_b, 0, started)


def print_row(r: dict) -> None:
    def cell(s: dict, key: str) -> str:
        m = s[key]
        return f"{m['before']:.3f} -> {m['after']:.3f} ({m['diff']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}])"

    print(f"| {r['set']} | {r['view']} (x{r['per_skill']}) | {r['skills_checked']} | {r['skills_with_proposal']} "
          f"| {r['written']} "
          f"| {r['a_cases_worse']} | {r['b_all']['n']}: {cell(r['b_all'], 'top1')} "
          f"| {r['b_edited_skills']['n']}: {cell(r['b_edited_skills'], 'top1')} "
          f"| {cell(r['b_all'], 'mrr')} | {r['seconds']} s |", flush=True)


def main() -> int:
    global AGENT, WHOLE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--skills", type=int, default=40, help="skills given proposals per set and view")
    parser.add_argument("--views", default="full,hybrid,listing",
                        help="full (lexical, triggers), hybrid (full view in hybrid mode, known requests), listing "
                             "(lexical, description clauses), listing-hybrid (the same in hybrid mode)")
    parser.add_argument("--sets", default="metatool,real-skills")
    parser.add_argument("--context-window", type=int, default=None,
                        help="Claude Code's context window in tokens (default: its profile's, 200,000)")
    parser.add_argument("--per-skill", type=int, default=1, help="shown proposals written per skill (best first)")
    parser.add_argument("--whole", action="store_true",
                        help="the candidates are whole requests of A, not phrases of them (every view but hybrid, "
                             "whose known requests are whole already)")
    parser.add_argument("--agent", default="claude-code", help="the agent whose listing the listing views rank")
    parser.add_argument("--oracle", choices=("all", "ceiling"), default=None,
                        help="instead of the protocol: every request of half A written in (all), or each kept "
                             "when it helps half B itself (ceiling: an upper bound for any selection from A)")
    parser.add_argument("--ceiling-min-cases", action="store_true",
                        help="--oracle ceiling: only the skills with enough cases in A for a proposal to be checked")
    parser.add_argument("--ceiling-keep-a", action="store_true",
                        help="--oracle ceiling: no edit that makes a case of A worse is kept")
    parser.add_argument("--ceiling-phrases", action="store_true",
                        help="--oracle ceiling (lexical views): each skill's best phrase of its requests of A (the "
                             "protocol's candidates) instead of its whole requests")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    global CEILING_MIN_CASES, CEILING_KEEP_A, CEILING_PHRASES
    CEILING_MIN_CASES, CEILING_KEEP_A = args.ceiling_min_cases, args.ceiling_keep_a
    CEILING_PHRASES = args.ceiling_phrases
    AGENT = args.agent
    WHOLE = args.whole
    print("| set | view | skills checked | with a proposal | written | A cases worse | half B top1 (all) "
          "| half B top1 (edited skills) | half B MRR (all) | time |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    sets = {}
    if "metatool" in args.sets:
        sets["MetaTool dev"] = lambda: metatool(args.metatool)
    if "real-skills" in args.sets:
        sets["real skills"] = lambda: real_skills(args.corpora)
    for label, load in sets.items():
        skills, cases = load()
        for view in args.views.split(","):
            if args.oracle == "all":
                rows.append(run_oracle(label, skills, cases, view, args.context_window))
            elif args.oracle == "ceiling":
                rows.append(run_ceiling(label, skills, cases, view, args.context_window))
            else:
                rows.append(run(label, skills, cases, view, args.skills, args.context_window, args.per_skill))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Evaluation with known requests, without leakage: a case is never ranked with its own request.

Reading the known requests (the examples files of ``[search] examples`` and the skills'
frontmatter ``examples``) is :mod:`skillsift.ranker.known`, below the ranker that ranks with
them; its names are importable from here as well.  :func:`example_pairs` are the requests an index
build embeds (:mod:`skillsift.usecases.index_build`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ranker.known import (  # noqa: F401  (the names other modules import from here)
    HINT,
    MAX_FILES,
    KnownRequest,
    KnownRequests,
    dedupe,
    example_files,
    file_requests,
    frontmatter_requests,
    known_requests,
    load_examples_files,
)

# -- evaluation without leakage ---------------------------------------------------------------------


class HeldOutExamples:
    """A ranker whose every case is ranked without its own evidence (docs/evaluation.md).

    A case's own evidence is a known request whose normalised text equals its query *and*
    whose skill is one the case expects.  A request of another skill with the same text is
    kept: a live search ranks with it, so a pull request that writes the gated cases' queries
    as requests of its own skill is measured as production would rank it (docs/evaluation.md,
    "Known requests: no case is its own evidence").  Several cases with one query hold out the evidence of
    every skill any of them expects.  When some cases' own evidence exists (the cases file is
    an examples file, or overlaps one, or the cases are the frontmatter ``examples``), the
    cases are split in ``folds`` fixed folds (:func:`skillsift.evaluate.holdout.fold_of`) and each
    fold is ranked without the own evidence of every case of that fold: k-fold.  The rule is
    :mod:`skillsift.evaluate.holdout`'s, the one ``tune`` applies when it chooses
    ``example_weight``.  Everything else is the wrapped ranker's.
    """

    def __init__(self, ranker, cases, requests: Sequence[tuple[str, str]], *, folds: int = 5, _plan=None):
        from .holdout import plan

        self.ranker = ranker
        if _plan is None:
            rule = plan([(c.query, [e.id for e in c.expect]) for c in cases], requests, folds=folds)
            _plan = (rule, [rule.kept(f, requests) for f in range(rule.folds)])
        self._plan = _plan
        rule, per_fold = _plan
        self.rule = rule
        self.overlap, self.folds, self._fold_of = rule.overlap, rule.folds, rule.fold_of_key
        vectors = ranker.vectors
        vectors.own_evidence = _positions(vectors, dict(rule.own))
        self._rows: dict[int, object] = {}
        for f, chosen in enumerate(per_fold):
            ranker.use_examples(chosen)
            self._rows[f] = vectors.examples

    def like(self, ranker) -> HeldOutExamples:
        """Another ranker (the same catalog) ranked with the same folds."""
        return HeldOutExamples(ranker, (), (), _plan=self._plan)

    def note(self) -> str:
        if self.overlap:
            return (f"{self.overlap} case queries are known requests: scored by {self.folds}-fold "
                    f"(each fold ranked with the other folds' known requests, never its own)")
        return "known requests rank the cases; a case's own text is never its evidence"

    def __getattr__(self, name):
        return getattr(self.ranker, name)

    def search(self, query, limit=None, mode=None, **options):
        from ..ranker.examples import normalised

        self.ranker.vectors.examples = self._rows[self._fold_of.get(normalised(query), 0)]
        return self.ranker.search(query, limit=limit, mode=mode, **options)


def _positions(vectors, own_names: dict[str, frozenset[str]]) -> dict[str, frozenset[int]]:
    """``own_names`` (query -> expected skill names) as catalog positions (names not served dropped)."""
    out: dict[str, frozenset[int]] = {}
    for key, names in own_names.items():
        found = set()
        for name in names:
            try:
                found.add(vectors.position(name))
            except KeyError:
                continue
        if found:
            out[key] = frozenset(found)
    return out


def held_out(ranker, case_file):
    """``ranker`` wrapped in :class:`HeldOutExamples` when it ranks with known requests, else itself."""
    known = getattr(ranker, "_known", ())
    if not known or ranker.vectors is None or ranker.vectors.examples is None:
        return ranker
    if ranker.config.search.example_weight <= 0:  # known requests are off: they rank nothing
        return ranker
    return HeldOutExamples(ranker, case_file.cases, known)


def example_pairs(config, catalog) -> list[tuple[str, str]]:
    """The known requests to index: ``(skill, request)`` of the examples files and frontmatter ``examples``."""
    return [(r.skill, r.text) for r in known_requests(catalog, config).requests]


def indexed_example_pairs(config, catalog, provider) -> list[tuple[str, str]]:
    """The known requests a build with ``provider`` gives a row: :func:`example_pairs` without those
    it withholds for a secret (AR9D3), which rightly have none (``status``, ``validate``)."""
    from ..secrets.egress import secret_scan

    pairs = example_pairs(config, catalog)
    scan = secret_scan(provider, config.secret_patterns)
    if scan is None:  # a provider in this process is given every request (the build's planning is not loaded)
        return pairs
    from ..index.build import withhold_requests

    kept, _withheld = withhold_requests(pairs, scan)
    return kept

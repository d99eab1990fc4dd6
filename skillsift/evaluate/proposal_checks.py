"""How a proposal of ``eval --why`` is checked: every case ranked again with the edit written in.

A *checker* makes the ranker a proposal is judged with: :class:`LexicalCheck` indexes the
changed catalog again; :class:`VectorCheck` (hybrid and vector mode) embeds the changed skill
again and keeps every other row of the index; :class:`RequestCheck` (the full view's known
requests) embeds the proposed request once and ranks with it added to the skill's known
requests.  The protocol: ``mode``, ``skip(skill)`` (why a skill's proposals are not checked),
``prepare(skill, phrases)`` (embed what the phrases need, in one call) and
``ranker(catalog, skill_name, phrase)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog.embedtext import embedded_text, text_digest
from ..embed.base import EmbedError
from ..index.manifest import ManifestItem
from ..index.store import Index, new_index
from ..ranker.search import Ranker
from ..ranker.setup import request_rows
from ..ranker.vector_search import MISSING
from ..secrets.egress import sends_text_out
from .cases import Case
from .examples import HeldOutExamples
from .metrics import CaseResult, NegativeResult, score_case, score_negative

LEXICAL = "lexical"


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

        position = next(i for i, s in enumerate(self.base.skills) if s.name == skill.name)
        row = self.base.vectors.rows()[position]
        if row >= 0:
            return ""
        state = "has no vector in the index" if row == MISSING else "has a stale vector"
        return f"{skill.name} {state}: run 'skillsift index' first"

    def _text(self, skill) -> str:
        s = self.config.search
        return embedded_text(skill, s.fields, s.index_body, s.body_chars)

    def prepare(self, skill, phrases: Sequence[str]) -> None:
        """Embed ``skill`` (the ranked skill with the phrases written in) once per phrase."""
        import numpy as np

        self.vectors = {}
        if not phrases:
            return
        texts = [self._text(skill) for _p in phrases]
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
        like = getattr(self.base, "like", None)  # known requests held out as the evaluation held them
        return like(ranker) if like is not None else ranker


class RequestCheck(VectorCheck):
    """Known requests proposed in hybrid or vector mode (the full view's examples kind).

    The proposed request is embedded once (as ``skillsift index`` embeds a known request:
    normalised and quantised like the index's rows) and the cases are ranked as ``eval`` will
    rank them once it is written in: with it added to the known requests, held out by the
    evaluation's own rule (:class:`~skillsift.evaluate.examples.HeldOutExamples` over ``cases``
    and the new set of requests: a case is never ranked with its own request as evidence, and
    when the request is a case's query the file is scored by k-fold, each fold without its
    own requests).  The skill's own vector and every other row are the index's.
    """

    def __init__(self, ranker, mode: str, cases: Sequence[Case] = ()):
        super().__init__(ranker, mode)
        self.rows: dict = {}
        self.cases = tuple(cases)

    def prepare(self, skill, phrases: Sequence[str]) -> None:
        self.rows = {}
        if not phrases:
            return
        rows, problem = request_rows(self.base.index, [(skill.name, p) for p in phrases], self.base.provider,
                                     batch_size=self.config.search.batch_size)
        if rows is None:
            raise CheckFailed(f"embedding a request of {skill.name} failed: {problem}")
        self.rows = rows

    def ranker(self, catalog, skill_name: str, phrase: str):
        inner = getattr(self.base, "ranker", self.base)  # the ranker a HeldOutExamples wraps
        known = (*getattr(inner, "_known", ()), (skill_name, phrase))
        return HeldOutExamples(inner.with_requests(known, self.rows), self.cases, known)

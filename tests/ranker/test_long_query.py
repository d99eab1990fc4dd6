"""Long queries: pieces, the best piece per skill, the settings that choose it (docs/ranking-quality.md)."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import numpy as np
import pytest

from skillsift.catalog.load import catalog_from_skills
from skillsift.config import DEFAULT_FIELDS, Config, SearchConfig
from skillsift.config.schema import validate_search_table
from skillsift.index.build import build_index, plan_build
from skillsift.ranker.query_embedding import QueryEmbedder
from skillsift.ranker.screens import (
    MAX_PIECES,
    QUERY_CAP_BYTES,
    CentredScreen,
    PlainScreen,
    exact_dots,
    query_pieces,
)
from skillsift.ranker.search import Ranker
from tests.support.concept_embedder import ConceptEmbedder, refund_catalog

WINDOW = 64  # tokens the windowed test model reads, [CLS] and [SEP] included
_WORDS = re.compile(r"\S+")


class WindowedEmbedder(ConceptEmbedder):
    """concepts-v1 read through a window: like the local model, it sees only the first
    ``WINDOW - 2`` words (its tokens) of a text, and says so with ``window_tokens`` and
    ``count_tokens`` (counts after truncation, as the local provider's)."""

    window_tokens = WINDOW

    def __init__(self, *, sleep_per_text: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.sleep_per_text = sleep_per_text
        self.counted: list[str] = []

    def count_tokens(self, texts):
        self.counted.extend(texts)
        return [min(len(_WORDS.findall(t)) + 2, WINDOW) for t in texts]

    def embed(self, texts):
        texts = list(texts)
        if self.sleep_per_text:
            time.sleep(self.sleep_per_text * len(texts))
        rows = super().embed([" ".join(_WORDS.findall(t)[:WINDOW - 2]) for t in texts])
        self.calls[-1] = texts  # record what was sent, not what the window kept
        return rows


FILLER = ("please read the files first and keep the existing style then run every check before you report "
          "what you did and why").split()


def filler(n: int) -> str:
    return " ".join(FILLER[i % len(FILLER)] for i in range(n))


# The request that names the right skill (dispute-charge) comes after 150 words; the first
# window holds a passing mention of git, so the truncated query finds git-workflow.
LONG_QUERY = f"we use git here. {filler(150)} Task: handle the chargeback dispute from the bank. {filler(40)}"


@pytest.fixture(scope="module")
def index():
    embedder = ConceptEmbedder()  # the documents are short: the window does not cut them
    return build_index(plan_build(refund_catalog(), None, provider=embedder, fields=DEFAULT_FIELDS), embedder).index


def ranker_for(index, provider=None, *, query_timeout_ms=0, **search):
    config = Config(search=replace(SearchConfig(mode="hybrid", fields=DEFAULT_FIELDS), **search))
    return Ranker(catalog_from_skills(refund_catalog()), config, index=index,
                  provider=provider if provider is not None else WindowedEmbedder(),
                  query_timeout_ms=query_timeout_ms)


# -- pieces ------------------------------------------------------------------------------------------


def test_pieces_are_overlapping_word_windows_capped_in_number():
    words = [f"w{i}" for i in range(200)]
    pieces = query_pieces(" \n".join(words), 80)
    assert pieces == (" ".join(words[:80]), " ".join(words[80:160]), " ".join(words[160:]))
    assert query_pieces(" ".join(words), 80) == pieces  # deterministic
    many = query_pieces(" ".join(f"w{i}" for i in range(5000)), 10)
    assert len(many) == MAX_PIECES and many[-1] == " ".join(f"w{i}" for i in range(150, 160))
    assert query_pieces("   ", 80) == ()
    assert query_pieces("one two", 80) == ("one two",)


def test_the_rule_asks_the_tokenizer_only_for_texts_that_can_fill_the_window():
    provider = WindowedEmbedder()
    embedder = QueryEmbedder(provider, 0)
    assert not embedder.is_long("short query about refunds")
    assert provider.counted == []  # fewer bytes than the window holds tokens: never counted
    assert not embedder.is_long(filler(WINDOW - 3))  # 61 words + [CLS] + [SEP] = 63 tokens: read whole
    assert embedder.is_long(filler(WINDOW - 2))
    assert embedder.key(filler(WINDOW - 3)) == filler(WINDOW - 3)
    assert embedder.key(LONG_QUERY) == query_pieces(LONG_QUERY, 80)
    assert QueryEmbedder(provider, 0, long_query="truncate").key(LONG_QUERY) == LONG_QUERY


def test_a_provider_without_a_window_splits_what_passes_the_2_kb_cap():
    embedder = QueryEmbedder(ConceptEmbedder(), 0)
    text = filler(500)
    assert len(text.encode()) > QUERY_CAP_BYTES > len(filler(100).encode())
    assert embedder.key(filler(100)) == filler(100)
    assert embedder.key(text) == query_pieces(text, 80)
    assert QueryEmbedder(ConceptEmbedder(), 0, piece_words=40).key(text) == query_pieces(text, 40)


# -- ranking -----------------------------------------------------------------------------------------


def test_a_request_past_the_window_ranks_first_with_pieces_and_not_truncated(index):
    pieces = ranker_for(index).search(LONG_QUERY, mode="vector")
    truncated = ranker_for(index, long_query="truncate").search(LONG_QUERY, mode="vector")
    assert pieces.hits[0].name == "dispute-charge"
    assert truncated.hits[0].name == "git-workflow"
    assert [h.name for h in truncated.hits].index("dispute-charge") > 0
    hybrid = ranker_for(index, fusion="blend").search(LONG_QUERY)
    assert hybrid.ranking == "hybrid" and hybrid.hits[0].name == "dispute-charge"


def test_each_skill_scores_its_best_piece_exactly(index):
    provider = WindowedEmbedder()
    result = ranker_for(index, provider).search(LONG_QUERY, mode="vector", limit=None)
    [sent] = provider.calls
    assert tuple(sent) == query_pieces(LONG_QUERY, 80)  # every piece in one provider call
    q = np.asarray(ConceptEmbedder().embed([" ".join(p.split()[:WINDOW - 2]) for p in sent]), dtype=np.float32)
    for hit in result.hits:
        row = index.row(hit.domain, hit.name)
        best = max(float(exact_dots(index.matrix, [row], v)[0]) for v in q)
        assert hit.vector_sim == pytest.approx(best, abs=5e-7)  # rounded for output
    assert result.top_sim == pytest.approx(max(h.vector_sim for h in result.hits), abs=1e-6)
    assert result.embed_tokens > 0 and result.embedded


def test_short_queries_are_embedded_and_ranked_as_before(index):
    for query in ("money back", "roll out to staging", "chargeback", filler(WINDOW - 3)):
        for mode in ("vector", "hybrid"):
            a, b = WindowedEmbedder(), WindowedEmbedder()
            pieces = ranker_for(index, a, fusion="blend").search(query, mode=mode, limit=None)
            truncated = ranker_for(index, b, fusion="blend", long_query="truncate").search(query, mode=mode,
                                                                                            limit=None)
            assert replace(pieces, embed_ms=0.0) == replace(truncated, embed_ms=0.0)
            assert a.calls == b.calls == [[query]]


def test_long_queries_rank_deterministically_and_are_cached_by_their_pieces(index):
    provider = WindowedEmbedder()
    ranker = ranker_for(index, provider, fusion="blend")
    first = ranker.search(LONG_QUERY, limit=None)
    again = ranker.search(LONG_QUERY, limit=None)
    assert len(provider.calls) == 1 and first.embedded and not again.embedded
    assert first.hits == again.hits
    assert ranker.query_cache.get(query_pieces(LONG_QUERY, 80)).shape == (len(query_pieces(LONG_QUERY, 80)), 5)
    fresh = ranker_for(index, WindowedEmbedder(), fusion="blend").search(LONG_QUERY, limit=None)
    assert fresh.hits == first.hits
    other = ranker_for(index, WindowedEmbedder(), fusion="blend", long_query_words=40)
    other.query_cache = ranker.query_cache  # another piece size: other pieces, other key
    assert other.search(LONG_QUERY).embedded


def test_warming_embeds_each_piece_once_and_search_reuses_it(index):
    provider = WindowedEmbedder(max_batch=4)
    ranker = ranker_for(index, provider)
    assert ranker.warm_queries([LONG_QUERY, "money back", LONG_QUERY]) == 2
    assert sorted(provider.sent) == sorted(set(query_pieces(LONG_QUERY, 80)) | {"money back"})
    warmed = ranker.search(LONG_QUERY, mode="vector", limit=None)
    assert not warmed.embedded
    assert warmed.hits == ranker_for(index).search(LONG_QUERY, mode="vector", limit=None).hits


def test_the_time_limit_bounds_the_embedding_of_all_pieces(index):
    slow = WindowedEmbedder(sleep_per_text=0.05)
    assert len(query_pieces(LONG_QUERY, 80)) >= 3
    ranker = ranker_for(index, slow, query_timeout_ms=120)
    assert ranker.search("money back").degraded is None  # one text: 50 ms
    result = ranker.search(LONG_QUERY)  # three or more texts in one call: over 120 ms
    assert result.degraded == "timeout" and result.ranking == "lexical"
    assert result.hits == ranker.search(LONG_QUERY, mode="lexical").hits


# -- the screens against the plain definition --------------------------------------------------------


def test_best_piece_screens_equal_the_exact_maximum_over_pieces():
    from skillsift.ranker.centring import CENTRE_SHRINK, centre

    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((3000, 48)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[1000:1100] = matrix[7]  # exact ties, broken by the tie rank
    rows = np.arange(0, 3000, 2)
    tie = rng.permutation(len(rows))
    queries = rng.standard_normal((5, 48)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    plain = PlainScreen(matrix)
    products = plain.max_products(rows, queries)
    scores = plain.max_scores(rows, queries, tie, products)
    exact = np.max([exact_dots(matrix, rows, q) for q in queries], axis=0)
    order = np.lexsort((tie, -exact))
    assert scores.top(40).tolist() == order[:40].tolist()
    assert scores.exact(order[:40]).tolist() == exact[order[:40]].tolist()
    assert scores.exact_count < len(rows)  # screened: most rows never computed exactly
    assert scores.ranks(order[[0, 500, 1400]]).tolist() == [1, 501, 1401]
    centred = centre(matrix, sorted(rows.tolist()), CENTRE_SHRINK)
    cscreen = CentredScreen(matrix, centred, sorted(rows.tolist()), CENTRE_SHRINK, plain.row_norm)
    cscores = cscreen.max_scores(rows, products, queries, tie)
    cexact = np.max([exact_dots(centred, rows, q) for q in queries], axis=0)
    corder = np.lexsort((tie, -cexact))
    assert cscores.top(40).tolist() == corder[:40].tolist()
    assert cscores.lowest() == (int(corder[-1]), float(cexact[corder[-1]]))


# -- configuration -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "message"), [
    ({"long_query": "chunks"}, 'search.long_query "chunks" must be max-piece or truncate'),
    ({"long_query": 1}, "search.long_query must be a string"),
    ({"long_query_words": 401}, "search.long_query_words must be between 0 and 400"),
    ({"long_query_words": -1}, "search.long_query_words must be between 0 and 400"),
    ({"long_query_words": 8.5}, "search.long_query_words must be an integer"),
])
def test_long_query_keys_are_validated(table, message):
    assert validate_search_table(table) == [message]


def test_long_query_keys_resolve_with_the_user_config_first(tmp_path):
    from skillsift.config import load_config

    (tmp_path / "skillsift.toml").write_text('[search]\nlong_query = "truncate"\nlong_query_words = 50\n',
                                             encoding="utf-8")
    s = load_config(str(tmp_path)).search
    assert (s.long_query, s.long_query_words) == ("truncate", 50)
    (tmp_path / "skillsift.toml").write_text('[search]\nlong_query = ""\nlong_query_words = 0\n', encoding="utf-8")
    s = load_config(str(tmp_path)).search
    assert (s.long_query, s.long_query_words) == ("max-piece", 80)
    assert validate_search_table({"long_query": "max-piece", "long_query_words": 80}) == []


def test_a_repeated_piece_is_embedded_once(index):
    text = " ".join(FILLER[i % 20] for i in range(400))  # a 20-word cycle: every piece is the same text
    pieces = query_pieces(text, 80)
    assert len(set(pieces)) < len(pieces)
    provider = WindowedEmbedder()
    ranker = ranker_for(index, provider)
    result = ranker.search(text, mode="vector", limit=None)
    assert provider.calls == [list(dict.fromkeys(pieces))]
    assert ranker.query_cache.get(pieces).shape == (len(pieces), 5)
    assert result.hits == ranker_for(index).search(text, mode="vector", limit=None).hits


def test_tune_scores_a_long_case_by_its_best_piece_as_the_ranker_does():
    import json

    from skillsift.evaluate import tune_run
    from skillsift.evaluate.cases import parse_cases

    cases = parse_cases(json.dumps({"version": 1, "cases": [
        {"id": "long", "query": LONG_QUERY, "expect": ["dispute-charge"]},
        {"id": "short", "query": "money back", "expect": ["issue-refund"]}]}))
    catalog = catalog_from_skills(refund_catalog())
    for how, found in (("max-piece", True), ("truncate", False)):
        config = Config(search=SearchConfig(mode="hybrid", fields=DEFAULT_FIELDS, long_query=how))
        provider = WindowedEmbedder()
        run = tune_run.run(catalog, config, cases, provider, folds=2)
        cosine = run.result.series[run.result.cosine]  # cosine only over the configured fields
        assert cosine.rr[1] == 1.0 and (cosine.rr[0] == 1.0) == found, how
        sent = set(provider.sent)
        assert (set(query_pieces(LONG_QUERY, 80)) <= sent) == (how == "max-piece")


def test_with_the_local_model_a_request_past_its_256_tokens_is_found_by_its_piece():
    from skillsift.embed import local

    reason = "skillsift[embed] is not installed"
    pytest.importorskip("onnxruntime", reason=reason)
    pytest.importorskip("tokenizers", reason=reason)
    pytest.importorskip(local.MODEL_PACKAGE, reason=reason)
    provider = local.LocalProvider()
    built = build_index(plan_build(refund_catalog(), None, provider=provider, fields=DEFAULT_FIELDS), provider).index
    query = f"we use git here. {filler(300)} Task: handle the chargeback dispute from the bank. {filler(20)}"
    assert provider.count_tokens([query]) == [local.MAX_TOKENS]  # the model reads only the start
    pieces = ranker_for(built, provider).search(query, mode="vector")
    truncated = ranker_for(built, provider, long_query="truncate").search(query, mode="vector")
    assert pieces.hits[0].name == "dispute-charge"
    assert truncated.hits[0].name == "git-workflow"
    assert pieces.hits[0].vector_sim > truncated.hits[0].vector_sim

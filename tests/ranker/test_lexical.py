"""BM25F lexical ranking (reference §2.3-§2.6, §10.1).

Besides the reference's examples, every code path (pure-Python and numpy builds,
pure-Python and numpy scoring, subsets, ``limit``) is checked against a direct,
deliberately naive transcription of the formulas over ~2,100 real skills.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
import subprocess
import sys
import threading
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.catalog.skill import Skill
from skillsift.ranker import lexical, postings
from skillsift.ranker.lexical import LexicalIndex
from skillsift.ranker.postings import build_postings
from skillsift.ranker.rounding import round_half_away
from skillsift.ranker.tokenize import tokenize
from tests.conftest import corpora

GOLDEN = [
    Skill("gamma", "Mentions deploy once in the description"),
    Skill("beta", "Something else", triggers=("deploy to production",)),
    Skill("alpha", "Mentions deploy once in the description"),
]


def _named(index: LexicalIndex, hits):
    return [(index.names[i], score) for i, score in hits]


# -- a naive transcription of the reference formulas ----------------------------------------------

WEIGHTS = (("name", 3.0), ("triggers", 2.5), ("keywords", 2.0), ("description", 1.0))


def _text(value) -> str:
    return value if isinstance(value, str) else " ".join(value or ())


class Naive:
    """BM25F exactly as §2.3-§2.5 word it: per-document maps, every document scored."""

    def __init__(self, docs):
        self.docs = list(docs)
        self.tf, self.length = [], []
        for d in self.docs:
            tf, length = {}, 0.0
            for field, weight in WEIGHTS:
                for t in tokenize(_text(getattr(d, field))):
                    tf[t] = tf.get(t, 0.0) + weight
                    length += weight
            self.tf.append(tf)
            self.length.append(length)

    def rank(self, query, subset=None):
        scope = range(len(self.docs)) if subset is None else sorted(set(subset))
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or not scope:
            return []
        n = len(scope)
        avg = sum(self.length[i] for i in scope) / n
        if avg == 0:
            return []
        df = {}
        for i in scope:
            for t in self.tf[i]:
                df[t] = df.get(t, 0) + 1
        hits = []
        for i in scope:
            score = 0.0
            for t in terms:
                tf = self.tf[i].get(t, 0.0)
                if tf == 0:
                    continue
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf * (1.2 + 1) / (tf + 1.2 * (1 - 0.75 + 0.75 * self.length[i] / avg))
            if score > 0:
                rounded = float(Decimal(score * 1e6).quantize(Decimal(1), rounding=ROUND_HALF_UP)) / 1e6
                hits.append((i, rounded))
        hits.sort(key=lambda h: (-h[1], self.docs[h[0]].name, h[0]))
        return hits


# -- corpora --------------------------------------------------------------------------------------


@functools.cache
def real_skills() -> tuple[Skill, ...]:
    """The frontmatter of every SKILL.md under ../shared/corpora; duplicate names get a suffix."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    skills, seen = [], {}
    for path in sorted(corpora().rglob("SKILL.md")):
        text = path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff").replace("\r\n", "\n")
        end = text.find("\n---", 3)
        if not text.startswith("---\n") or end < 0:
            continue
        try:
            meta = yaml.load(text[4:end], Loader=loader)
        except yaml.YAMLError:
            continue
        if not isinstance(meta, dict):
            continue
        name = str(meta.get("name") or path.parent.name)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}-{seen[name]}"

        def listed(value):
            if isinstance(value, str):
                return tuple(p.strip() for p in value.split(",") if p.strip())
            return tuple(str(v).strip() for v in value if str(v).strip()) if isinstance(value, list) else ()

        skills.append(
            Skill(
                name,
                str(meta.get("description") or name),
                triggers=listed(meta.get("triggers")),
                keywords=listed(meta.get("keywords") or meta.get("tags")),
            )
        )
    return tuple(skills)


@pytest.fixture(scope="module")
def real():
    corpora()
    skills = real_skills()
    assert len(skills) > 1000
    return skills


def _queries(skills, count, seed=7):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        words = rng.choice(skills).description.split()
        if words:
            k = rng.randint(1, 6)
            start = rng.randint(0, max(0, len(words) - k))
            out.append(" ".join(words[start : start + k]))
    return out + ["skill", "code review", "the of and", "zebra-unknown-term", ""]


def _python_max(python_build: bool) -> int:
    """The ``python_max_docs`` that forces the pure-Python build (or the numpy one)."""
    return 10**9 if python_build else 0


def _build(docs, python_build):
    return LexicalIndex(docs, python_max_docs=_python_max(python_build))


def _postings(docs, python_build):
    """The postings the index of ``docs`` is built from (the public builder, same options)."""
    return build_postings(docs, python_max_docs=_python_max(python_build))


# -- the reference's examples ---------------------------------------------------------------------


def test_reference_rank_examples():
    index = LexicalIndex(GOLDEN)
    expected = [("beta", 0.187114), ("alpha", 0.140728), ("gamma", 0.140728)]
    assert _named(index, index.rank("deploy")) == expected  # trigger beats description; ties by name
    assert _named(index, index.rank("deploying")) == expected  # stemmed query
    assert index.rank("the of and") == []
    assert index.rank("") == []
    assert index.rank("   ") == []
    assert index.rank("zebra") == []
    assert LexicalIndex([]).rank("deploy") == []


def test_reference_determinism_example():
    docs = [Skill("a", "deploy"), Skill("b", "deploy"), Skill("c", "", keywords=("deploy",))]
    index = LexicalIndex(docs)
    first = index.rank("deploy")
    # "a" is a stopword, so document a is shorter than b and outranks it.
    assert _named(index, first) == [("a", 0.187114), ("c", 0.160969), ("b", 0.123432)]
    for _ in range(20):
        assert index.rank("deploy") == first
        assert LexicalIndex(docs).rank("deploy") == first


@pytest.mark.parametrize("python_build", [True, False])
def test_both_builds_give_the_reference_scores(python_build):
    index = _build(GOLDEN, python_build)
    assert _named(index, index.rank("deploy")) == [("beta", 0.187114), ("alpha", 0.140728), ("gamma", 0.140728)]


def test_identical_across_processes(tmp_path):
    rng = random.Random(11)
    vocab = ["deploy", "staging", "review", "code", "pdf", "merge", "test", "cache", "image", "release"]
    docs = [
        {
            "name": f"skill-{i:04d}",
            "description": " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12))),
            "triggers": [" ".join(rng.sample(vocab, 2))] if i % 3 == 0 else [],
            "keywords": rng.sample(vocab, rng.randint(0, 3)),
        }
        for i in range(700)  # above the pure-Python build limit: numpy build and scoring
    ]
    queries = ["deploy staging", "code review merge", "cache image", "test"]
    data = tmp_path / "docs.json"
    data.write_text(json.dumps({"docs": docs, "queries": queries}))
    script = (
        "import json, sys\n"
        "from types import SimpleNamespace\n"
        "from skillsift.ranker.lexical import LexicalIndex\n"
        "d = json.load(open(sys.argv[1]))\n"
        "ix = LexicalIndex([SimpleNamespace(**x) for x in d['docs']])\n"
        "print(json.dumps([ix.rank(q) for q in d['queries']]))\n"
    )
    index = LexicalIndex([SimpleNamespace(**x) for x in docs])
    expected = json.loads(json.dumps([index.rank(q) for q in queries]))
    assert all(expected)
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", script, str(data)], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == expected


# -- agreement with the naive transcription ------------------------------------------------------


@pytest.mark.parametrize(
    ("python_build", "python_query_max", "bincount_max"),
    [(True, 0, lexical.BINCOUNT_MAX_DOCS), (False, 0, lexical.BINCOUNT_MAX_DOCS), (False, 0, 0),
     (False, 10**9, lexical.BINCOUNT_MAX_DOCS)],
    ids=["python-build", "numpy-scoring-bincount", "numpy-scoring-scratch", "python-scoring"],
)
@pytest.mark.slow  # the whole corpus of real skills
def test_matches_naive_formulas_on_real_skills(real, monkeypatch, python_build, python_query_max, bincount_max):
    monkeypatch.setattr(lexical, "PYTHON_QUERY_MAX_POSTINGS", python_query_max)
    monkeypatch.setattr(lexical, "BINCOUNT_MAX_DOCS", bincount_max)
    index = _build(real, python_build)
    naive = Naive(real)
    subset = frozenset(random.Random(5).sample(range(len(real)), 600))
    for query in _queries(real, 40):
        expected = naive.rank(query)
        assert index.rank(query) == expected, query
        assert index.rank(query, limit=7) == expected[:7], query
        assert index.rank(query, subset) == naive.rank(query, subset), query
    assert any(naive.rank(q) for q in _queries(real, 5))


@pytest.mark.parametrize("chunk", [postings.BUILD_CHUNK_DOCS, 97], ids=["default-chunks", "small-chunks"])
@pytest.mark.slow  # the whole corpus of real skills
def test_builds_agree_on_real_skills(real, monkeypatch, chunk):
    monkeypatch.setattr(postings, "BUILD_CHUNK_DOCS", chunk)  # words split a chunk of documents at a time
    fast, slow = _postings(real, False), _postings(real, True)
    assert fast.csr is not None and slow.csr is None
    assert sorted(fast.items()) == sorted(slow.items())
    assert fast.doc_len_list() == slow.doc_len_list()


def _positions_agree(index, query, subset=None):
    full = index.rank(query, subset)
    everyone = range(len(index)) if subset is None else subset
    assert index.scores_of(query, everyone, subset) == dict(full), query
    pick = full[:: max(1, len(full) // 9)] + full[-1:]
    expected = {d: position for position, (d, _score) in enumerate(full, start=1) if (d, _score) in pick}
    assert index.ranks_of(query, {d: s for d, s in pick}, subset) == expected, query
    matches = index.matches(query, subset)
    assert index.ranks_of(query, {d: s for d, s in pick}, subset, matches=matches) == expected, query
    for k in (1, 5, 50, len(full) + 1):  # the first k read off every match, as rank() gives them
        assert index.first_of(matches, k) == full[:k], (query, k)
    return len(full)


@pytest.mark.parametrize("python_build", [True, False], ids=["python-build", "numpy-build"])
@pytest.mark.slow  # the whole corpus of real skills
def test_scores_and_ranks_of_given_skills_match_the_complete_ranking_on_real_skills(real, python_build):
    index = _build(real, python_build)
    subset = frozenset(random.Random(6).sample(range(len(real)), 500))
    matched = 0
    for query in _queries(real, 30, seed=11):
        matched += _positions_agree(index, query)
        _positions_agree(index, query, subset)
    assert matched > 1000


def test_ranks_of_given_skills_break_ties_by_name():
    names = [f"s{i:03d}" for i in range(300)]
    random.Random(3).shuffle(names)
    docs = [SimpleNamespace(name=n, description="deploy the service" if i % 3 else "deploy", triggers=[],
                            keywords=["ops"] if i % 5 == 0 else []) for i, n in enumerate(names)]
    for python_build in (True, False):
        index = _build(docs, python_build)
        for query in ("deploy", "deploy service ops", "ops"):
            assert _positions_agree(index, query) > 50


def test_large_postings_are_stored_as_int32_ids_and_uint16_half_frequencies():
    docs = [SimpleNamespace(name=f"s{i}", description=f"deploy alpha{i % 7} beta", triggers=["ship it"],
                            keywords=[]) for i in range(600)]
    index = _build(docs, False)
    _offsets, ids, tfs = index._postings.csr
    assert ids.dtype.name == "int32" and tfs.dtype.name == "uint16"
    assert index.rank("deploy beta ship") == _build(docs, True).rank("deploy beta ship")
    for values, kept in (([0.5, 32767.5], "uint16"), ([0.5, 32768.0], "float32"), ([0.5, 2**23 + 0.5], "float64")):
        stored = postings._compact(np, np.array([0, 1]), np.array(values), 2)[1]
        assert stored.dtype.name == kept
        assert postings.widen(stored).tolist() == values


_field_text = st.lists(
    st.one_of(
        st.text(max_size=6),
        st.sampled_from(["deploy", "Deploying ", "İSTANBUL", "ΟΔΟΣ", "x²y", "café—bar", "\x00", "the ", "-", "Q"]),
    ),
    max_size=8,
).map("".join)
_doc = st.builds(
    SimpleNamespace,
    name=_field_text,
    description=_field_text,
    triggers=st.lists(_field_text, max_size=3),
    keywords=st.one_of(st.lists(_field_text, max_size=3), _field_text, st.none()),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_doc, min_size=1, max_size=25))
def test_builds_agree_on_any_text(docs):
    fast_postings, slow_postings = _postings(docs, False), _postings(docs, True)
    assert sorted(fast_postings.items()) == sorted(slow_postings.items())
    assert fast_postings.doc_len_list() == slow_postings.doc_len_list()
    fast, slow = _build(docs, False), _build(docs, True)
    naive = Naive(docs)
    for d in docs[:4]:
        query = f"{d.name} {d.description}"
        assert fast.rank(query) == slow.rank(query) == naive.rank(query)


def test_lone_surrogates_do_not_break_the_build():
    docs = [SimpleNamespace(name="a\ud800b", description="deploy", triggers=[], keywords=[])] * 3
    assert sorted(_postings(docs, False).items()) == sorted(_postings(docs, True).items())
    fast = _build(docs, False)
    assert [i for i, _ in fast.rank("deploy")] == [0, 1, 2]


# -- scope, limit, ties ---------------------------------------------------------------------------


def test_subset_statistics_by_hand():
    docs = [
        Skill("one", "deploy the service"),
        Skill("two", "review code"),
        Skill("three", "review code again"),
        Skill("four", "write docs"),
    ]
    index = LexicalIndex(docs)
    # Scope {0, 1}: N = 2, df(deploy) = 1; L(one) = 3 + 2 ("deploy servic") = 5, L(two) = 3 + 2 = 5.
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 1.0 * 2.2 / (1.0 + 1.2 * (1 - 0.75 + 0.75 * 5 / 5))
    assert index.rank("deploy", {0, 1}) == [(0, round_half_away(expected, 6))]
    # Over the whole catalog N = 4, avgL = (5 + 5 + 6 + 5) / 4: a different score.
    assert index.rank("deploy")[0][1] != index.rank("deploy", [0, 1])[0][1]
    assert index.rank("deploy", [1, 2]) == []
    assert index.rank("deploy", []) == []


def test_subset_ranks_like_an_index_of_the_subset(real):
    index = LexicalIndex(real)
    rng = random.Random(9)
    for size in (3, 80, 900):
        members = sorted(rng.sample(range(len(real)), size))
        sub_index = LexicalIndex([real[i] for i in members])
        for query in _queries(real, 15, seed=size):
            expected = [(members[i], s) for i, s in sub_index.rank(query)]
            assert index.rank(query, members) == expected
            assert index.rank(query, frozenset(members)) == expected  # cached scope


def test_subset_must_hold_document_indexes():
    index = LexicalIndex(GOLDEN)
    with pytest.raises(ValueError, match=r"not document indexes 0\.\.2"):
        index.rank("deploy", [0, 3])
    with pytest.raises(ValueError, match="'x'"):
        index.rank("deploy", ["x"])


@pytest.mark.parametrize("python_query_max", [0, 10**9], ids=["numpy", "python"])
def test_limit_is_a_prefix_of_the_full_ranking(real, monkeypatch, python_query_max):
    monkeypatch.setattr(lexical, "PYTHON_QUERY_MAX_POSTINGS", python_query_max)
    # Clones tie exactly; their names decide, across the limit boundary too.
    docs = list(real) + [Skill(f"clone-{i}", "review the code and fix bugs") for i in range(12)]
    index = LexicalIndex(docs)
    for query in _queries(real, 60) + ["review code bugs", "fix", "create a new skill for code review"]:
        full = index.rank(query)
        for limit in (1, 2, 5, 10, 40):
            assert index.rank(query, limit=limit) == full[:limit], (query, limit)
    assert index.rank("review code", limit=0) == []
    # Raw scores that differ below the 6th decimal round to one score; the smaller name then
    # wins, even from just past the limit (two such pairs that the real catalog holds).
    plain = LexicalIndex(real)
    for query, limit in (("keywords tuning, communication,", 29), ("Risk intelligence.", 40)):
        full = plain.rank(query)
        assert full[limit - 1][1] == full[limit][1]
        assert plain.rank(query, limit=limit) == full[:limit]


def test_ties_break_by_name_then_catalog_position():
    docs = [
        Skill("same", "deploy service", keywords=("x",)),
        Skill("bb", "deploy service"),
        Skill("same", "deploy service", keywords=("y",)),
        Skill("aa", "deploy service"),
    ]
    index = LexicalIndex(docs)
    assert [i for i, _ in index.rank("deploy")] == [3, 1, 0, 2]
    assert len({s for _, s in index.rank("deploy")}) == 2  # aa and bb share a score, as do the two "same"


def test_query_terms_are_deduplicated_in_order():
    assert LexicalIndex.query_terms("Deploying deploy the DEPLOY staging, Staging") == ["deploy", "stag"]
    assert LexicalIndex.query_terms("the of and") == []


def test_fields_and_list_joining():
    docs = [
        SimpleNamespace(name="n", description="", triggers=["go", "live"], keywords=[]),
        SimpleNamespace(name="m", description="", triggers="go live", keywords=None),  # a string stays whole
        SimpleNamespace(name="o", description="", triggers=["golive"], keywords=()),
    ]
    index = LexicalIndex(docs)
    assert sorted(i for i, _ in index.rank("live")) == [0, 1]
    assert [i for i, _ in index.rank("golive")] == [2]


def test_body_and_other_fields_are_not_searched():
    docs = [Skill("a", "deploy", body="zebra zebra", tags=("zebra",), examples=("zebra",))]
    assert LexicalIndex(docs).rank("zebra") == []


def test_documents_without_text_rank_nothing():
    docs = [Skill("the", ""), Skill("a", "")]  # names are stopwords: every length is 0
    index = LexicalIndex(docs)
    assert index.rank("deploy") == []
    assert index.explain("deploy", 0).score == 0.0


# -- explain --------------------------------------------------------------------------------------


def test_explain_reference_example():
    index = LexicalIndex(GOLDEN)
    beta = index.explain("deploy", 1)
    assert beta.score == 0.187114
    assert (beta.n_docs, beta.length, beta.avg_length) == (3, 10.0, 8.0)  # L: 3 + 2.5*3 + 1*2
    (term,) = beta.terms
    assert term.term == "deploy" and term.tf == 2.5 and term.fields == (("triggers", 1),)
    assert term.idf == math.log(1 + (3 - 3 + 0.5) / (3 + 0.5))
    assert term.points == pytest.approx(0.187114, abs=5e-7)


def test_explain_counts_occurrences_per_field():
    docs = [
        Skill("deploy-tool", "Deploy things; deploy often", triggers=("deploy now",), keywords=("deploy",)),
        Skill("other", "nothing here"),
    ]
    index = LexicalIndex(docs)
    explanation = index.explain("deploying tools", 0)
    deploy, tool = explanation.terms
    assert deploy.fields == (("name", 1), ("triggers", 1), ("keywords", 1), ("description", 2))
    assert deploy.tf == 3.0 + 2.5 + 2.0 + 2 * 1.0
    assert tool.term == "tool" and tool.fields == (("name", 1),) and tool.tf == 3.0
    assert explanation.score == index.rank("deploying tools")[0][1]
    assert explanation.score == round_half_away(deploy.points + tool.points, 6)


def test_explain_of_a_document_without_the_terms():
    index = LexicalIndex(GOLDEN)
    nothing = index.explain("zebra", 0)
    assert nothing.score == 0.0 and nothing.terms == ()
    assert index.explain("", 0).terms == ()


def test_explain_rejects_bad_documents():
    index = LexicalIndex(GOLDEN)
    with pytest.raises(IndexError, match="out of range"):
        index.explain("deploy", 3)
    with pytest.raises(ValueError, match="'gamma'.*not in the subset"):
        index.explain("deploy", 0, subset=[1, 2])


@pytest.mark.parametrize("python_build", [True, False])
@pytest.mark.slow  # the whole corpus of real skills
def test_explain_agrees_with_rank_on_real_skills(real, python_build):
    index = _build(real, python_build)
    subset = frozenset(range(0, len(real), 3))
    for query in _queries(real, 25, seed=3):
        for scope in (None, subset):
            for doc, score in index.rank(query, scope)[:5]:
                explanation = index.explain(query, doc, scope)
                assert explanation.score == score
                total = 0.0
                for term in explanation.terms:
                    total += term.points
                assert abs(total - score) <= 5e-7
                assert explanation.n_docs == (len(real) if scope is None else len(subset))


# -- concurrency ----------------------------------------------------------------------------------


def test_concurrent_queries_give_serial_results(real, monkeypatch):
    monkeypatch.setattr(lexical, "PYTHON_QUERY_MAX_POSTINGS", 0)  # the numpy path and its scratch arrays
    monkeypatch.setattr(lexical, "BINCOUNT_MAX_DOCS", 0)
    index = LexicalIndex(real)
    queries = _queries(real, 40, seed=13)
    expected = {q: index.rank(q) for q in queries}
    failures = []

    def worker(offset):
        for q in queries[offset:] + queries[:offset]:
            if index.rank(q) != expected[q]:
                failures.append(q)

    threads = [threading.Thread(target=worker, args=(k * 10,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []

"""The zscore-mnz fusion's parts: BM25 over the known requests' text (its postings against the plain
definition and against the build they replaced, tests/support/request_lexicon_reference.py), the excess
gate and the requests' z-scored share, the bonus of a candidate in both lists, a case's own request left
out, ties by name, and the fusion end to end through the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from skillsift.ranker.model.fusion import (
    MNZ_BONUS,
    MNZ_DEPTH,
    REQUEST_LEXICAL,
    BlendRequest,
    channel_shares,
    mnz_extra,
    request_words,
    request_words_weight,
    zscore,
    zscore_scores,
)
from skillsift.ranker.request_lexicon import RequestLexicon, document_terms, request_channel
from skillsift.ranker.tokenize import tokenize
from tests.conftest import corpora, write_skill
from tests.ranker.reference import request_bm25
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import user_config
from tests.support.request_lexicon_reference import ReferencePostings

WORDS = ("deploy", "refund", "review", "schema", "invoice", "incident", "rollback", "audit", "cache", "token",
         "migrate", "release", "payment", "alert", "docs", "the", "a", "for", "my", "nightly")


def _corpus(seed: int):
    """A random small catalog's known requests: ``(owner, texts, n_skills)``."""
    rng = random.Random(seed)
    n_skills = rng.randint(3, 12)
    owner, texts = [], []
    for _ in range(rng.randint(1, 40)):
        owner.append(rng.randrange(n_skills))
        texts.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))))
    return owner, texts, n_skills


def _documents(owner, texts, masked=()):
    docs: dict[str, list[str]] = {}
    for r, (o, t) in enumerate(zip(owner, texts, strict=True)):
        docs.setdefault(f"s{o:02d}", [])
        if r not in masked:
            docs[f"s{o:02d}"].append(t)
    return docs


@pytest.mark.parametrize("seed", range(40))
def test_bm25_over_postings_equals_the_plain_definition(seed):
    owner, texts, n_skills = _corpus(seed)
    lexicon = RequestLexicon(owner, texts, n_skills)
    rng = random.Random(1000 + seed)
    for _ in range(6):
        terms = list(dict.fromkeys(tokenize(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))))))
        got = lexicon.scores(terms)
        want = request_bm25(_documents(owner, texts), terms)
        assert {f"s{i:02d}": v for i, v in enumerate(got.tolist()) if v > 0} == want  # bit for bit


# words and separators where a cut at ASCII punctuation and spaces could differ from the tokenizer's words:
# letters of other scripts, capitals whose lowercase is special (dotted I, final sigma), digits that are not
# decimal (superscripts, fractions, Roman numerals), underscores, spaces and dashes outside ASCII, a lone
# surrogate, stopwords and suffixes the stemmer strips
ODD_WORDS = WORDS + ("Café", "naïve", "ÜBER", "İstanbul", "ΣΟΦΙΑΣ", "οδός", "Straße", "x²", "½cup", "ⅫV", "中文",
                     "日本語テキスト", "emoji🚀launch", "snake_case", "kebab-case", "dot.path", "C++", "v1.2.3", "100%",
                     "it's", "DEPLOYS", "Policies", "caching", "images", "class", "ŉ", "ǅemal", "٣٤", "x\ud800y",
                     "Ⅰ", "ﬁle", "K", "Å", "")
SEPARATORS = (" ", " ", " ", "  ", "\n", ", ", "\u2014", "\u00a0", "\u3000", "/", "", "_", "\t", "\x1c", "\u2028")


def _odd_corpus(seed: int):
    """Random known requests of those words: ``(owner, texts, n_skills)``, some texts empty or all stopwords."""
    rng = random.Random(seed)
    n_skills = rng.randint(1, 30)
    owner, texts = [], []
    for _ in range(rng.randint(0, 120)):
        owner.append(rng.randrange(n_skills))
        parts = []
        for _ in range(rng.randint(0, 10)):
            parts += [rng.choice(ODD_WORDS), rng.choice(SEPARATORS)]
        texts.append("".join(parts))
    return owner, texts, n_skills


def _same_postings(got: RequestLexicon, want: ReferencePostings) -> None:
    assert list(got.vocab.items()) == list(want.vocab.items())  # the same ids, in the same order
    for name in ("post_skill", "post_tf", "starts", "df", "length", "norm"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), name
    assert (got.documents, got.average) == (want.documents, want.average)


def _same_scores(got: RequestLexicon, want: ReferencePostings, queries) -> None:
    import copy

    old = copy.copy(got)
    old.__dict__.update(vars(want))  # the same lexicon over the reference's postings
    for terms in queries:
        assert got.scores(terms).tobytes() == old.scores(terms).tobytes()


@pytest.mark.parametrize("seed", range(60))
def test_the_postings_equal_the_build_they_replaced(seed):
    owner, texts, n_skills = _odd_corpus(seed) if seed % 3 else _corpus(seed)
    lexicon = RequestLexicon(owner, texts, n_skills)
    _same_postings(lexicon, ReferencePostings(owner, texts, n_skills))
    rng = random.Random(2000 + seed)
    queries = [list(dict.fromkeys(tokenize(" ".join(rng.choice(ODD_WORDS) for _ in range(rng.randint(1, 5))))))
               for _ in range(6)]
    _same_scores(lexicon, ReferencePostings(owner, texts, n_skills), queries + [list(lexicon.vocab)])


@pytest.mark.parametrize("seed", range(30))
def test_document_terms_are_the_tokenizers_in_order(seed):
    _owner, texts, _n = _odd_corpus(seed)
    term_ids, counts, vocab = document_terms(texts)
    names = list(vocab)
    assert [names[i] for i in term_ids.tolist()] == [t for text in texts for t in tokenize(text)]
    assert counts.tolist() == [len(tokenize(text)) for text in texts]
    assert list(vocab) == list(dict.fromkeys(t for text in texts for t in tokenize(text)))


def test_no_requests_and_no_words_build_empty_postings():
    for owner, texts, n_skills in (([], [], 0), ([], [], 3), ([1, 1], ["the a", "!!"], 2), ([0], [""], 1)):
        lexicon = RequestLexicon(owner, texts, n_skills)
        _same_postings(lexicon, ReferencePostings(owner, texts, n_skills))
        assert lexicon.scores(["deploy"]).tolist() == [0.0] * n_skills and lexicon.documents == 0


def test_the_postings_of_real_text_equal_the_build_they_replaced():
    # the lines of the real skills' bodies as known requests (every fourth file's), each under its file's skill
    owner, texts = [], []
    for n, path in enumerate(sorted(corpora().rglob("SKILL.md"))[::4]):
        body = path.read_text(encoding="utf-8", errors="replace").split("---", 2)[-1]
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        owner += [n] * len(lines)
        texts += lines
    assert len(texts) > 20000 and any(not t.isascii() for t in texts)
    lexicon = RequestLexicon(owner, texts, n + 1)
    want = ReferencePostings(owner, texts, n + 1)
    _same_postings(lexicon, want)
    _same_scores(lexicon, want, [list(dict.fromkeys(tokenize(t))) for t in texts[::997]])


@pytest.mark.parametrize("seed", range(20))
def test_a_masked_request_leaves_its_skills_document_and_the_statistics_stay(seed):
    owner, texts, n_skills = _corpus(seed)
    lexicon = RequestLexicon(owner, texts, n_skills)
    masked = [r for r in range(len(texts)) if r % 3 == seed % 3]
    terms = list(dict.fromkeys(tokenize(texts[0] + " " + texts[-1])))
    got = lexicon.scores(terms, masked)
    full = request_bm25(_documents(owner, texts), terms)
    touched = {owner[r] for r in masked}
    for skill in range(n_skills):
        if skill not in touched:  # untouched skills score as before: df, N and the mean length are kept
            assert got[skill] == full.get(f"s{skill:02d}", 0.0)
            continue
        kept = [t for r, t in enumerate(texts) if owner[r] == skill and r not in masked]
        words = [w for t in kept for w in tokenize(t)]
        assert lexicon.words(skill, masked) == set(words)
        if not words:
            assert got[skill] == 0.0
            continue
        norm = 1.2 * (0.25 + 0.75 * len(words) / lexicon.average)
        want = 0.0
        for t in terms:
            tf = words.count(t)
            if tf:
                df = int(lexicon.df[lexicon.vocab[t]])
                want += np.log(1 + (lexicon.documents - df + 0.5) / (df + 0.5)) * tf * 2.2 / (tf + norm)
        assert got[skill] == pytest.approx(want, rel=1e-12)


def test_the_channel_ranks_by_score_then_name_and_reads_the_first_skills_words():
    # skills 0 and 2 hold the same request (equal scores); skill 1 holds "audit" too
    lexicon = RequestLexicon([0, 1, 1, 2], ["refund my invoice", "deploy the release", "nightly audit",
                                           "refund my invoice"], 3)
    names = np.asarray([2, 1, 0])  # name ranks: skill 2 is first by name, then 1, then 0
    first, covered = request_channel(lexicon, ["refund"], (), None, names, 50)
    assert [s for s, _ in first] == [2, 0] and first[0][1] == first[1][1] and covered == 1.0
    first, _ = request_channel(lexicon, ["refund"], (), None, np.asarray([0, 1, 2]), 50)
    assert [s for s, _ in first] == [0, 2]  # the same tie, other names: the other order
    first, covered = request_channel(lexicon, ["audit", "refund"], (), None, names, 50)
    assert first[0][0] == 1 and covered == 0.5  # "audit" is rarer: skill 1 leads, its requests hold one term
    assert request_channel(lexicon, ["refund"], (), [1], names, 50) == ([], 0.0)  # out of scope
    assert request_channel(lexicon, ["refund"], (), None, names, 1)[0] == [first_of(lexicon, names)]  # the depth
    assert request_channel(lexicon, [], (), None, names, 50) == ([], 0.0)
    # skill 2's request is the query's own: left out, skill 0 alone matches
    first, covered = request_channel(lexicon, ["refund", "invoic"], [3], None, names, 50)
    assert [s for s, _ in first] == [0] and covered == 1.0


def first_of(lexicon, names):
    scores = lexicon.scores(["refund"])
    return 2, float(scores[2])


def test_the_gate_counts_only_the_requests_excess_over_the_skills_own_words():
    assert request_words_weight(0.75, 0.5) == REQUEST_LEXICAL * 0.25
    assert request_words_weight(0.5, 0.75) == 0.0  # the skills' text holds more of the query: no channel
    assert request_words_weight(1.0, 0.0, 1.0) == 1.0
    assert request_words([(3, 2.0), (1, 1.0)], 0.0) == {}
    words = request_words([(3, 2.0), (1, 1.0), (5, 0.0)], 0.3)
    z = np.asarray([2.0, 1.0, 0.0])
    z = (z - z.mean()) / z.std()
    assert words == pytest.approx({3: 0.3 * z[0], 1: 0.3 * z[1], 5: 0.3 * z[2]}, rel=1e-12)
    assert request_words([(4, 2.0)], 0.5) == {4: 0.0}  # one match: no spread, z-score 0


def test_the_bonus_goes_to_candidates_in_both_lists_first_depth():
    lexical = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    vector = [("b", 0.5), ("d", 0.4), ("a", 0.3), ("c", 0.1)]
    plain = {f.id: f.score for f in zscore(lexical, vector, 1.0, candidates=3)}
    mnz = {f.id: f.score for f in zscore(lexical, vector, 1.0, candidates=3, mnz=0.25, mnz_depth=2, words={})}
    assert mnz["b"] == pytest.approx(plain["b"] + 0.25)  # first two of both lists
    assert mnz["a"] == plain["a"]  # a is third in the vector list: past depth 2
    assert mnz["c"] == plain["c"] and mnz["d"] == plain["d"]
    deep = {f.id: f.score for f in zscore(lexical, vector, 1.0, candidates=3, mnz=0.25, mnz_depth=50, words={})}
    assert deep["a"] == pytest.approx(plain["a"] + 0.25)  # the depth is at most the candidates (3)
    assert deep["c"] == plain["c"]  # c is fourth in the vector list
    words = {f.id: f.score for f in zscore(lexical, vector, 1.0, candidates=3, mnz=0.0, mnz_depth=2,
                                            words={"d": 0.7})}
    assert words["d"] == pytest.approx(plain["d"] + 0.7) and words["b"] == plain["b"]
    request = BlendRequest("q", 3, 0.12, None, lambda *_: None, fusion="zscore", mnz=0.25, mnz_depth=2,
                           request_words={7: 0.5})
    assert mnz_extra(request, 7, True) == 0.75 and mnz_extra(request, 7, False) == 0.5
    assert mnz_extra(request, 1, True) == 0.25
    # the extras are added last, after the two z-scores
    assert zscore_scores([0.1, 0.2], [1.0, None], 1.0, [0.5, 0.0]) == pytest.approx([-0.5, 1.0], abs=1e-12)
    assert zscore_scores([0.1, 0.2], [1.0, None], 1.0, [0.0, 0.0]) == zscore_scores([0.1, 0.2], [1.0, None], 1.0)


def test_shares_split_the_agreement_and_the_request_words_off_the_vector_share():
    request = BlendRequest("q", 3, 0.12, None, lambda *_: None, fusion="zscore", lexical_weight=0.5, mnz=0.25,
                           mnz_depth=50, request_words={})
    shares = dict(channel_shares(request, 2.0, 9.0, True, [9.0, 5.0, 1.0], extra=(0.25, 0.4)))
    assert set(shares) == {"vector", "lexical", "agreement", "request words"}
    assert shares["agreement"] == 0.25 and shares["request words"] == 0.4
    assert sum(shares.values()) == pytest.approx(2.0, abs=1e-5)
    assert set(dict(channel_shares(request, 2.0, 9.0, True, [9.0, 5.0, 1.0]))) == {"vector", "lexical"}


def test_defaults_are_the_documented_ones():
    from skillsift.config import SearchConfig

    s = SearchConfig()
    assert (MNZ_BONUS, REQUEST_LEXICAL, MNZ_DEPTH) == (0.25, 0.6, 50)
    assert (s.mnz_bonus, s.request_lexical_weight, s.mnz_depth) == (MNZ_BONUS, REQUEST_LEXICAL, MNZ_DEPTH)


def test_the_lexicon_is_built_once_per_set_of_requests():
    from skillsift.ranker.examples import ExampleRows

    rows = ExampleRows.of(np.eye(3, dtype=np.float32), [2, 0, 1], ["deploy it", "refund it", "audit it"])
    first = rows.lexicon(3)
    assert rows.lexicon(3) is first
    assert first.scores(["refund"]).tolist()[0] > 0 and first.scores(["refund"]).tolist()[1:] == [0.0, 0.0]


# -- end to end: the CLI on a repository with an examples file --------------------------------------------


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path, capsys):
    root = tmp_path / "proj"
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "deploy-staging", "Roll a service out to the staging cluster")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    write(root, "skillsift.toml", '[search]\nmode = "hybrid"\nfusion = "zscore-mnz"\n'
                                  'examples = ["search-examples.yaml"]\n')
    # words no skill's text holds, known as a request of git-workflow
    write(root, "search-examples.yaml", "version: 1\ncases:\n"
                                        '  - id: k1\n    query: "tidy kubernetes manifests"\n'
                                        "    expect: [git-workflow]\n"
                                        '  - id: k2\n    query: "lint kubernetes helm charts"\n'
                                        "    expect: [deploy-staging]\n")
    set_user_config(user_config("--log", str(tmp_path / "calls.jsonl")))
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    return root


def _search(capsys, root, query, *more):
    code, out, err = run(capsys, "search", query, "--root", root, "--format", "json", "--explain", *more)
    assert code == 0, err
    return json.loads(out)["results"]


def test_search_explains_the_request_words_channel(project, capsys):
    results = _search(capsys, project, "tidy kubernetes manifests")
    shares = {r["name"]: r["channels"] for r in results}
    # both requests hold "kubernetes", git-workflow's all three words: it is lifted, deploy-staging lowered
    assert shares["git-workflow"]["request words"] > 0 > shares["deploy-staging"]["request words"]
    assert results[0]["name"] == "git-workflow"
    for r in results:
        assert abs(sum(r["channels"].values()) - r["score"]) < 1e-4
        assert set(r["channels"]) >= {"agreement", "request words", "lexical"}
    assert _search(capsys, project, "tidy kubernetes manifests") == results  # deterministic


def test_zscore_keeps_its_channels_and_lexical_mode_is_untouched(project, capsys):
    write(project, "skillsift.toml", '[search]\nmode = "hybrid"\nfusion = "zscore"\n'
                                     'examples = ["search-examples.yaml"]\n')
    results = _search(capsys, project, "kubernetes manifests")
    assert all("request words" not in r["channels"] and "agreement" not in r["channels"] for r in results)
    lexical = [r["name"] for r in _search(capsys, project, "pull request", "--mode", "lexical")]
    write(project, "skillsift.toml", '[search]\nmode = "hybrid"\nfusion = "zscore-mnz"\n'
                                     'examples = ["search-examples.yaml"]\n')
    assert [r["name"] for r in _search(capsys, project, "pull request", "--mode", "lexical")] == lexical


def test_eval_leaves_a_cases_own_request_out_of_the_request_words(project, capsys):
    write(project, "cases.yaml", "version: 1\ncases:\n"
                                 '  - id: own\n    query: "tidy kubernetes manifests"\n    expect: [git-workflow]\n')
    code, out, err = run(capsys, "eval", project / "cases.yaml", "--root", project, "--format", "json")
    assert out, err
    rank = json.loads(out)["cases"][0]["rank"]
    assert _search(capsys, project, "tidy kubernetes manifests")[0]["name"] == "git-workflow"
    # the rank eval gives is the live search's without that request (the other one kept)
    write(project, "search-examples.yaml", "version: 1\ncases:\n"
                                           '  - id: k2\n    query: "lint kubernetes helm charts"\n'
                                           "    expect: [deploy-staging]\n")
    without = [r["name"] for r in _search(capsys, project, "tidy kubernetes manifests")]
    assert rank == without.index("git-workflow") + 1 != 1


def test_a_query_the_skills_own_top_match_covers_builds_no_request_index():
    """When the first lexical hit holds every query term the requests can hold no more, so their channel adds
    nothing (the gate's excess is 0) and their BM25 index is not built for it (a one-shot search saves it)."""
    from types import SimpleNamespace

    from skillsift.ranker.request_lexicon import request_shares

    built = []

    class Requests:
        def lexicon(self, n_skills):
            built.append(n_skills)
            return RequestLexicon([0, 1], ["tidy kubernetes manifests", "lint helm charts"], n_skills)

        def masked(self, query, own):
            return ()

    terms = tokenize("tidy kubernetes manifests")
    search = SimpleNamespace(examples=Requests(), own_evidence=None, skills=("a", "b"),
                             _name_ranks=lambda: np.arange(2))
    settings = SimpleNamespace(example_weight=0.6, request_lexical_weight=REQUEST_LEXICAL, candidates=50)

    def lexical(coverage):
        return SimpleNamespace(coverage=lambda: coverage, subset=None,
                               hits=SimpleNamespace(lexical=SimpleNamespace(query_terms=lambda q: terms)))

    assert request_shares(search, "tidy kubernetes manifests", settings, lexical(1.0)) == {}
    assert built == []
    shares = request_shares(search, "tidy kubernetes manifests", settings, lexical(1 / 3))
    assert built == [2] and set(shares) == {0}  # the one request holding the terms: its skill is in the channel

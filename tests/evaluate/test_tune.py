"""``skillsift tune``: pure scoring and selection, the config edit, the command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skillsift.cli import main
from skillsift.config.tomledit import set_table_keys
from skillsift.evaluate import tune
from tests.support.cli import load_schema


def _signals(lexical, cos, expected, names=None):
    n = lexical.shape[1]
    names = names or [f"s{i:02d}" for i in range(n)]
    docs = {tune.ALL_FIELDS: np.eye(n), tune.NAME_FREE: np.eye(n)}
    sig = tune.signals_from(lexical, docs, cos, names, expected)
    return sig


def test_folds_are_fixed_balanced_and_seeded():
    a, b = tune.fold_of(103), tune.fold_of(103)
    assert np.array_equal(a, b)
    counts = np.bincount(a)
    assert len(counts) == 5 and counts.max() - counts.min() <= 1
    assert not np.array_equal(a, tune.fold_of(103, seed=1))


def test_ranks_break_ties_by_name_and_count_unreturned_as_misses():
    lexical = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    sig = _signals(lexical, np.eye(3)[:2], [[1], [2]])
    scores, returned = tune.lexical_only(sig)
    r = tune.ranks(scores, returned, sig)
    assert r.tolist() == [2, 0]  # s00 ties s01 and wins by name; no lexical match -> not returned


def test_blend_adds_the_bounded_lexical_bonus_to_the_centred_cosine():
    # two skills whose cosines tie: the lexical match decides, by at most BLEND_SCALE * w
    q = np.array([[1.0, 0.0]])
    docs = np.array([[0.8, 0.6], [0.8, -0.6]])
    sig = tune.signals_from(np.array([[0.0, 3.0]]), {tune.ALL_FIELDS: docs}, q, ["a", "b"], [[1]])
    scores, returned = tune.fused(tune.Setting("blend", tune.ALL_FIELDS, 1.0), sig)
    centred = sig.centred(tune.ALL_FIELDS)[0]
    assert scores[0, 1] == pytest.approx(centred[1] + tune.BLEND_SCALE, abs=1e-9)
    assert scores[0, 0] == pytest.approx(centred[0], abs=1e-9)
    assert returned.all()
    assert tune.ranks(scores, returned, sig).tolist() == [1]


def test_cross_validation_picks_the_setting_that_wins_on_held_out_folds():
    rng = np.random.default_rng(3)
    n_cases, n_skills = 60, 12
    expected = [[i % n_skills] for i in range(n_cases)]
    cos = rng.normal(0, 0.05, (n_cases, n_skills))
    lexical = np.zeros((n_cases, n_skills))
    for i, (t,) in enumerate(expected):
        cos[i, (t + 1) % n_skills] += 0.2  # cosine prefers a neighbour
        cos[i, t] += 0.15
        lexical[i, t] = 5.0  # the name matches
    sig = _signals(lexical, cos, expected)
    sig.cosine[tune.NAME_FREE] = cos
    sig.cosine[tune.ALL_FIELDS] = cos
    sig._centred[tune.ALL_FIELDS] = cos
    sig._centred[tune.NAME_FREE] = cos
    settings = tune.grid((tune.ALL_FIELDS,), (50,))
    cosine = settings.index(tune.Setting("auto", tune.ALL_FIELDS))
    result = tune.cross_validate(settings, sig, cosine, cosine)
    assert settings[result.winner].fusion in ("blend", "weighted", "rrf")
    assert result.held_out.rr.mean() > result.series[cosine].rr.mean()
    assert result.change()
    again = tune.cross_validate(settings, sig, cosine, cosine)
    assert again.winner == result.winner and np.array_equal(again.held_out.rr, result.held_out.rr)


def _opposed(n_cases, n_skills, seed, *, cosine_right: bool):
    """Signals where one channel finds every case's skill and the other points to a neighbour."""
    rng = np.random.default_rng(seed)
    expected = [[i % n_skills] for i in range(n_cases)]
    cos = rng.normal(0, 0.01, (n_cases, n_skills))
    lexical = np.zeros((n_cases, n_skills))
    for i, (t,) in enumerate(expected):
        wrong = (t + 1 + i % 3) % n_skills
        if cosine_right:
            cos[i, t] += 0.08  # right, but by less than the default bonus
            lexical[i, wrong], lexical[i, t] = 9.0, 1.0  # a strong lexical match on the wrong skill
        else:
            cos[i, wrong] += 0.12
            cos[i, t] += 0.02
            lexical[i, t], lexical[i, wrong] = 6.0, 1.0
    sig = _signals(lexical, cos, expected)
    for fields in (tune.ALL_FIELDS, tune.NAME_FREE):
        sig.cosine[fields] = cos
        sig._centred[fields] = cos
    return sig


@pytest.mark.parametrize("fusion", ["zscore", "blend"])  # the default, and the default before 2026-12-06
def test_where_cosine_beats_the_default_tune_finds_cosine_only(fusion):
    sig = _opposed(80, 10, 5, cosine_right=True)
    sig.coverage, sig.terms = np.ones(80), np.full(80, 4)  # the query's words all in the wrong skill
    settings = tune.grid((tune.NAME_FREE,), (50,))
    current = settings.index(tune.Setting(fusion, tune.NAME_FREE, 1.0, 50))
    cosine = settings.index(tune.Setting("auto", tune.NAME_FREE, 1.0, 50))
    result = tune.cross_validate(settings, sig, current, cosine)
    assert result.series[cosine].rr.mean() > result.series[current].rr.mean()  # the set is as described
    assert settings[result.winner].fusion == "auto"
    assert set(result.chosen_per_fold) == {cosine}
    assert result.change()


@pytest.mark.parametrize("fusion", ["zscore", "blend"])
def test_where_lexical_beats_the_default_tune_finds_a_heavier_lexical_weight(fusion):
    sig = _opposed(80, 10, 6, cosine_right=False)
    sig.coverage, sig.terms = np.full(80, 0.25), np.full(80, 1)  # a weak lexical trust: the default leans on cosine
    settings = tune.grid((tune.NAME_FREE,), (50,))
    current = settings.index(tune.Setting(fusion, tune.NAME_FREE, 1.0, 50))
    result = tune.cross_validate(settings, sig, current, 0)
    lexical = tune.series_of(None, sig)
    assert lexical.rr.mean() > result.series[current].rr.mean()  # the default loses to its lexical part
    win = settings[result.winner]
    assert win.fusion != "auto" and (win.fusion not in ("blend", fusion) or win.weight_lexical > 1.0)
    assert result.held_out.rr.mean() >= lexical.rr.mean() - 1e-12  # tuned is not below the lexical part
    assert result.change()


def test_no_change_when_the_current_setting_already_wins():
    n = 20
    expected = [[i % 4] for i in range(n)]
    cos = np.zeros((n, 4))
    for i, (t,) in enumerate(expected):
        cos[i, t] = 1.0
    sig = _signals(np.zeros((n, 4)), cos, expected)
    settings = tune.grid((tune.ALL_FIELDS,), (50,))
    cur = settings.index(tune.Setting("auto", tune.ALL_FIELDS))
    result = tune.cross_validate(settings, sig, cur, cur)
    assert result.winner == cur and not result.change()


# -- the config edit ------------------------------------------------------------------------------

KEYS = {"mode": "hybrid", "fusion": "blend", "fields": ["description", "triggers", "keywords"],
        "candidates": 50, "rrf_k": 60, "weights": {"lexical": 0.5, "vector": 1.0}}


def test_edit_keeps_comments_and_other_tables_and_replaces_values():
    text = ("# top comment\n[search]\n# the mode\nmode = \"lexical\"  # why\nfields = [\n  \"name\",\n"
            "  \"description\",\n]\n\n[roles.billing]\nskills = [\"a\"]\n")
    out = set_table_keys(text, "search", KEYS)
    assert out.startswith("# top comment\n[search]\n# the mode\nmode = \"hybrid\"\n")
    assert "[roles.billing]\nskills = [\"a\"]\n" in out
    assert 'fields = ["description", "triggers", "keywords"]' in out and '"name",' not in out
    assert "weights = { lexical = 0.5, vector = 1.0 }" in out


def test_edit_writes_into_an_existing_weights_table_or_dotted_keys():
    text = "[search]\nmode = \"hybrid\"\n\n[search.weights]\nlexical = 2.0 # tuned\n"
    out = set_table_keys(text, "search", KEYS)
    assert "[search.weights]\nlexical = 0.5\nvector = 1.0\n" in out and "weights = {" not in out
    dotted = set_table_keys("[search]\nweights.lexical = 2.0\n", "search", KEYS)
    assert "weights.lexical = 0.5" in dotted and "weights.vector = 1.0" in dotted


def test_edit_creates_the_table_and_handles_pyproject():
    out = set_table_keys("[project]\nname = \"x\"\n", "tool.skillsift.search", {"fusion": "blend"})
    assert out == "[project]\nname = \"x\"\n\n[tool.skillsift.search]\nfusion = \"blend\"\n"
    with pytest.raises(ValueError):
        set_table_keys("[search]\nmode = \"a\"\n[search]\n", "search", {"mode": "hybrid"})


# -- the command ----------------------------------------------------------------------------------


@pytest.fixture
def acme(acme):
    """The example copy of the root conftest, with the local model (skillsift[embed]) required."""
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    return acme


def test_tune_on_the_example_is_deterministic_and_matches_its_schema(acme, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    cases = str(acme / "search-cases.yaml")
    assert main(["tune", cases, "--root", str(acme), "--format", "json"]) == 0
    first = capsys.readouterr().out
    assert main(["tune", cases, "--root", str(acme), "--format", "json"]) == 0
    assert capsys.readouterr().out == first
    doc = json.loads(first)
    schema = load_schema("tune.v1.json")
    jsonschema.validate(doc, schema)
    assert doc["cases"] == 33 and doc["skipped_cases"] == 5  # 4 negative, 1 role-scoped
    labels = [row["setting"]["label"] for row in doc["candidates"]]
    assert len(labels) == len(set(labels))
    current = [row for row in doc["candidates"] if row["current"]]
    assert len(current) == 1 and current[0]["dmrr_vs_current"] == [0.0, 0.0, 0.0]


def test_tune_write_keeps_the_setting_without_a_significant_gain(acme, capsys):
    toml = acme / "skillsift.toml"
    before = toml.read_bytes()
    assert main(["tune", str(acme / "search-cases.yaml"), "--root", str(acme), "--write"]) == 0
    out, err = capsys.readouterr()
    assert "decision: keep the current setting" in out
    assert "nothing written" in err
    assert toml.read_bytes() == before


def test_tune_write_changes_a_clearly_worse_setting_and_keeps_the_rest(acme, capsys):
    toml = acme / "skillsift.toml"
    text = toml.read_text().replace('mode = "lexical"', 'mode = "hybrid"\nfusion = "weighted"\nweights = '
                                    '{ lexical = 4.0, vector = 1.0 }', 1)
    toml.write_text(text)
    assert main(["tune", str(acme / "search-cases.yaml"), "--root", str(acme), "--write",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["change"] and doc["wrote"] == str(toml)
    new = toml.read_text()
    assert "[roles.billing]" in new and "# Roles restrict a search" in new
    from skillsift.config import load_config

    search = load_config(str(acme)).search
    assert search.fusion == doc["winner"]["fusion"] and list(search.fields) == doc["winner"]["fields"]
    assert search.weight_lexical == doc["winner"]["weights"]["lexical"]


def test_a_progress_bar_only_on_a_terminal_and_for_long_embeddings(monkeypatch):
    import io
    import sys

    from skillsift.commands import tune_cmd

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert tune_cmd._progress_factory("text")(10_000) is None  # not a terminal
    tty = Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    make = tune_cmd._progress_factory("text")
    assert make(tune_cmd.PROGRESS_MIN_TEXTS) is None  # short: no bar
    update = make(1000)
    update(1000)
    while tune_cmd._bars:
        tune_cmd._bars.pop().__exit__(None, None, None)
    assert "embedding" in tty.getvalue()


def test_tune_in_the_listing_view_scores_what_the_agent_lists(acme, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    cases = str(acme / "search-cases.yaml")
    assert main(["tune", cases, "--root", str(acme), "--format", "json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert main(["tune", cases, "--root", str(acme), "--format", "json", "--view", "listing",
                 "--context-window", "20000"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    jsonschema.validate(doc, load_schema("tune.v1.json"))
    assert "view: listing (claude-code, context window 20,000 tokens)" in captured.err
    assert doc["view"]["agent"] == "claude-code" and "view" not in full
    assert doc["cases"] == full["cases"]  # every expected skill is listed, most by name only
    assert doc["lexical"]["mrr"] < full["lexical"]["mrr"]


def test_the_mode_to_suggest_needs_an_interval_that_excludes_zero():
    from skillsift.evaluate.tune_run import suggested_mode

    assert suggested_mode("lexical", [0.2, 0.1, 0.3]) == "hybrid"
    assert suggested_mode("lexical", [0.2, -0.01, 0.3]) == ""
    assert suggested_mode("hybrid", [-0.2, -0.3, -0.1]) == "lexical"
    assert suggested_mode("hybrid", [-0.2, -0.3, 0.01]) == ""
    assert suggested_mode("vector", [-0.2, -0.3, -0.1]) == "lexical"
    assert suggested_mode("hybrid", [0.2, 0.1, 0.3]) == ""  # already hybrid


def test_tune_names_the_mode_it_tuned_and_suggests_hybrid_to_a_lexical_repository(acme, capsys):
    assert main(["tune", str(acme / "search-cases.yaml"), "--root", str(acme)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # 33 cases are scored and 5 more are left out: the header cannot be read as 28 scored
    assert lines[0].startswith("tune: hybrid mode (the repository ranks in lexical mode); 33 cases scored "
                               "(5 more, negative or role-scoped, left out), k=5")
    assert "paired MRR of hybrid (cross-validated) vs lexical: +0." in out
    assert 'mode: hybrid beats lexical with a 95% interval above 0: consider [search] mode = "hybrid"' in out


def test_tune_over_a_listing_that_serves_no_skill_is_a_clear_error_not_a_crash(acme, capsys):
    """examples/acme keeps its skills in .claude/skills, which Codex does not read: its listing is empty."""
    code = main(["tune", str(acme / "search-cases.yaml"), "--root", str(acme), "--view", "listing",
                 "--agent", "codex"])
    _out, err = capsys.readouterr()
    assert code == 1
    assert "error: nothing to tune: the listing of codex serves no skill" in err
    assert "skillsift list --agent codex" in err and "Traceback" not in err


def test_zscore_standardises_each_list_and_weighs_the_lexical_part_by_coverage():
    # two cases over three skills; cosines and BM25F on very different scales
    cos = np.array([[0.30, 0.20, 0.10], [0.30, 0.20, 0.10]])
    lexical = np.array([[0.0, 50.0, 10.0], [0.0, 50.0, 10.0]])
    sig = _signals(lexical, cos, [[1], [0]])
    sig._centred[tune.ALL_FIELDS] = cos
    sig.coverage = np.array([1.0, 0.0])  # case 0: every query term in the top lexical match; case 1: none
    sig.terms = np.array([4, 4])  # four query terms or more: the full weight, 1.2 x coverage
    scores, returned = tune.fused(tune.Setting("zscore", tune.ALL_FIELDS, 2.0), sig)
    assert returned.all()
    z_cos = (cos[0] - cos[0].mean()) / cos[0].std()
    z_lex = np.array([0.0, 1.0, -1.0])  # the lexical cut is the two matches: +-1
    assert scores[0] == pytest.approx(np.round(z_cos + 2.0 * 1.2 * z_lex, 9))
    sig.terms = np.array([1, 4])  # a one-term query: (0.5 + 0.7 / 4) x coverage
    short, _ = tune.fused(tune.Setting("zscore", tune.ALL_FIELDS, 2.0), sig)
    assert short[0] == pytest.approx(np.round(z_cos + 2.0 * 0.675 * z_lex, 9))
    assert scores[1] == pytest.approx(np.round(z_cos, 9))  # no coverage: the cosine alone
    assert tune.ranks(scores, returned, sig).tolist() == [1, 1]


def test_coverage_counts_the_query_terms_of_the_top_lexical_match():
    lexical = np.array([[0.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
    tie = np.array([2, 1, 0])  # skill 2 sorts first by name: it wins the tie
    from skillsift.ranker.lexical import LexicalIndex

    deploy, stage, later = LexicalIndex.query_terms("deploy staging later")
    terms = {1: frozenset({deploy}), 2: frozenset({deploy, stage})}.__getitem__
    out = tune.coverage(["deploy staging later", "deploy"], lexical, tie, terms)
    assert out.tolist() == [pytest.approx(2 / 3), 0.0]

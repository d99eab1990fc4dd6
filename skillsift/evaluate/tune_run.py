"""One ``skillsift tune`` run: gather the signals of a repository's cases, then select.

The selection itself is pure (:mod:`skillsift.evaluate.tune`); this module embeds what it
needs through the configured provider (so the network gate and budget of the config
apply), reusing the index's stored vectors where they are current, and turns the result
into the ``tune.v1`` document (:func:`document`; :mod:`skillsift.render.tune` prints it as
text).  See docs/ranking-quality.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..catalog.embedtext import embedded_text, text_digest
from ..embed.base import ProviderUnavailable
from ..index.build import WITHHELD, PlannedItem, withhold_requests
from ..ranker.examples import ExampleRows
from ..ranker.lexical import LexicalIndex
from ..ranker.lexical_hits import LexicalHits
from ..ranker.model.lift import normalised
from ..ranker.query_embedding import QueryEmbedder
from ..ranker.screens import normalise_query
from ..secrets.egress import secret_scan
from . import tune
from .examples import known_requests
from .holdout import plan

SCHEMA_VERSION = 1


@dataclass
class TuneRun:
    result: tune.TuneResult
    lexical: tune.Series
    cases: int
    skipped: int  # negative or role-scoped cases: not scored
    k: int
    folds: int
    seed: int
    repository_mode: str = "lexical"  # the configured [search] mode
    weight: tune.WeightResult | None = None  # the cross-validated choice of [search] example_weight
    weight_note: str = ""  # why the weight was not tuned, or how its evidence was held out
    current_weight: float = 0.6
    requests: int = 0
    withheld: tuple = ()  # known requests, skill texts and case queries kept back from the provider for a
    # secret (AR9D3), planned as index plans them


def current_setting(search) -> tune.Setting:
    """The configured hybrid setting (``weights.lexical`` relative to ``weights.vector``)."""
    ratio = search.weight_lexical / search.weight_vector if search.weight_vector else search.weight_lexical
    setting = tune.Setting(search.fusion, tuple(search.fields), float(ratio), int(search.candidates),
                           int(search.rrf_k))
    if search.fusion == "zscore-mnz":  # its bonus and depth as configured (the other fusions have none)
        setting = replace(setting, mnz=float(search.mnz_bonus), mnz_depth=int(search.mnz_depth))
    return setting


def settings_for(current: tune.Setting, n_skills: int) -> tuple[list[tune.Setting], int, int]:
    """The grid with the current setting and cosine only (current fields) in it: (grid, current, cosine).

    Candidate counts of at least the catalog size all rank alike: only the current one is kept.
    """
    variants = list(dict.fromkeys([tuple(current.fields), tune.ALL_FIELDS, tune.NAME_FREE]))
    cands = tuple(c for c in dict.fromkeys([current.candidates, *tune.CANDIDATES])
                  if c == current.candidates or c < n_skills)
    settings = tune.grid(variants, cands)
    cosine = tune.Setting("auto", tuple(current.fields), candidates=current.candidates)
    for extra in (current, cosine):
        if extra not in settings:
            settings.insert(0, extra)
    return settings, settings.index(current), settings.index(cosine)


def _embed_all(provider, texts: list[str], batch: int, progress) -> np.ndarray:
    out = []
    for start in range(0, len(texts), batch):
        chunk = texts[start:start + batch]
        vecs = np.asarray(provider.embed(chunk), dtype=np.float64)
        if vecs.ndim != 2 or vecs.shape[0] != len(chunk):
            raise ProviderUnavailable("the provider returned the wrong number of vectors")
        out.append(vecs)
        if progress is not None:
            progress(len(chunk))
    return np.vstack(out) if out else np.zeros((0, 0))


def _embed_except(provider, texts: list[str], batch: int, progress, skip) -> np.ndarray:
    """:func:`_embed_all` of the texts but those at the positions ``skip``, which are never sent
    (AR9D3: they hold a secret, as ``skillsift index`` and a search judge them) and get a zero row."""
    if not skip:
        return _embed_all(provider, texts, batch, progress)
    kept = [i for i in range(len(texts)) if i not in skip]
    vecs = _embed_all(provider, [texts[i] for i in kept], batch, progress)
    out = np.zeros((len(texts), vecs.shape[1] if kept else int(getattr(provider, "dims", None) or 1)))
    if kept:
        out[kept] = vecs
    return out


def _pieces(key) -> tuple[str, ...]:
    """The texts a query embedding key sends: the query, or a long query's pieces."""
    return key if isinstance(key, tuple) else (key,)


def _same_width(docs: dict, qv: np.ndarray) -> tuple[dict, np.ndarray]:
    """Every matrix as wide as the embedded ones: one made only of withheld texts (zeros) may not
    know the provider's width (a remote provider tells it with its first answer)."""
    widths = {m.shape[1] for m in (*docs.values(), qv) if m.size and m.any()}
    if len(widths) != 1:
        return docs, qv
    (width,) = widths

    def fit(m: np.ndarray) -> np.ndarray:
        return m if m.shape[1] == width else np.zeros((m.shape[0], width))

    return {v: fit(m) for v, m in docs.items()}, fit(qv)


def _withheld_item(name: str, text: str, kind: str, secret: str):
    """A text kept back from the provider, planned as ``skillsift index`` plans one (for its AR9D3 line)."""

    return PlannedItem(id=name, domain="", item_digest="", text=text, text_digest=text_digest(text),
                       action=WITHHELD, secret=secret, kind=kind)


def _unit(m: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(m, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return m / n


def texts_to_embed(skills, search, variants) -> dict:
    return {v: [embedded_text(s, v, search.index_body, search.body_chars) for s in skills] for v in variants}


@dataclass
class _Gathered:
    """The gather stage's output: what every setting is scored on."""
    skills: list
    position: dict
    scored: list
    settings: list
    cur_i: int
    cos_i: int
    plain: tune.Signals  # the signals without known-request evidence
    qv: np.ndarray
    pieces: dict
    kept_back: dict
    batch: int


def _scored_cases(case_file, position: dict) -> list:
    """The positive, unscoped cases whose expected skills are all in the catalog."""
    return [c for c in case_file.cases if not c.negative and not getattr(c, "role", None)
            and c.expect_ids and all(n in position for n in c.expect_ids)]


def _reusable_rows(index, skills, texts: dict, configured: tuple) -> dict:
    """``{fields: matrix}``: the index's vectors for the configured fields when every skill's row is current."""

    if index is None:
        return {}
    rows = []
    for s, text in zip(skills, texts.get(configured, []), strict=False):
        row = index.row(s.domain, s.name)
        rows.append(row if row >= 0 and index.items[row].text_digest == text_digest(text) else -1)
    if rows and min(rows) >= 0:
        return {configured: np.asarray(index.matrix, dtype=np.float64)[rows]}
    return {}


def _skill_vectors(provider, skills, texts: dict, reuse: dict, scan, batch: int, progress, kept_back: dict) -> dict:
    """``{fields: unit matrix}`` of every variant's skill texts; a text holding a secret gets a zero row and
    is recorded in ``kept_back``."""
    docs = {}
    for v, variant_texts in texts.items():
        if v in reuse:
            docs[v] = reuse[v]
            continue
        # a skill's text is scanned with its name, as the build scans it
        held = {i: kind for i, (s, text) in enumerate(zip(skills, variant_texts, strict=True))
                if scan is not None and (kind := scan(text) or scan(s.name))}
        docs[v] = _unit(_embed_except(provider, variant_texts, batch, progress, held))
        for i, kind in held.items():
            kept_back.setdefault(f"skill\0{skills[i].name}", _withheld_item(skills[i].name, variant_texts[i], "skill",
                                                                              kind))
    return docs


def _secret_cases(keys: list, queries: list, scan) -> dict:
    """``{case row: (text, kind)}``: the cases whose query (or one of its pieces) holds a secret."""
    found = {t: scan(t) for t in queries} if scan is not None else {}
    return {row: next((t, found[t]) for t in _pieces(key) if found[t])
            for row, key in enumerate(keys) if any(found.get(t) for t in _pieces(key))}


def _lexical_scores(skills, scored) -> tuple[np.ndarray, object]:
    """(case x skill lexical scores, the lexical index)."""

    lexical = LexicalIndex(skills)
    lex = np.zeros((len(scored), len(skills)))
    for qi, c in enumerate(scored):
        for i, score in lexical.rank(c.query):
            lex[qi, i] = score
    return lex, lexical


def gather(catalog, config, case_file, provider, *, index=None, progress_factory: Callable | None = None) -> _Gathered:
    """The gather stage: embed what the grid needs and build the cases' signals (no known requests yet)."""

    skills = list(catalog.skills)
    position = {s.name: i for i, s in enumerate(skills)}
    scored = _scored_cases(case_file, position)
    current = current_setting(config.search)
    settings, cur_i, cos_i = settings_for(current, len(skills))
    variants = list(dict.fromkeys(s.fields for s in settings))
    texts = texts_to_embed(skills, config.search, variants)
    reuse = _reusable_rows(index, skills, texts, tuple(config.search.fields))
    # what the ranker embeds for each query: the capped text, or a long query's pieces
    embedder = QueryEmbedder(provider, 0, long_query=config.search.long_query,
                             piece_words=config.search.long_query_words)
    keys = [embedder.key(c.query) for c in scored]
    queries = list(dict.fromkeys(t for key in keys for t in (key if isinstance(key, tuple) else (key,))))
    total = len(queries) + sum(len(t) for v, t in texts.items() if v not in reuse)
    progress = progress_factory(total) if progress_factory is not None else None
    batch = getattr(provider, "max_batch", None) or config.search.batch_size or 64
    # as skillsift index and search do: a skill text or query holding a secret is never sent to a provider
    # outside the process; such a skill is scored without a vector (it ranks lexically only), such a
    # query with no cosine (a search falls back to lexical for it)
    scan = secret_scan(provider, config.secret_patterns)
    kept_back: dict[str, object] = {}
    docs = _skill_vectors(provider, skills, texts, reuse, scan, batch, progress, kept_back)
    # a case whose query (or one of its pieces) holds a secret sends nothing, as a search sends nothing for it
    secret_cases = _secret_cases(keys, queries, scan)
    clean = {t for row, key in enumerate(keys) if row not in secret_cases for t in _pieces(key)}
    skip = {i for i, t in enumerate(queries) if t not in clean}
    qv = _embed_except(provider, queries, batch, progress, skip) if queries else np.zeros((0, 1))
    docs, qv = _same_width(docs, qv)
    for row, (text, kind) in secret_cases.items():
        kept_back.setdefault(f"query\0{scored[row].id}", _withheld_item(scored[row].id, text, "query", kind))
    by_text = dict(zip(queries, (normalise_query(v).astype(np.float64) for v in qv), strict=True))
    qv = np.vstack([by_text[_pieces(key)[0]] for key in keys]) if queries else qv
    qv[list(secret_cases)] = 0.0  # no cosine for such a case, even where a clean case shares one of its texts
    pieces = {row: np.vstack([by_text[p] for p in key]) * (row not in secret_cases)
              for row, key in enumerate(keys) if isinstance(key, tuple)}
    sig = _signals(skills, scored, position, docs, qv, pieces)
    return _Gathered(skills, position, scored, settings, cur_i, cos_i, sig, qv, pieces, kept_back, batch)


def _signals(skills, scored, position: dict, docs: dict, qv: np.ndarray, pieces: dict) -> tune.Signals:
    """The cases' lexical and cosine signals, a long query scored by its best piece."""
    lex, lexical = _lexical_scores(skills, scored)
    expected = [[position[n] for n in c.expect_ids] for c in scored]
    sig = tune.signals_from(lex, docs, qv, [s.name for s in skills], expected)
    sig.coverage = tune.coverage([c.query for c in scored], lex, sig.tie, LexicalHits(lexical, skills).terms)
    sig.terms = np.asarray([len(LexicalIndex.query_terms(c.query)) for c in scored], dtype=np.int64)
    tune.use_best_piece(sig, pieces)
    return sig


def _no_weight_note(mode: str, requests, withheld, scored) -> str:
    """Why the example weight is not tuned ("" when it is)."""
    if mode == "lexical":
        return "the repository ranks in lexical mode, which does not use known requests"
    if not requests and withheld:
        return "every known request looks like it holds a secret and is withheld from the provider (AR9D3)"
    if not requests:
        return "the repository has no known requests ([search] examples files or frontmatter examples)"
    if not scored:
        return "no positive case to score"
    return ""


def run(catalog, config, case_file, provider, *, index=None, k: int = 5, folds: int = tune.FOLDS,
        seed: int = tune.FOLD_SEED, progress_factory: Callable | None = None) -> TuneRun:
    """Score every setting of the grid on the positive cases of ``case_file`` and select.

    ``index`` (optional) is the loaded index: its current rows are reused for the
    configured fields.  ``progress_factory(total)`` returns a callable advanced by the
    number of texts embedded (or None).  Raises ``EmbedError`` when the provider fails.
    Three stages: :func:`gather` the signals, score them with the known requests, select.
    """
    g = gather(catalog, config, case_file, provider, index=index, progress_factory=progress_factory)
    # score: the settings are scored as the ranker ranks now, with the known requests at the current weight
    sig = g.plain
    mode = config.search.mode or "lexical"
    weight_now = float(config.search.example_weight)
    requests = _requests(catalog, config) if mode != "lexical" else ()
    # as skillsift index does: a request holding a secret is never sent to a provider outside the process
    requests, withheld = _withhold(requests, provider, config)
    evidence = None
    note = _no_weight_note(mode, requests, withheld, g.scored)
    if not note:
        rvec = _request_vectors(requests, index, provider, g.batch)
        evidence, note = _evidence(requests, rvec, g.scored, g.qv, g.pieces, g.position, folds, seed)
        sig = tune.with_examples(g.plain, evidence[0], evidence[1], weight_now)
    # select
    result = tune.cross_validate(g.settings, sig, g.cur_i, g.cos_i, k=k, folds=folds, seed=seed)
    weight = None
    if evidence is not None:
        # the weight is chosen for the setting the repository will rank with: vector mode ranks by
        # cosine only; hybrid by the winner when it is adopted, else the current setting
        at = result.cosine if mode == "vector" else (result.winner if result.change() else result.current)
        weight = tune.tune_example_weight(result.settings[at], g.plain, evidence[0], evidence[1], weight_now, k=k,
                                          folds=folds, seed=seed)
    return TuneRun(result, tune.series_of(None, sig, k), len(g.scored), len(case_file.cases) - len(g.scored), k,
                   folds, seed, mode, weight, note, weight_now, len(requests),
                   tuple(withheld) + tuple(g.kept_back.values()))


def _requests(catalog, config) -> tuple[tuple[str, str], ...]:
    """The known requests (skill, text) of the repository, in their fixed order."""

    return tuple((r.skill, r.text) for r in known_requests(catalog, config).requests)


def _withhold(requests, provider, config) -> tuple[tuple[tuple[str, str], ...], list]:
    """``(kept, withheld)``: the known requests the index build would send to ``provider``, and the
    planned items of those it withholds (:func:`skillsift.index.build.withhold_requests`)."""

    kept, withheld = withhold_requests(requests, secret_scan(provider, config.secret_patterns))
    return tuple(kept), withheld


def _request_vectors(requests, index, provider, batch: int) -> np.ndarray:
    """Unit vectors of the known requests: the index's example rows when it holds every one, else embedded."""

    if index is not None and hasattr(index, "example_items"):
        rows = {(item.id, item.text_digest): row for row, item in index.example_items()}
        found = [rows.get((skill, text_digest(text)), -1) for skill, text in requests]
        if found and min(found) >= 0:
            return _unit(np.asarray(index.matrix, dtype=np.float64)[found])
    return _unit(_embed_all(provider, [t for _s, t in requests], batch, None))


def _evidence(requests, rvec, scored, qv, pieces, position, folds: int, seed: int):
    """``((best, has), note)``: each case's known-request evidence, never its own request."""

    rows = ExampleRows.of(rvec, [position[s] for s, _t in requests], [t for _s, t in requests])
    m = np.asarray(rows.matrix, dtype=np.float64)
    cos = np.asarray(qv, dtype=np.float64) @ m.T
    for row, vectors in pieces.items():  # a long query: its best piece, as the ranker scores it
        cos[row] = (np.asarray(vectors, dtype=np.float64) @ m.T).max(axis=0)
    case_keys = [normalised(c.query) for c in scored]
    rule = plan([(c.query, c.expect_ids) for c in scored], requests, folds=folds, seed=seed)
    names = sorted(position, key=position.__getitem__)
    evidence = tune.example_evidence(cos, rows.owner, rows.keys, case_keys, len(position), rule=rule, names=names)
    if rule.overlap:
        note = (f"{rule.overlap} case queries are known requests of the skills they expect: each fold is scored "
                f"with the other folds' known requests, never its own (the rule eval and ci rank by)")
    else:
        note = "a case's own text is never its evidence (the rule eval and ci rank by)"
    return evidence, note


def document(run_: TuneRun, *, wrote: str | None = None) -> dict:
    """The ``tune.v1`` JSON document of a run."""
    r = run_.result
    base = r.series[r.current]
    cosine = r.series[r.cosine]
    rows = []
    for i, (setting, s) in enumerate(zip(r.settings, r.series, strict=True)):
        rows.append({"setting": setting.to_dict(), **s.summary(), "current": i == r.current,
                     "cosine_only": i == r.cosine, "dmrr_vs_current": s.versus(base)["mrr"],
                     "dmrr_vs_cosine": s.versus(cosine)["mrr"]})
    winner = r.settings[r.winner]
    versus_lexical = r.held_out.versus(run_.lexical)["mrr"]
    return {
        "schema_version": SCHEMA_VERSION,
        "cases": run_.cases,
        "skipped_cases": run_.skipped,
        "k": run_.k,
        "folds": run_.folds,
        "fold_seed": run_.seed,
        "lexical": run_.lexical.summary(),
        "candidates": rows,
        "chosen_per_fold": [r.settings[i].label() for i in r.chosen_per_fold],
        "cross_validated": {**r.held_out.summary(), "dmrr_vs_current": r.held_out.versus(base)["mrr"],
                            "dmrr_vs_cosine": r.held_out.versus(cosine)["mrr"],
                            "dtop1_vs_current": r.held_out.versus(base)["top1"]},
        "current": r.settings[r.current].to_dict(),
        "winner": {**winner.to_dict(), "dmrr_vs_current": r.series[r.winner].versus(base)["mrr"],
                   "dmrr_vs_cosine": r.series[r.winner].versus(cosine)["mrr"]},
        "change": r.change(),
        "wrote": wrote,
        "tuned_mode": "hybrid",
        "repository_mode": run_.repository_mode,
        "dmrr_vs_lexical": versus_lexical,
        "suggest_mode": suggested_mode(run_.repository_mode, versus_lexical),
        "example_weight": weight_document(run_),
    }


def weight_document(run_: TuneRun) -> dict:
    """The ``example_weight`` part of the document: the weights scored, the choice, or why none."""
    w = run_.weight
    out: dict = {"tuned": w is not None, "note": run_.weight_note, "known_requests": run_.requests,
                 "current": run_.current_weight}
    if w is None:
        return out
    base = w.series[w.current]
    rows = [{"weight": weight, **s.summary(), "current": i == w.current, "dmrr_vs_current": s.versus(base)["mrr"]}
            for i, (weight, s) in enumerate(zip(w.weights, w.series, strict=True))]
    out.update({
        "setting": w.setting.label(),
        "candidates": sorted(rows, key=lambda r: r["weight"]),
        "chosen_per_fold": [w.weights[i] for i in w.chosen_per_fold],
        "winner": w.weights[w.winner],
        "cross_validated": {**w.held_out.summary(), "dmrr_vs_current": w.held_out.versus(base)["mrr"]},
        "change": w.change(),
    })
    return out


def suggested_mode(repository_mode: str, versus_lexical) -> str:
    """The mode to switch to ("" to stay): hybrid when the repository ranks lexically and the cross-validated
    hybrid beats lexical with a 95% interval above 0; lexical when the repository ranks with vectors and
    lexical beats hybrid with an interval below 0."""
    _diff, low, high = versus_lexical
    if repository_mode == "lexical" and low > 0:
        return "hybrid"
    if repository_mode != "lexical" and high < 0:
        return "lexical"
    return ""


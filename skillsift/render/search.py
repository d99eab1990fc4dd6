"""Render a :class:`~skillsift.ranker.result.SearchResult` as text or search.v1 JSON.

:func:`render_search_text` and :func:`render_search_json` are the ``search`` family of the
renderer registry: what ``skillsift search`` prints, made safe for a terminal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..ranker.result import Hit, SearchResult
from ..words import plural
from .sanitise import json_text, plain, plain_lines

STOPWORD_ONLY = (
    'the query holds only stopwords (words such as "the", "how", "to"): nothing to rank; add a content word'
)
NO_MATCH = "no served skill matches"

# One stderr line per degraded reason of a hybrid/vector search (``skillsift search``, the MCP server).
DEGRADED_LINES = {
    "no_index": "search: no usable index, ranking lexically (run 'skillsift index')",
    "network_disabled": "search: the network is disabled (embeddings.allow_network), ranking lexically",
    "budget": "search: the embeddings budget is spent, ranking lexically",
    "timeout": "search: the query embedding timed out, ranking lexically",
    "provider_unavailable": "search: the embedding provider is unavailable, ranking lexically",
    "secret_withheld": "search: the query looks like it holds a secret; it was not sent to the embedding provider, "
                       "ranking lexically",
}


def degraded_line(reason: str) -> str:
    """The line that says a search fell back to lexical ranking, and why."""
    return DEGRADED_LINES.get(reason, f"search: ranking lexically ({reason})")


def result_to_json(result: SearchResult, sources: Mapping[str, str] | None = None) -> dict:
    """The search.v1 document (key order fixed); ``sources``: skill name -> its ``[[sources]]`` entry,
    for the skills of another repository (a hit gets ``source``; the repository's own have none)."""
    doc: dict = {
        "schema_version": 1,
        "query": result.query,
        "ranking": result.ranking,
        "degraded": result.degraded,
    }
    if result.abstained:
        doc["abstained"] = True
    if result.stopword_only and not result.hits:
        doc["no_terms"] = True
    doc["count"] = len(result.hits)
    doc["results"] = [_hit_to_json(rank, hit, (sources or {}).get(hit.name, ""))
                      for rank, hit in enumerate(result.hits, start=1)]
    return doc


def render_search_json(result: SearchResult, *, view: dict | None = None,
                       sources: Mapping[str, str] | None = None, index: dict | None = None,
                       examples_problem: str = "") -> str:
    """The search.v1 document as JSON text; ``view`` (the listing view searched, or None) is added as ``view``,
    ``index`` (why the index was not used, rows it refused; None when neither) as ``index``,
    ``examples_problem`` (why an invalid examples file's known requests were left out) when not ""."""

    doc = result_to_json(result, sources)
    if view is not None:
        doc["view"] = view
    if index:
        doc["index"] = index
    if examples_problem:
        doc["examples_problem"] = examples_problem
    return json_text(doc)


def render_search_text(result: SearchResult, *, width: int = 80, explain: bool = False, min_sim: float = 0.0) -> str:
    """:func:`render_text`, each line made safe for a terminal."""

    return plain_lines(render_text(result, width=width, explain=explain, min_sim=min_sim))


def _hit_to_json(rank: int, hit: Hit, source: str = "") -> dict:
    out: dict = {
        "rank": rank,
        "name": hit.name,
        "description": hit.description,
        "score": hit.score,
        "domain": hit.domain or "root",
        "digest": hit.digest,
    }
    if source:
        out["source"] = source
    if hit.lexical_rank:
        out["lexical_rank"] = hit.lexical_rank
    if hit.vector_rank:
        out["vector_rank"] = hit.vector_rank
        out["vector_sim"] = hit.vector_sim if hit.vector_sim is not None else 0.0
    if hit.stale_vector:
        out["stale_vector"] = True
    if hit.known_request is not None:
        out["known_request"] = {"query": hit.known_request[0], "cosine": round(hit.known_request[1], 6)}
    if hit.channels is not None:
        out["channels"] = dict(hit.channels)
    if hit.explanation is not None:
        e = hit.explanation
        out["explain"] = {
            "score": e.score,
            "length": e.length,
            "avg_length": e.avg_length,
            "n_docs": e.n_docs,
            "terms": [
                {"term": t.term, "tf": t.tf, "idf": t.idf, "points": t.points, "fields": dict(t.fields)}
                for t in e.terms
            ],
        }
    return out


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    if width <= 1:
        return text[:max(width, 0)]
    return text if len(text) <= width else text[: width - 1] + "…"


def render_text(result: SearchResult, *, width: int = 80, explain: bool = False, min_sim: float = 0.0) -> str:
    """Aligned columns that fit ``width``; the description takes what is left (all of it when ``width`` is 0)."""
    if not result.hits:
        if result.abstained:
            return (f"no served skill is a confident match (best cosine {result.top_sim:.3f} is below "
                    f"vector_min_sim {min_sim:.3f})\n")
        return (STOPWORD_ONLY if result.stopword_only else NO_MATCH) + "\n"
    rows = []
    for position, hit in enumerate(result.hits, start=1):
        rows.append((str(position), f"{hit.score:.4f}", plain(hit.name), plain(hit.domain or "root"), hit))
    w_rank = max(4, *(len(r[0]) for r in rows))
    w_score = max(5, *(len(r[1]) for r in rows))
    w_name = max(4, *(len(r[2]) for r in rows))
    w_dom = max(6, *(len(r[3]) for r in rows))
    lines = []
    if explain:
        header = (f"{'RANK':<{w_rank}}  {'SCORE':>{w_score}}  {'LEX#':>4}  {'VEC#':>4}  {'COSINE':>6}  "
                  f"{'NAME':<{w_name}}  DOMAIN")
        lines.append(header.rstrip())
        for rank, score, name, dom, hit in rows:
            lex = str(hit.lexical_rank) if hit.lexical_rank else "-"
            vec = str(hit.vector_rank) if hit.vector_rank else "-"
            cos = f"{hit.vector_sim:.3f}" if hit.vector_sim is not None and hit.vector_rank else "-"
            stale = "  (stale vector)" if hit.stale_vector else ""
            lines.append(f"{rank:<{w_rank}}  {score:>{w_score}}  {lex:>4}  {vec:>4}  {cos:>6}  "
                         f"{name:<{w_name}}  {dom}{stale}")
            lines.extend(_explain_lines(hit))
        lines.append(f"ranking: {result.ranking}" + (f" (degraded: {result.degraded})" if result.degraded else ""))
        if result.embedded:
            lines.append(f"   embed: 1 call, {plural(result.embed_tokens, 'token')}, {result.embed_ms:.0f} ms")
        return "\n".join(lines) + "\n"
    fixed = w_rank + 2 + w_score + 2 + w_name + 2 + w_dom + 2
    w_desc = max(width - fixed, 20)
    lines.append(f"{'RANK':<{w_rank}}  {'SCORE':>{w_score}}  {'NAME':<{w_name}}  {'DOMAIN':<{w_dom}}  DESCRIPTION")
    for rank, score, name, dom, hit in rows:
        # width 0: the whole description (piped output, CI logs); else cut to fit the line
        desc = " ".join(plain(hit.description).split()) if width <= 0 else _cut(plain(hit.description), w_desc)
        lines.append(f"{rank:<{w_rank}}  {score:>{w_score}}  {name:<{w_name}}  {dom:<{w_dom}}  {desc}")
    why = meaning_line(result)
    if why:
        lines.append(why)
    return "\n".join(lines) + "\n"


def meaning_line(result: SearchResult) -> str:
    """One sentence when embeddings put first a skill that words alone would not: what the user saw.

    Printed under the table of a hybrid or vector search (not degraded) whose first hit is not
    the lexical first; "" otherwise (README, Quick start)."""
    if result.ranking not in ("hybrid", "vector") or result.degraded or not result.hits:
        return ""
    top = result.hits[0]
    if top.lexical_rank == 1:
        return ""
    cosine = f" (cosine {top.vector_sim:.3f})" if top.vector_sim is not None and top.vector_rank else ""
    alone = (f"by words alone it ranks {ordinal(top.lexical_rank)}" if top.lexical_rank
             else "words alone do not find it")
    how = "by meaning" if result.ranking == "vector" else "on meaning and words together"
    return f"{result.ranking}: {top.name} is first {how}{cosine}; {alone}"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _explain_lines(hit: Hit) -> list[str]:
    e = hit.explanation
    known = []
    if hit.channels is not None:
        known.append("      channels: " + ", ".join(f"{name} {share:+.4f}" for name, share in hit.channels))
    if hit.known_request is not None:
        known.append(f"      closest known request: {json.dumps(hit.known_request[0], ensure_ascii=False)} "
                     f"cosine {hit.known_request[1]:.2f}")
    if e is None:
        return known
    out = known + [f"      BM25F {e.score:.6f} = sum of term points   (doc length {e.length:g}, "
           f"average {e.avg_length:.4f}, {plural(e.n_docs, 'skill')} in scope)"]
    if not e.terms:
        return out
    w_term = max(4, *(len(t.term) for t in e.terms))
    out.append(f"      {'TERM':<{w_term}}  {'FIELDS (occurrences)':<34}  {'TF':>6}  {'IDF':>8}  {'POINTS':>9}")
    for t in e.terms:
        fields = ", ".join(f"{f}×{n}" for f, n in t.fields) or "-"
        out.append(f"      {t.term:<{w_term}}  {fields:<34}  {t.tf:>6g}  {t.idf:>8.4f}  {t.points:>9.6f}")
    return out

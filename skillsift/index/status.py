"""``skillsift status``: how the index on disk stands against the served skills.

:func:`status_report` is a pure function from the outcome of loading the index and the
served skills to the report (a dict in JSON key order); ``skillsift status`` prints it
through the renderer registry (:mod:`skillsift.render.status`).  States:

* ``none`` — no manifest;
* ``unreadable`` — a manifest exists but the index does not load (the reason says why);
* ``incompatible`` — it loads but was built for another provider, model or embedded text;
* ``stale`` — usable, but some skill's text changed, some skill has no row, a row
  belongs to a skill that is no longer served, or (when the rows were verified, see
  :mod:`.verify`) a row is not the embedding of its skill's text (``mismatched``);
  belongs to a skill that is no longer served, a known request (examples file,
  frontmatter ``examples``) has no row or a request's row is no longer needed, or the
  index was written in an earlier format (the reason says so);
* ``fresh`` — every served skill has a current vector and no row is orphaned.

A row the loader refused (its row digest, a NaN, a zero or a wrong-length row:
:func:`~.store.load_index`) makes the index ``stale`` with the rows listed under ``refused``;
an index of an older format (no row digests) is ``stale`` with every skill missing.
"""

from __future__ import annotations

from ..catalog.embedtext import text_digest
from .classify import classify_skills
from .store import refused_phrase

SCHEMA_VERSION = 1
NONE, UNREADABLE, INCOMPATIBLE, STALE, FRESH = "none", "unreadable", "incompatible", "stale", "fresh"

HINT_BUILD = "run 'skillsift index'"
HINT_REBUILD = "rebuild with 'skillsift index --rebuild'"
HINT_UPDATE = "run 'skillsift index' to embed the changed and missing skills"


def status_report(
    loaded,
    skills,
    *,
    provider: str,
    model: str,
    mode: str = "lexical",
    index_dir: str = "",
    committed: bool = True,
    fields=(),
    index_body: bool = False,
    body_chars: int = 0,
    verification=None,
    examples=(),
    dims: int | None = None,
) -> dict:
    """The status of the index ``loaded`` (a :class:`~.store.LoadResult`) for ``skills``.

    ``provider`` / ``model`` are the configured provider fingerprint and model; the
    text settings are the configured ``[search]`` ones.  Skills without a usable index
    are all "missing".  ``verification`` (a :class:`~.verify.Verification`, or None when the
    rows were not re-embedded) adds ``verified`` to the report.
    text settings are the configured ``[search]`` ones.  ``examples``: the known requests
    as ``(skill, request)`` pairs.  Skills without a usable index are all "missing".
    """

    skills = list(skills)
    index = loaded.index
    known: dict = {}
    refused = tuple(getattr(loaded, "refused", ()))
    state, reason = _unusable(loaded, provider=provider, model=model, fields=fields, index_body=index_body,
                              body_chars=body_chars, dims=dims)
    if state:
        current = drifted = 0
        stale, missing, orphaned = [], sorted(skill.name for skill in skills), []
    else:
        wanted = sorted({(name, text_digest(text)) for name, text in examples})
        c = classify_skills(index.items, skills, fields=fields, index_body=index_body, body_chars=body_chars,
                            examples=wanted)
        current, drifted = c.current, c.drifted
        stale, missing, orphaned = list(c.stale), list(c.missing), list(c.orphaned)
        mismatched = verification.mismatched if verification is not None else ()
        state = FRESH if c.fresh and not mismatched and not refused else STALE
        if refused:
            phrase = refused_phrase(len(refused)).replace(" row", " row of the index", 1)
            reason = (f"{phrase} not used ({loaded.refused_summary()}); the files were changed after "
                      "'skillsift index' wrote them")
        known = {"configured": len(wanted), "current": c.examples_current, "missing": c.examples_missing,
                 "orphaned": c.examples_orphaned}
    report: dict = {
        "schema_version": SCHEMA_VERSION,
        "mode": mode,
        "index_dir": index_dir,
        "committed": bool(committed),
        "state": state,
    }
    if reason:
        report["reason"] = reason
    report["provider"] = provider
    report["model"] = model
    report.update(_index_fields(index))
    report["skills"] = len(skills)
    report["current"] = current
    report["drifted"] = drifted
    report["stale"] = stale
    report["missing"] = missing
    report["orphaned"] = orphaned
    if verification is not None and state not in (NONE, UNREADABLE, INCOMPATIBLE):
        report["verified"] = {"ran": verification.ran, "checked": verification.checked,
                              "remembered": verification.remembered,
                              "mismatched": list(verification.mismatched), "problem": verification.problem}
    if refused:
        report["refused"] = [r.to_json() for r in refused]
    if known and (known["configured"] or known["orphaned"]):  # only where known requests are in play
        report["examples"] = known
    hint = {NONE: HINT_BUILD, UNREADABLE: HINT_REBUILD, INCOMPATIBLE: HINT_REBUILD, STALE: HINT_UPDATE}.get(state)
    if hint:
        report["hint"] = hint
    return report


def _unusable(loaded, **settings) -> tuple[str, str]:
    """``(state, reason)`` of an index that cannot serve: none, unreadable, of an older format (stale, every
    skill missing) or incompatible with the configured ``settings``; ``("", "")`` when it can."""
    index = loaded.index
    if index is None:
        # an index of an older format is only out of date: stale (every skill missing), not unreadable
        state = (STALE if getattr(loaded, "outdated", False) else UNREADABLE) if loaded.found else NONE
        return state, loaded.reason if loaded.found else ""
    reason = index.unusable_reason(**settings)
    return INCOMPATIBLE if reason else "", reason


def _index_fields(index) -> dict:
    """What the report says of the index itself: its provider, model, dims, dtype, rows and bytes."""
    if index is None:
        return {"rows": 0, "bytes": 0}
    info = index.info()
    return {"index_provider": info["provider"], "index_model": info["model"], "dims": info["dims"],
            "dtype": info["dtype"], "rows": len(index), "bytes": index.info()["bytes"]}


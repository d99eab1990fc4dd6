"""AR9D1: the committed search index is missing, unusable, out of date or stale.

Only an index kept in a committed location is checked (``[search] index_dir`` outside
``.skillsift/local``), and only when the config is valid.  Messages (reference §8, with
skillsift's command names):

* ``search: index_dir "X" is a committed location but holds no index; run 'skillsift index' and commit it``
* ``search: the committed index in "X" cannot be used (<load error>); rebuild it with 'skillsift index'``
* ``search: the committed index is out of date: <reason>; rebuild it with 'skillsift index'`` -- the
  reason compares the model only with the repository's own ``[embeddings] model`` (the
  provider is not compared: people may build with different providers of one model)
* ``search: the committed index no longer matches the skills (changed: a, b, c, d, e and N more);
  rebuild it with 'skillsift index'`` -- skills present in both whose embedded text changed

skillsift's default ``index_dir`` (``.skillsift/index``) is a committed location, so a
missing index is reported only when the configured mode needs one (hybrid or vector): a
lexical-only repository has no index to keep.

Skills not in the index and rows of skills that are gone are reported only when asked
(``coverage=True``, what the ``skillsift-index`` hook does): validate follows the reference
and leaves them to ``skillsift status``.
"""

from __future__ import annotations

from ..diagnostics import WARNING, Diagnostic

CODE = "AR9D1"
REBUILD = "rebuild it with 'skillsift index'"
MAX_NAMES = 5


def _names(names) -> str:
    names = sorted(names)
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")


def check(*, index_dir: str, load, skills, repo_model: str = "", fields=(), index_body: bool = False,
          body_chars: int = 0, coverage: bool = False, needed: bool = True) -> list[Diagnostic]:
    """AR9D1 findings for a committed index.

    ``load`` is the :class:`~skillsift.index.store.LoadResult` of ``index_dir`` (its
    ``reason`` already relative to the root); ``skills`` are the repository's skills;
    ``needed``: the configured mode uses vectors (else an absent index is fine).
    """
    manifest_file = f"{index_dir.rstrip('/')}/manifest.json"

    def finding(message: str, hint: str = "") -> list[Diagnostic]:
        return [Diagnostic(file=manifest_file, code=CODE, severity=WARNING, message=message,
                           hint=hint or "run 'skillsift index', then commit the index directory")]

    if load.index is None and not load.found:
        if not needed:
            return []
        return finding(f'search: index_dir "{index_dir}" is a committed location but holds no index; '
                       "run 'skillsift index' and commit it")
    if load.index is None:
        return finding(f'search: the committed index in "{index_dir}" cannot be used ({load.reason}); {REBUILD}')
    from ..index.manifest import unusable_reason

    reason = unusable_reason(load.index.manifest, model=repo_model, fields=fields, index_body=index_body,
                             body_chars=body_chars)
    if reason:
        return finding(f"search: the committed index is out of date: {reason}; {REBUILD}")
    from ..index.classify import classify_skills

    state = classify_skills(load.index.items, skills, fields=fields, index_body=index_body, body_chars=body_chars)
    out = []
    if state.stale:
        out += finding(f"search: the committed index no longer matches the skills (changed: {_names(state.stale)}); "
                       f"{REBUILD}")
    if coverage and (state.missing or state.orphaned):
        parts = []
        if state.missing:
            parts.append(f"not indexed: {_names(state.missing)}")
        if state.orphaned:
            parts.append(f"no longer present: {_names(state.orphaned)}")
        out += finding(f"search: the committed index does not cover the skills ({'; '.join(parts)}); {REBUILD}")
    return out


def repo_model(config) -> str:
    """The model the repository's own config names (``[embeddings] model``), "" when none."""
    return config.repository_model if config is not None else ""


def check_workspace(ws, *, coverage: bool = False) -> list[Diagnostic]:
    config = ws.config
    if config is None or not ws.index_committed:
        return []
    if not ws.index_exists() and not coverage and config.search.mode == "lexical":
        return []  # nothing to check, and numpy need not load
    load = ws.index_load
    if load.reason:
        from dataclasses import replace

        root = ws.root.rstrip("/") + "/"
        load = replace(load, reason=load.reason.replace(root, ""))
    return check(index_dir=ws.index_dir, load=load, skills=list(ws.catalog.skills), repo_model=repo_model(config),
                 fields=config.search.fields, index_body=config.search.index_body,
                 body_chars=config.search.body_chars, coverage=coverage,
                 needed=coverage or config.search.mode != "lexical")


def run(ws) -> list[Diagnostic]:
    return check_workspace(ws)

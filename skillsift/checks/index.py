"""AR9D1: the committed search index is missing, unusable, out of date or stale.

Only an index kept in a committed location is checked (``[search] index_dir`` outside
``.skillsift/local``), and only when the config is valid.  Messages (docs/checks-repository.md,
"AR9D1 — the committed index"):

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

A served skill the index has no row for is reported too (``not indexed: a``): a committed
index that silently lacks a skill would rank it lexically only while every check is green.
Skills that legitimately have no row are not counted: an empty embedded text, and, with a
provider whose text leaves the process, a text that holds a secret (withheld, AR9D3).
Rows of skills that are gone are harmless to a search and reported only when asked
(``coverage=True``, what the ``skillsift-index`` hook does, which then drops them).
"""

from __future__ import annotations

from ..catalog.embedtext import embedded_text, resolve_body_chars, resolve_fields, text_digest
from ..config.checks import check as declare
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic, SkillsiftError
from ..index.classify import classify_skills
from ..index.configured import ConfiguredProvider, IndexDirRefused, checked_index_dir
from ..index.manifest import unusable_reason
from ..validators.workspace import Workspace

STALE = declare("AR9D1", "search-index-stale", WARNING, scope="repo", triggers=("skill", "config", "index"),
                files="SKILL.md, the config, <index_dir>/manifest.json and vectors.bin",
                summary="a committed index exists, loads, was built for the configured model and text, and still "
                        "matches the skills' embedded text; a damaged index or a refused row (row digest, NaN, zero, "
                        "length) is an error")
CODE = STALE.code
REBUILD = "rebuild it with 'skillsift index'"
MAX_NAMES = 5
DAMAGED_HINT = ("the files were changed after 'skillsift index' wrote them: review who changed the index "
                "directory, then run 'skillsift index' and commit it")


PROVIDER_KINDS = ("local", "openai", "command")


OTHER_MODEL_HINT = ("run 'skillsift index --rebuild' with the configured provider, then commit the index directory; "
                    "review who changed manifest.json")


def other_provider(manifest, configured) -> str:
    """Why the index was built by another provider kind or model than ``configured`` names ("" when not).

    The provider's kind is compared (``local``, ``openai``, ``command``), not its host or program:
    two people may reach one model through different endpoints.  Then the model, when the
    configuration names one, and for the local model its width (384).  An index whose provider is
    of no kind this version knows (one no configuration can name) is left to the other checks, unless
    it is a known kind written otherwise (``LOCAL@...``): that one is another provider.
    """

    def kind(fingerprint: str) -> str:
        return fingerprint.replace(":", "@", 1).split("@", 1)[0]

    if kind(manifest.provider) not in PROVIDER_KINDS:
        if kind(manifest.provider).strip().lower() in PROVIDER_KINDS:  # ``LOCAL@...``: a known kind in disguise
            return (f"it was built by the provider {_quoted(manifest.provider)}, which no configuration names "
                    f"(the configuration names {_quoted(configured.fingerprint)})")
        return ""
    if kind(manifest.provider) != kind(configured.fingerprint):
        return (f"it was built by the provider {_quoted(manifest.provider)}, the configuration names "
                f"{_quoted(configured.fingerprint)}")
    dims = configured.dims
    if not dims and kind(configured.fingerprint) == "local":
        from ..embed.local import DIMS as dims
    return unusable_reason(manifest, model=configured.model, dims=dims)


def _quoted(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def names_shown(names) -> str:
    """``a, b, c, d, e and 2 more``: at most MAX_NAMES names, sorted."""
    return _names(names)


def _names(names) -> str:
    names = sorted(names)
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")


def _finding(manifest_file: str, message: str, hint: str = "") -> list[Diagnostic]:
    return [STALE.report(file=manifest_file, message=message,
                         hint=hint or "run 'skillsift index', then commit the index directory")]


def _not_loaded(load, index_dir: str, manifest_file: str, needed: bool) -> list[Diagnostic]:
    """The findings when no index loaded: none there (a finding when one is needed), damaged, or unusable."""
    if not load.found:
        if not needed:
            return []
        return _finding(manifest_file, f'search: index_dir "{index_dir}" is a committed location but holds no '
                                       "index; run 'skillsift index' and commit it")
    if getattr(load, "damaged", False):
        return [STALE.report(file=manifest_file, level=ERROR,
                             message=f'search: the committed index in "{index_dir}" is damaged and cannot be used '
                                     f"({load.reason}); {REBUILD}", hint=DAMAGED_HINT)]
    return _finding(manifest_file, f'search: the committed index in "{index_dir}" cannot be used ({load.reason}); '
                                   f"{REBUILD}")


def _verification_findings(verification, index_dir: str, *, coverage: bool, needed: bool) -> list[Diagnostic]:
    """Rows that are not the embedding of their skill's text (an error), or vectors that could not be verified."""
    if verification is not None and verification.mismatched:
        return [STALE.report(
            file=f"{index_dir.rstrip('/')}/vectors.bin", level=ERROR,
            message=("search: the committed index holds vectors that are not the embedding of their skill's text "
                     f"(re-embedded and compared: {_names(verification.mismatched)}); {REBUILD}"),
            hint="run 'skillsift index' (it embeds those skills again), then commit the index directory; "
                 "review who changed vectors.bin")]
    if verification is not None and not verification.ran and not coverage and needed:
        return [STALE.report(
            file=f"{index_dir.rstrip('/')}/vectors.bin", level=NOTE,
            message=f"search: the committed vectors were not verified ({verification.problem})",
            hint="install the local model (pip install 'skillsift[embed]') so validate can embed the skills "
                 "again and compare")]
    return []


def _coverage_findings(state, load, manifest_file: str, *, exempt, coverage: bool) -> list[Diagnostic]:
    """Skills and known requests the index is stale for, lacks, or holds though they are gone."""
    out = []
    if state.stale:
        out += _finding(manifest_file, f"search: the committed index no longer matches the skills (changed: "
                                       f"{_names(state.stale)}); {REBUILD}")
    refused = {r.id for r in getattr(load, "refused", ()) if r.kind != "example"}
    missing = [name for name in state.missing if name not in set(exempt) | refused]
    orphaned = list(state.orphaned) if coverage else []
    if missing or orphaned:
        parts = []
        if missing:
            parts.append(f"not indexed: {_names(missing)}")
        if orphaned:
            parts.append(f"no longer present: {_names(orphaned)}")
        out += _finding(manifest_file, f"search: the committed index does not cover the skills "
                                       f"({'; '.join(parts)}); {REBUILD}")
    gone = state.examples_orphaned if coverage else 0
    examples_missing = state.examples_missing - sum(1 for r in getattr(load, "refused", ()) if r.kind == "example")
    if examples_missing > 0 or gone:
        parts = [f"{examples_missing} not indexed"] if examples_missing > 0 else []
        parts += [f"{gone} no longer known"] if gone else []
        out += _finding(manifest_file, f"search: the committed index does not hold the known requests "
                                       f"({'; '.join(parts)}); {REBUILD}")
    return out


def check(*, index_dir: str, load, skills, repo_model: str = "", fields=(), index_body: bool = False,
          body_chars: int = 0, coverage: bool = False, needed: bool = True, exempt=(),
          verification=None, examples=(), configured=None) -> list[Diagnostic]:
    """AR9D1 findings for a committed index.

    ``load`` is the :class:`~skillsift.index.store.LoadResult` of ``index_dir`` (its
    ``reason`` already relative to the root); ``skills`` are the repository's skills;
    ``needed``: the configured mode uses vectors (else an absent index is fine);
    ``exempt``: names of skills that are right to have no row (empty or withheld text);
    ``verification``: the :class:`~skillsift.index.verify.Verification` of the current rows
    (rows that are not the embedding of their skill's text are an error), or None.
    ``examples``: the known requests, ``(skill, text digest)`` pairs, each needing a row.
    ``configured``: the provider the configuration names (fingerprint and model), compared with
    the index's (:func:`other_provider`), or None.  A damaged index (``load.damaged``) and rows
    the loader refused (``load.refused``) are errors; an index that is only out of date is a
    warning.
    """
    manifest_file = f"{index_dir.rstrip('/')}/manifest.json"
    if load.index is None:
        return _not_loaded(load, index_dir, manifest_file, needed)
    from ..index.store import refused_phrase

    out = []
    if getattr(load, "refused", ()):
        out.append(STALE.report(
            file=f"{index_dir.rstrip('/')}/vectors.bin", level=ERROR,
            message=(f"search: in the committed index, {refused_phrase(len(load.refused))} not used "
                     f"({load.refused_summary()}); {REBUILD}"),
            hint=DAMAGED_HINT))
    reason = other_provider(load.index.manifest, configured) if configured is not None else ""
    if reason.startswith("the dimensions differ"):  # no build by the named model gives rows of this width
        return out + [STALE.report(file=manifest_file, level=ERROR,
                                   message=f"search: the committed index is damaged: {reason}; {REBUILD}",
                                   hint=DAMAGED_HINT)]
    # another provider or model than the configuration names: its rows are no build of the configured model,
    # so nothing vouches for them (docs/vector-index.md, "Verified rows"): an error, never "out of date"
    reason = reason or unusable_reason(load.index.manifest, model=repo_model)
    if reason:
        return out + [STALE.report(file=manifest_file, level=ERROR,
                                   message=f"search: the committed index was not built by the configured provider "
                                           f"and model: {reason}; {REBUILD}", hint=OTHER_MODEL_HINT)]
    reason = unusable_reason(load.index.manifest, fields=fields, index_body=index_body, body_chars=body_chars)
    if reason:
        return out + _finding(manifest_file, f"search: the committed index is out of date: {reason}; {REBUILD}")

    state = classify_skills(load.index.items, skills, fields=fields, index_body=index_body, body_chars=body_chars,
                            examples=examples)
    out += _verification_findings(verification, index_dir, coverage=coverage, needed=needed)
    return out + _coverage_findings(state, load, manifest_file, exempt=exempt, coverage=coverage)


def repo_model(config) -> str:
    """The model the repository's own config names (``[embeddings] model``), "" when none."""
    return config.repository_model if config is not None else ""


def check_workspace(ws, *, coverage: bool = False) -> list[Diagnostic]:
    config = ws.config
    if config is None or not ws.index_committed:
        return []

    try:
        checked_index_dir(config)
    except IndexDirRefused as exc:  # the index would be read from, and written to, outside the repository
        root = ws.root.rstrip("/") + "/"
        return [STALE.report(file=ws.index_dir,
                             message="search: " + exc.message.replace(root, ""), hint=exc.hint)]
    if not ws.index_exists() and not coverage and config.search.mode == "lexical":
        return []  # nothing to check, and numpy need not load
    load = ws.index_load
    if load.reason:
        from dataclasses import replace

        root = ws.root.rstrip("/") + "/"
        load = replace(load, reason=load.reason.replace(root, ""))
    skills = list(ws.catalog.skills)
    return check(index_dir=ws.index_dir, load=load, skills=skills, repo_model=repo_model(config),
                 fields=config.search.fields, index_body=config.search.index_body,
                 body_chars=config.search.body_chars, coverage=coverage,
                 needed=coverage or config.search.mode != "lexical",
                 exempt=_without_row(config, skills) if load.index is not None else (),
                 verification=verify_workspace(ws, load.index, skills),
                 examples=_known(config, ws.catalog) if load.index is not None else (),
                 configured=_configured(config))


def _configured(config):
    return ConfiguredProvider.from_config(config, repository_command=True)


def verify_workspace(ws, index, skills):
    """The :class:`~skillsift.index.verify.Verification` of ``index`` for the workspace, or None when
    there is nothing to verify (no usable index, or one built by a provider that is not recomputed).

    ``ws.verify_every_row`` (``skillsift ci``) re-embeds every current row, ignoring rows
    remembered as verified on this machine; the known requests' rows are checked with the skills'.
    """
    from ..index.verify import local_verifier, verifiable, verify_rows

    config = ws.config
    if index is None or not verifiable(index):
        return None
    s = config.search
    if index.unusable_reason(model=repo_model(config), fields=s.fields, index_body=s.index_body,
                             body_chars=s.body_chars):
        return None
    return verify_rows(index, skills, lambda: local_verifier(index), fields=s.fields, index_body=s.index_body,
                       body_chars=s.body_chars, root=ws.root, use_cache=not getattr(ws, "verify_every_row", False),
                       requests=_known_texts(config, ws.catalog))


def _known_texts(config, catalog) -> list[tuple[str, str]]:
    """The known requests a build gives a row, as (skill, text); none when the examples do not load."""
    from ..evaluate.examples import indexed_example_pairs

    try:
        return indexed_example_pairs(config, catalog, ConfiguredProvider.from_config(config, repository_command=True))
    except SkillsiftError:
        return []


def _known(config, catalog) -> list[tuple[str, str]]:
    """The known requests as (skill, text digest), without those a build withholds for a secret
    (they rightly have no row); an examples file that does not load is the cases check's finding,
    so it counts as none here."""
    from ..evaluate.examples import indexed_example_pairs

    try:
        pairs = indexed_example_pairs(config, catalog, ConfiguredProvider.from_config(config, repository_command=True))
    except SkillsiftError:
        return []
    return sorted({(name, text_digest(text)) for name, text in pairs})


def _without_row(config, skills) -> set[str]:
    """Served skills a build leaves without a row: empty embedded text, or withheld (docs/vector-index.md)."""

    s = config.search
    fields, body_chars = resolve_fields(s.fields), resolve_body_chars(s.body_chars)
    name = (config.embeddings.provider or "local").strip().lower()
    scan = None
    if name != "local":  # openai and command send the text out of the process: secrets are withheld
        from ..secrets.scan import detect_secret

        patterns = tuple(config.secret_patterns)

        def scan(text):
            return detect_secret(text, patterns)

    out = set()
    for skill in skills:
        text = embedded_text(skill, fields, s.index_body, body_chars)
        if not text or (scan is not None and scan(text)):
            out.add(skill.name)
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return check_workspace(ws)

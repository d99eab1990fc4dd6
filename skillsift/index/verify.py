"""Verifying a committed index: are its rows the embeddings of the skills' texts?

``vectors.bin`` is binary: a pull request can replace one row with the embedding of some
other text and recompute ``vectors_digest``, and no reviewer sees it in the diff.  With a
deterministic provider (the ``local`` model: docs/index-format.md promises identical
bytes) each current row is embedded again from its skill's text and compared
(docs/index-format.md, "Verifying the committed vectors"):

* a row matches when no component differs by more than :data:`TOLERANCE` from the new
  embedding (float16 storage rounds a component of at most 1 by at most 2**-12, about
  2.4e-4; repeated embeddings measured no difference at all);
* only rows of *current* skills are checked (a stale row is reported as stale; an
  orphaned row is never ranked);
* a pair (embedded text, stored row) that matched once is remembered in the user's cache
  (``verified/<root hash>.json``, only digests), so a later run re-embeds only rows it has
  not seen; ``use_cache=False`` (``skillsift ci``) checks every row.

Remote and ``command`` providers are not verified (their output is not known to be
deterministic, and verifying would send every text again).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..cache.base import JsonCache as _JsonCache
from ..catalog.embedtext import embedded_text, text_digest
from ..embed.base import EmbedError
from ..embed.local import MODEL_NAME, MODEL_SHA256

TOLERANCE = 2e-3
VERIFIED_PROVIDER_PREFIX = "local@"


class VerifiedRows(_JsonCache):
    """Digests of (model, embedded text, stored row) pairs this machine has verified."""

    folder = "verified"
    parsers = ("index/verify.py", "embed/local.py", "cache/base.py", "_version.py")

    def __init__(self, root, *, env=None):
        super().__init__(root, env=env)
        self.memo: set[str] = set()  # matched in this process (a server, or the caches off)

    @staticmethod
    def key(model_id: str, text_digest: str, row_bytes: bytes) -> str:
        h = hashlib.sha256()
        for part in (model_id.encode("utf-8"), text_digest.encode("ascii", "replace"), row_bytes):
            h.update(len(part).to_bytes(8, "big"))
            h.update(part)
        return h.hexdigest()

    def seen(self, key: str) -> bool:
        if self.path is None or key not in self.entries:
            return False
        self.hits += 1
        self.fresh[key] = 1
        return True

    def add(self, key: str) -> None:
        if self.path is not None:
            self.misses += 1
            self.fresh[key] = 1


@dataclass(frozen=True)
class Verification:
    """What a verification found: ``mismatched`` skill names (sorted), rows ``checked`` (embedded
    now), ``remembered`` (matched on an earlier run), or ``problem`` when it could not run."""

    mismatched: tuple[str, ...] = ()
    checked: int = 0
    remembered: int = 0
    problem: str = ""

    @property
    def ran(self) -> bool:
        return not self.problem


def verifiable(index) -> bool:
    """True when ``index`` was built by a provider whose vectors can be recomputed here."""
    return index is not None and index.manifest.provider.startswith(VERIFIED_PROVIDER_PREFIX)


def current_rows(index, skills, *, fields=(), index_body: bool = False, body_chars: int = 0):
    """``(name, row, text, text digest)`` of every served skill whose row holds its present text."""

    out = []
    for skill in skills:
        row = index.row(skill.domain, skill.name)
        if row < 0:
            continue
        text = embedded_text(skill, fields, index_body, body_chars)
        digest = text_digest(text)
        if text and index.items[row].text_digest == digest:
            out.append((skill.name, row, text, digest))
    return out


def request_rows(index, requests):
    """``(label, row, text, text digest)`` of every known request ``(skill name, text)`` that has its row."""

    by_key = {(item.id, item.text_digest): row for row, item in index.example_items()}
    out = []
    for name, text in requests:
        digest = text_digest(text)
        row = by_key.get((name, digest), -1)
        if text.strip() and row >= 0:
            shown = text if len(text) <= 40 else text[:39] + "…"
            out.append((f'{name} (known request "{shown}")', row, text, digest))
    return out


def verify_rows(index, skills, provider, *, fields=(), index_body: bool = False, body_chars: int = 0,
                root: str | None = None, use_cache: bool = True, requests=()) -> Verification:
    """Embed the current rows of ``index`` again with ``provider`` and compare them (module docstring).

    ``provider`` may be a function returning ``(provider or None, why not)``, called only when
    some row is not remembered as verified (finding the model costs a hash of its file).
    ``requests``: the known requests ``(skill name, text)``; their rows are checked the same way.
    """
    import numpy as np

    rows = current_rows(index, skills, fields=fields, index_body=index_body, body_chars=body_chars)
    rows += request_rows(index, requests)
    if not rows:
        return Verification()
    cache = VerifiedRows(root) if use_cache and root is not None else None
    model_id = _model_id(provider)
    keys = [VerifiedRows.key(model_id, digest, index.matrix[row].tobytes()) for _n, row, _t, digest in rows]
    todo = [i for i, key in enumerate(keys) if cache is None or not cache.seen(key)]
    remembered = len(rows) - len(todo)
    if not todo:
        if cache is not None:
            cache.save()
        return Verification(remembered=remembered)
    if callable(provider) and not hasattr(provider, "embed"):
        provider, why = provider()
        if provider is None:
            return Verification(remembered=remembered, problem=why)
    try:
        vectors = np.asarray(provider.embed([rows[i][2] for i in todo]), dtype=np.float32)
    except (EmbedError, OSError, TimeoutError) as exc:
        return Verification(problem=getattr(exc, "message", None) or str(exc) or type(exc).__name__)
    stored = index.matrix[[rows[i][1] for i in todo]]
    if vectors.shape != stored.shape:
        return Verification(problem=f"the provider returned vectors of shape {vectors.shape}, the index holds "
                                    f"{stored.shape}")
    deviation = np.abs(vectors - stored).max(axis=1)
    bad = []
    for i, dev in zip(todo, deviation.tolist(), strict=True):
        if dev > TOLERANCE:
            bad.append(rows[i][0])
        elif cache is not None:
            cache.add(keys[i])
    if cache is not None:
        cache.save()
    return Verification(mismatched=tuple(sorted(bad)), checked=len(todo), remembered=remembered)


def _model_id(provider) -> str:
    """The provider and the exact model file behind it (a new model file verifies again)."""

    return f"{getattr(provider, 'fingerprint', '') or VERIFIED_PROVIDER_PREFIX + MODEL_NAME}:{MODEL_SHA256}"


def local_verifier(index):
    """A :class:`~skillsift.embed.local.LocalProvider` for verifying ``index``, or ``(None, why)``."""
    if not verifiable(index):
        return None, "the index was built by a provider whose vectors are not recomputed here"
    from ..embed.local import LocalProvider, local_model_available

    available, why = local_model_available()
    if not available:
        return None, why
    return LocalProvider(), ""

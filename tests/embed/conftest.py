from __future__ import annotations

import pytest

EXTRA_REASON = "skillsift[embed] is not installed"


@pytest.fixture(scope="module")
def provider():
    """The bundled local model, loaded (skips without skillsift[embed])."""
    from skillsift.embed import local

    pytest.importorskip("onnxruntime", reason=EXTRA_REASON)
    pytest.importorskip("tokenizers", reason=EXTRA_REASON)
    pytest.importorskip(local.MODEL_PACKAGE, reason=EXTRA_REASON)
    p = local.LocalProvider()
    p.load()
    return p

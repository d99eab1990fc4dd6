"""Embed texts in memory for one run (nothing is written): the one path of the ranker.

:func:`~skillsift.ranker.setup.refresh_stale` (skills whose stored vector is stale) and
:func:`~skillsift.ranker.setup.view_index` (the listing view's texts) both call
:func:`embed_texts`.  Texts go out shortest first when the provider pads its batches (as
``skillsift index`` sends them), in batches of the configured size lowered to the provider's
``max_batch``; the rows come back in the order of ``texts`` as float32, unnormalised (the index
built from them normalises and quantises them once).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..embed.base import EmbedError
from ..embed.order import length_order
from ..index.build import effective_batch_size


def embed_texts(provider, texts: Sequence[str], *, batch_size: int | None = None, dims: int | None = None):
    """``(rows or None, problem)``: one float32 row per text of ``texts``, or why there are none.

    ``dims`` (when known) is the length every row must have.  A provider error, a wrong count,
    a ragged, NaN or infinite row gives ``None`` and a sentence; nothing is raised.
    """
    import numpy as np

    order = length_order(provider, list(texts))
    size = effective_batch_size(batch_size, getattr(provider, "max_batch", None))
    rows: list = [None] * len(texts)
    try:
        for start in range(0, len(order), size):
            part = order[start:start + size]
            got = provider.embed([texts[i] for i in part])
            with np.errstate(all="ignore"):
                block = np.asarray(got, dtype=np.float32)
            want = dims if dims is not None else (block.shape[1] if block.ndim == 2 else -1)
            if block.shape != (len(part), want) or want <= 0 or not np.isfinite(block).all():
                return None, "the provider returned unusable vectors"
            dims = want
            for i, row in zip(part, block, strict=True):
                rows[i] = row
    except EmbedError as exc:
        return None, f"embedding failed: {getattr(exc, 'message', None) or exc}"
    except (TypeError, ValueError):
        return None, "the provider returned unusable vectors"
    return rows, ""

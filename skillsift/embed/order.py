"""The order in which texts are sent to a provider.

A provider that runs the model in this process pads each batch to its longest text, so
the texts of one call should be of similar length.  Such a provider exposes
``count_tokens(texts)``; :func:`length_order` then sorts the texts shortest first (ties
keep input order).  Other providers get the input order unchanged.  The order never
changes a vector: callers put every vector back at its text's position (docs/embeddings.md).
"""

from __future__ import annotations

from .base import EmbedError


def length_order(provider, texts) -> list[int]:
    """Positions of ``texts`` in the order to send them: by token count when the provider pads batches."""
    positions = list(range(len(texts)))
    count = getattr(provider, "count_tokens", None)
    if not callable(count) or len(texts) < 2:
        return positions
    try:
        lengths = list(count(list(texts)))
    except EmbedError:
        return positions  # the embed call that follows reports the problem
    if len(lengths) != len(texts):
        return positions
    return sorted(positions, key=lambda i: (lengths[i], i))

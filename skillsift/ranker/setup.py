"""Attach the configured vector index and embedding provider to a ranker (I/O edge)."""

from __future__ import annotations


def attach(config, *, provider=None):
    """Return ``(index or None, problem, provider or EmbedError)`` for ``config``.

    The index is attached only when it loads and was built for this provider, model and
    embedded fields; otherwise ``problem`` says why (the search then degrades with
    ``no_index``).  A provider that cannot be made is returned as its error so the
    search degrades with that error's reason instead of failing.
    """
    from ..config import index_path
    from ..embed.base import EmbedError
    from ..index.store import load_index

    if provider is None:
        try:
            from ..embed.factory import make_provider

            provider = make_provider(config, root=config.root)
        except EmbedError as exc:
            provider = exc
    loaded = load_index(index_path(config))
    if loaded.index is None:
        problem = f"The search index cannot be used: {loaded.reason}; rebuild it with 'skillsift index --rebuild'"
        return None, problem if loaded.found else "", provider
    if isinstance(provider, BaseException):
        return loaded.index, "", provider
    s = config.search
    reason = loaded.index.unusable_reason(provider=provider.fingerprint, model=provider.model, fields=s.fields,
                                          index_body=s.index_body, body_chars=s.body_chars)
    if reason:
        return None, f"The search index is not usable: {reason}; run 'skillsift index --rebuild'", provider
    return loaded.index, "", provider

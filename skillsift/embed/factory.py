"""Choosing and building the embedding provider a run uses, from ``[embeddings]``.

``local`` runs in the process and is returned as is.  ``openai`` and ``command`` send
text out of skillsift, so they come wrapped in the :class:`~skillsift.embed.gate.GatedProvider`
(network switch, budget, response cache).  Which scope may set which key is the config
loader's business; this module trusts the resolved :class:`~skillsift.config.Config`.
"""

from __future__ import annotations

import os

from .base import ProviderUnavailable
from .command import CommandProvider
from .gate import Budget, GatedProvider, ResponseCache, price_per_mtok
from .openai import OpenAIProvider

PROVIDERS = ("local", "openai", "command")
EXTRA_HINT = "install the extra: pip install 'skillsift[embed]'"


def make_provider(config, *, root=None, env=None, transport=None):
    """The provider ``config.embeddings`` describes.

    ``root`` is the project root (the command's working directory and the parent of
    ``.skillsift/local``; default ``config.root``), ``env`` the environment the API key
    and ``pass_env`` values are read from (default ``os.environ``), ``transport`` the
    HTTP seam of the ``openai`` provider.  Raises :class:`ProviderUnavailable` when the
    provider cannot be built (unknown name, missing extra, no model, unset key variable,
    empty command); callers degrade to lexical search or stop the index build.
    """
    emb = config.embeddings
    root = os.fspath(config.root if root is None else root)
    env = os.environ if env is None else env
    name = (emb.provider or "local").strip().lower()
    if name == "local":
        return _local(emb)
    if name == "openai":
        inner = OpenAIProvider(
            emb.base_url,
            emb.model,
            _api_key(emb, env),
            timeout=emb.timeout_seconds,
            max_retries=emb.max_retries,
            transport=transport,
        )
        price = price_per_mtok(emb.model, emb.price_input_per_mtok)
    elif name == "command":
        inner = CommandProvider(emb.command, root=root, pass_env=emb.pass_env, model=emb.model, env=env)
        price = 0.0  # a command costs nothing
    else:
        raise ProviderUnavailable(
            f'unknown embeddings provider "{emb.provider}"',
            hint="set [embeddings] provider to local, openai or command",
        )
    budget = Budget(emb.max_calls, emb.max_tokens, emb.max_cost_usd, price)
    cache = ResponseCache.under(root) if emb.cache else None
    return GatedProvider(inner, allow_network=emb.allow_network, budget=budget, cache=cache,
                         secret_patterns=tuple(config.secret_patterns))


def _local(emb):
    try:
        from .local import LocalProvider
    except ImportError:
        raise ProviderUnavailable("the local embedding model is not installed", hint=EXTRA_HINT) from None
    return LocalProvider(model=emb.model) if emb.model else LocalProvider()


def _api_key(emb, env) -> str | None:
    if not emb.api_key_env:
        if not emb.base_url:
            raise ProviderUnavailable(
                "the openai provider has no API key",
                hint="name the environment variable holding it: [embeddings] api_key_env in the user config",
            )
        return None  # a local server (Ollama, vLLM, LM Studio) needs none
    key = env.get(emb.api_key_env, "")
    if not key.strip():
        raise ProviderUnavailable(
            f"the environment variable {emb.api_key_env} named by [embeddings] api_key_env is not set",
            hint=f"export {emb.api_key_env}=... before running skillsift",
        )
    return key.strip()

"""The provider fingerprint: which provider made a vector (``docs/index-format.md``).

An index records the fingerprint of the provider that built it, and a search or a
status check compares it with the configured provider's, so both sides must compute it
the same way; this module is that one rule, used by the providers themselves and by
commands that describe the configured provider without building it.

* ``local@<model>``
* ``openai@<host[:port]>`` (``openai@default`` without a base URL): never the path,
  the query string or credentials of the URL
* ``command:<argv[0]>``: never the arguments, which may hold secrets
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit


def endpoint_host(base_url: str) -> str:
    """The host[:port] of ``base_url`` (no credentials), or ``default`` when unset."""
    if not base_url:
        return "default"
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if not host:
        return "default"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host


def provider_fingerprint(name: str, *, model: str = "", base_url: str = "", argv: Sequence[str] = ()) -> str:
    """The fingerprint of provider ``name`` with these settings."""
    name = (name or "local").strip().lower()
    if name == "local":
        return f"local@{model}"
    if name == "openai":
        return f"openai@{endpoint_host(base_url)}"
    if name == "command":
        return f"command:{argv[0] if argv else ''}"
    return f"{name}@default"

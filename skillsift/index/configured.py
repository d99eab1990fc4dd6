"""What the config names for an index: the embedding provider's identity and the index directory.

:class:`ConfiguredProvider` describes the provider without building or calling it (``status``,
``index --dry-run``, the index checks); :func:`checked_index_dir` refuses an index directory that
would leave the repository (docs/vector-index.md, "Writing and the lock").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..config import index_path
from ..diagnostics import SkillsiftError
from ..embed.base import ProviderUnavailable
from ..embed.fingerprint import endpoint_host, provider_fingerprint


@dataclass(frozen=True)
class ConfiguredProvider:
    """The provider the config names, described without building or calling it.

    Used by ``status`` (which never runs a provider) and by ``index --dry-run`` when
    the provider cannot be built (the plan needs only its identity).
    """

    fingerprint: str
    model: str
    networked: bool = False
    external: bool = False
    host: str = ""
    max_batch: int | None = None
    dims: int | None = None

    def embed(self, texts):  # pragma: no cover - a plan-only stand-in is never called

        raise ProviderUnavailable("this provider is described only; it cannot embed")

    @classmethod
    def from_config(cls, config, *, repository_command: bool = False) -> ConfiguredProvider:
        """The identity ``config.embeddings`` describes.

        ``repository_command``: when no command is in effect, take the one the project
        config names (ignored for running without ``--allow-exec``, still its identity).
        """

        emb = config.embeddings
        name = (emb.provider or "local").strip().lower()
        if name == "openai":
            fingerprint = provider_fingerprint(name, base_url=emb.base_url)
            return cls(fingerprint, emb.model, networked=True, external=True, host=endpoint_host(emb.base_url))
        if name == "command":
            argv = tuple(emb.command)
            if not argv and repository_command:
                argv = config.repository_command
            return cls(provider_fingerprint(name, argv=argv), emb.model, external=True)
        if name == "local":
            from ..embed.local import DIMS, MODEL_NAME

            return cls(provider_fingerprint(name, model=MODEL_NAME), MODEL_NAME, dims=DIMS)
        return cls(provider_fingerprint(name), emb.model)


class IndexDirRefused(SkillsiftError):
    """The index directory is a symlink or leaves the repository: nothing is written there."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def checked_index_dir(config) -> Path:
    """``<root>/<index_dir>``, refused when writing there could leave the repository.

    Refused (:class:`IndexDirRefused`, exit 1): the index directory itself is a symbolic
    link (wherever it points), or it (through a symlinked parent) resolves outside the
    root, as the catalog refuses skills that leave the root.
    """

    root = os.path.abspath(os.fspath(config.root))
    target = os.path.abspath(os.fspath(index_path(config)))
    shown = os.path.relpath(target, root) if _inside(target, root) else target
    hint = ("make it a real directory inside the repository (git rm the link, then run 'skillsift index'), "
            "or point [search] index_dir at one")
    if os.path.islink(target):
        raise IndexDirRefused(f'the index directory "{shown}" is a symbolic link (to {os.readlink(target)}); '
                              "skillsift writes the index only into a real directory inside the repository",
                              hint=hint)
    real_root = os.path.realpath(root)
    real = os.path.realpath(target)
    if not _inside(real, real_root):
        raise IndexDirRefused(f'the index directory "{shown}" resolves to {real}, outside the repository '
                              f"{real_root}; skillsift writes the index only inside the repository", hint=hint)
    return Path(target)

"""The resolved config of a repository with its ``[[sources]]`` attached (docs/configuration.md, docs/sources.md).

Every command that reads a repository's config opens it here, through
:func:`skillsift.usecases.project.open_project` or, for the config alone (validation's
:class:`~skillsift.validators.workspace.Workspace`, the MCP server, ``ci``), directly.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import Config, load_config


def open_config(root, config_file: str | None = None, *, mode: str | None = None, allow_exec: bool = False,
                env: Mapping[str, str] | None = None, user_config_path=None, sources_as_locked: bool = False) -> Config:
    """The resolved config of ``root`` (docs/configuration.md); raises RootNotFound or SkillsiftError (AR9D0).

    ``mode`` is the ``--mode`` flag; ``env`` and ``user_config_path`` stand in for the process
    environment and the user config file (tests isolate them).  ``[[sources]]`` are attached: read
    from the cache as ``skillsift.lock`` pins them, never fetched (docs/sources.md); with
    ``sources_as_locked`` every source the lock pins, whatever ``[[sources]]`` says (a base commit).
    """
    config = load_config(root, config_file=config_file, mode=mode, allow_exec=allow_exec, env=env,
                         user_config_path=user_config_path)
    if not config.skill_sources and not sources_as_locked:
        return config
    # imported only here: a project without sources (and every hook) pays nothing for them
    from .attach import attach as attach_sources

    return attach_sources(config, env, as_locked=sources_as_locked)

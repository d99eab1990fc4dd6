"""Where the user config file lives (docs/configuration.md).

Apart from :mod:`.sources` so that module stays readable in one sitting; the name is a string on
the hooks' path (:func:`user_config_name`), a :class:`~pathlib.Path` for the other callers.
"""

from __future__ import annotations

import os

from ..files import path_str

TYPE_CHECKING = False  # (mypy reads it as true; pathlib is not imported on the hooks' path)
if TYPE_CHECKING:
    from pathlib import Path


def user_config_file(env=None) -> Path | None:
    """Where the user config lives: ``$XDG_CONFIG_HOME/skillsift/config.toml``, else ``~/.config/...``."""
    name = user_config_name(env)
    if name is None:
        return None
    from pathlib import Path

    return Path(name)


def user_config_name(env=None) -> str | None:
    """``str(user_config_file(env))`` without :mod:`pathlib` (the hooks' path), or None."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return path_str(os.path.join(xdg, "skillsift", "config.toml"))
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        return path_str(os.path.join(home, ".config", "skillsift", "config.toml"))
    return None

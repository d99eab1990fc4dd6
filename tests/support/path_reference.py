"""The pathlib versions of the path computations the hooks' path now makes with strings (the oracle of
tests/test_path_strings.py): each is the code skillsift ran before ``pathlib`` left that path."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath


def check_root(root) -> str | tuple[str, str]:
    """``skillsift.config.check_root``: the resolved root, or ("error", its message)."""
    path = Path(root)
    if not path.is_dir():
        state = "is a file" if path.exists() else "does not exist"
        return "error", f"--root {root} is not a directory; it {state}"
    return str(path.resolve())


def display(path, root) -> str:
    """``skillsift.config.sources._display``."""
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return str(Path(path))


def inside(path, root) -> bool:
    """``skillsift.config.sources._inside``."""
    try:
        Path(path).resolve().relative_to(root)
        return True
    except ValueError:
        return False


def user_display(path, root) -> str:
    """The display name ``user_source`` gave the user config at ``path``."""
    path = Path(path)
    return display(path, root) if path.is_absolute() and inside(path, root) else str(path)


def ai_rulez_base(path, root) -> str:
    """The ``index_base`` ``project_source`` gave the ai-rulez config at ``path``."""
    parent = Path(path).parent
    base = display(parent, root) if inside(parent, root) else ""
    return "" if base == "." else base


def cache_dir(env) -> str | None:
    """``str(skillsift.cache.base.cache_dir(env))``."""
    if env.get("SKILLSIFT_CACHE", "").strip().lower() in ("off", "0", "no", "false"):
        return None
    explicit = env.get("SKILLSIFT_CACHE_DIR", "")
    if explicit:
        return str(Path(explicit))
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return str(Path(xdg) / "skillsift")
    home = env.get("HOME", "") or os.path.expanduser("~")
    if not home or home == "~":
        return None
    return str(Path(home) / ".cache" / "skillsift")


def user_config_file(env) -> str | None:
    """``str(skillsift.config.user_config_file(env))``."""
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return str(Path(xdg) / "skillsift" / "config.toml")
    home = env.get("HOME") or env.get("USERPROFILE")
    if home:
        return str(Path(home) / ".config" / "skillsift" / "config.toml")
    return None


def match_parts(match: str) -> tuple[str, ...]:
    """The parts ``skillsift.catalog.discovery._expand`` took of a glob match."""
    return tuple(p for p in PurePosixPath(Path(match).as_posix()).parts if p not in ("", "."))


def relative_path(path, root) -> str:
    """``skillsift.catalog.load.relative_path``."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, os.path.abspath(root))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return Path(path).as_posix()
    return Path(rel).as_posix()

"""The CLI in process, the user's config file and the shipped JSON schemas, as the tests use them."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

from skillsift.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    """``skillsift ARGV...`` in process (arguments turned to text); returns (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def user_config_path() -> Path:
    """The user config file of the running test (the root conftest isolates ``XDG_CONFIG_HOME``)."""
    return Path(os.environ["XDG_CONFIG_HOME"]) / "skillsift" / "config.toml"


def set_user_config(text: str) -> Path:
    """Write ``text`` as the user's config file; returns its path."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load_schema(name: str) -> dict:
    """A JSON schema shipped in ``skillsift/schemas/``."""
    return json.loads(resources.files("skillsift.schemas").joinpath(name).read_text(encoding="utf-8"))

"""Dead code is checked in CI (docs/development.md, "Dead code").

``.ci/run`` runs vulture over the package with ``[tool.vulture]`` of pyproject.toml; the names
only a string reaches (the click commands of ``commands/group.py``, the renderers of
``render/registry.py``) stand in ``.ci/vulture_whitelist.py``, and this test keeps that list
fresh: a command or renderer added by string without its line fails here, not in CI's vulture.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from skillsift.commands.group import COMMANDS
from skillsift.config.sources import toml_module
from skillsift.render.registry import RENDERERS
from tests.conftest import ROOT

WHITELIST = ROOT / ".ci" / "vulture_whitelist.py"


def whitelisted() -> set[str]:
    return set(re.findall(r"^_\.(\w+)", WHITELIST.read_text(encoding="utf-8"), flags=re.MULTILINE))


def test_every_name_reached_by_a_string_is_whitelisted():
    names = whitelisted()
    commands = {function for _module, function in COMMANDS.values()}
    renderers = {r.target.partition(":")[2] for family in RENDERERS.values() for r in family.values()}
    assert commands <= names, sorted(commands - names)
    assert renderers <= names, sorted(renderers - names)


def test_the_configuration_names_the_package_and_the_whitelist():
    config = toml_module().loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["vulture"]
    assert config["paths"] == ["skillsift", ".ci/vulture_whitelist.py"]
    assert "vulture" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_vulture_finds_nothing():
    pytest.importorskip("vulture", reason="vulture comes with the test extra: pip install 'skillsift[test]'")
    proc = subprocess.run([sys.executable, "-m", "vulture"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr

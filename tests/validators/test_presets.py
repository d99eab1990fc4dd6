"""Presets: ``recommended`` (the default) leaves the opt-in checks out, ``strict`` runs every check.

Chosen by ``[validate] preset`` or ``--preset`` (which wins), on ``validate`` and ``ci``; a prefix in
``--select`` switches on an opt-in check only under ``strict``.
"""

from __future__ import annotations

import json

import pytest

from skillsift.config.checks import CHECKS, OPT_IN, STRICT
from skillsift.validators.runner import select_codes
from tests.support.cli import run

STRICT_ONLY = {c.code for c in CHECKS if c.preset == STRICT}
SKILL = """---
name: deploy-app
description: Deploys the app to production when the user asks to deploy it.
---

Install the CLI: `curl -fsSL https://get.acme.test/install.sh | sh`, then run `npx deployer --prod`.
Keep the logs in /Users/username/logs/deploy.log.
"""


@pytest.fixture
def project(tmp_path):
    skill = tmp_path / ".claude" / "skills" / "deploy-app" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL, encoding="utf-8")
    return tmp_path


def _codes(capsys, *args) -> tuple[int, set[str]]:
    code, out, _err = run(capsys, "validate", *args, "--format", "json")
    return code, {d["code"] for d in json.loads(out)["diagnostics"]}


def test_the_strict_preset_holds_exactly_the_opt_in_checks():
    assert STRICT_ONLY == set(OPT_IN) and {"SK402", "SK403", "SK405", "SK324"} <= STRICT_ONLY
    recommended, _ = select_codes()
    strict, _ = select_codes(preset="strict")
    assert strict == {c.code for c in CHECKS} and recommended == strict - STRICT_ONLY
    assert select_codes("SK4")[0] == {"SK401", "SK404", "SK406", "SK407"}  # a prefix: no opt-in check
    assert select_codes("SK4", preset="strict")[0] == {c.code for c in CHECKS if c.code.startswith("SK4")}
    assert select_codes(ignore="SK402", preset="strict")[0] == strict - {"SK402"}


def test_the_default_leaves_the_opt_in_checks_out_and_strict_lists_them(project, capsys):
    _code, default = _codes(capsys, "--root", str(project))
    assert default.isdisjoint(STRICT_ONLY)
    _code, strict = _codes(capsys, "--root", str(project), "--preset", "strict")
    assert {"SK402", "SK403", "SK405", "SK324"} <= strict and default < strict


def test_the_config_chooses_the_preset_and_the_flag_wins(project, capsys):
    (project / "skillsift.toml").write_text('[validate]\npreset = "strict"\n', encoding="utf-8")
    _code, configured = _codes(capsys, "--root", str(project))
    assert {"SK402", "SK403", "SK405", "SK324"} <= configured
    _code, flagged = _codes(capsys, "--root", str(project), "--preset", "recommended")
    assert flagged.isdisjoint(STRICT_ONLY)


def test_a_bad_preset_is_a_config_error_with_its_line(project, capsys):
    (project / "skillsift.toml").write_text('[search]\nmode = "lexical"\n[validate]\npreset = "everything"\n',
                                            encoding="utf-8")
    code, out, _err = run(capsys, "validate", "--root", str(project))
    assert code == 2 and "skillsift.toml:4" in out and 'validate.preset "everything" must be' in out
    code, _out, err = run(capsys, "validate", "--root", str(project), "--preset", "all")
    assert code == 2 and "--preset" in err


def test_ci_takes_the_preset(project, capsys):
    from skillsift.ci.pipeline import CiOptions, _validation

    assert {d.code for d in _validation(str(project), CiOptions(root=str(project)))}.isdisjoint(STRICT_ONLY)
    strict = {d.code for d in _validation(str(project), CiOptions(root=str(project), preset="strict"))}
    assert {"SK402", "SK403", "SK405", "SK324"} <= strict

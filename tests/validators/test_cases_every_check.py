"""Every registered check fires on a tree made for it and stays silent on a near miss.

``tests/validators/cases/<CODE>/fires/`` and ``.../near/`` are small repositories.  Each is copied
to a temporary folder and checked with that one code selected (opt-in codes included); ``fires``
must give at least one finding of the code, ``near`` none.  A case may hold ``case.json``, which is
not copied, for what a tree alone cannot say (docs/development.md, "The check contract"):

* ``user_config``: the text of the user config file (a remote provider for AR9D3);
* ``symlinks``: ``{"path": "target"}`` links made in the copy (SK020);
* ``chmod``: ``{"path": "755"}`` modes set in the copy (SK316);
* ``select``: codes run beside the case's own (SK015 judges the suppressions of the codes that ran);
* ``expect``: where every finding of the code is (``file:line[:column]``, ``""`` for the repository).

A registered code without both folders fails :func:`test_every_registered_code_has_both_cases`, as
a folder for a code nobody registers fails :func:`test_no_case_folder_names_an_unknown_code`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from skillsift.config.checks import CHECKS
from tests.support.validators_support import check

CASES = Path(__file__).resolve().parent / "cases"
META = "case.json"
KINDS = ("fires", "near")


def test_every_registered_code_has_both_cases():
    missing = [f"{c.code}/{kind}" for c in CHECKS for kind in KINDS if not (CASES / c.code / kind).is_dir()]
    assert missing == [], f"add tests/validators/cases/<CODE>/{{fires,near}}/ for: {', '.join(missing)}"


def test_no_case_folder_names_an_unknown_code():
    codes = {c.code for c in CHECKS}
    assert sorted(p.name for p in CASES.iterdir() if p.is_dir() and p.name not in codes) == []
    for folder in CASES.iterdir():
        if folder.is_dir():
            assert sorted(p.name for p in folder.iterdir()) == list(KINDS), folder.name


def _repository(case: Path, tmp_path: Path) -> tuple[Path, dict]:
    meta = json.loads((case / META).read_text(encoding="utf-8")) if (case / META).is_file() else {}
    root = tmp_path / "repo"
    shutil.copytree(case, root, symlinks=True, ignore=shutil.ignore_patterns(META))
    for rel, target in meta.get("symlinks", {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    for rel, mode in meta.get("chmod", {}).items():
        os.chmod(root / rel, int(mode, 8))
    return root, meta


@pytest.mark.parametrize("code", [c.code for c in CHECKS])
@pytest.mark.parametrize("kind", KINDS)
def test_the_check_fires_on_its_case_and_not_on_the_near_miss(code, kind, tmp_path):
    case = CASES / code / kind
    if not case.is_dir():
        pytest.fail(f"tests/validators/cases/{code}/{kind}/ is missing")
    root, meta = _repository(case, tmp_path)
    select = [code, *meta.get("select", ())]
    found = [d for d in check(root, select=select, user_config=meta.get("user_config")) if d.code == code]
    if kind == "near":
        assert found == [], [d.render() for d in found]
        return
    assert found, f"{code} did not fire on tests/validators/cases/{code}/fires/"
    if "expect" in meta:
        assert sorted(d.location() for d in found) == sorted(meta["expect"])

"""An index rewritten whole by skillsift's own writer (every digest valid) for another provider, model or width.

Varied from tests/index/test_doctored_index.py, where the manifest is edited by hand (its row digests then
fail): here the rows are sealed again for the new name, so only comparing with the configured provider tells.
Each must FAIL validate (text and JSON, AR9D1 error, exit 1) and the index hook, and search must not use it
and say why; a stale skill alone stays a warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.ci.test_action import git
from tests.index.test_doctored_index import REFUND, index_dir
from tests.support.cli import run


def resealed(provider: str, model: str, *, dims: int | None = None, dtype: str | None = None):
    def apply(root: Path) -> None:
        from skillsift.index.store import load_index, new_index, write_index

        index = load_index(index_dir(root)).index
        m = index.manifest
        matrix = np.array(index.matrix)[:, :dims] if dims else np.array(index.matrix)
        write_index(index_dir(root), new_index(provider=provider, model=model, items=index.items, vectors=matrix,
                                               fields=m.fields, dtype=dtype or m.dtype))
    return apply


VARIANTS = {
    "another local model": resealed("local@all-MiniLM-L12-v2", "all-MiniLM-L12-v2"),
    "a remote provider": resealed("openai@api.openai.com", "text-embedding-3-small"),
    "a command provider": resealed("command@0123abcd", "all-MiniLM-L6-v2"),
    "the local kind in capitals": resealed("LOCAL@all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
    "383 dims in float16": resealed("local@all-MiniLM-L6-v2", "all-MiniLM-L6-v2", dims=383, dtype="float16"),
}


@pytest.mark.parametrize("case", sorted(VARIANTS))
def test_a_resealed_index_of_another_provider_fails_validate_and_the_hook(acme, capsys, case):
    VARIANTS[case](acme)
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    assert code == 1, out + err
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D1"]
    assert any(d["severity"] == "error" for d in found), found
    code, out, err = run(capsys, "validate", "--root", acme)
    assert code == 1 and "AR9D1" in out
    code, out, err = run(capsys, "search", REFUND, "--root", acme, "--mode", "hybrid", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["ranking"] == "lexical" and doc["index"]["problem"]
    git(acme, "init", "-q")
    git(acme, "add", "-A")
    git(acme, "commit", "-q", "-m", "base")
    code, out, err = run(capsys, "hook", "index", "--root", acme)
    assert code == 1, out + err


def test_a_stale_skill_alone_stays_a_warning(acme, capsys):
    skill = acme / ".claude/skills/csv-cleanup/SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8").replace("Clean a messy CSV", "Tidy a messy CSV"),
                     encoding="utf-8")
    code, out, err = run(capsys, "validate", "--root", acme, "--format", "json")
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "AR9D1"]
    assert code == 0 and found and all(d["severity"] == "warning" for d in found), found

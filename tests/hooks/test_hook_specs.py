"""The hook registry (skillsift/hooks/specs.py) against the files that list the hooks.

``.pre-commit-hooks.yaml`` is written from the registry here and must equal the shipped
file byte for byte; docs/hooks.md's table, the snippets of docs/hooks.md, README.md and
``skillsift init``, and ``skillsift hook`` itself name the same hooks.
"""

from __future__ import annotations

import re

import yaml

from skillsift.commands.hook_cmd import HOOK_MODULES
from skillsift.hooks._common import OWNED_CODES
from skillsift.hooks.specs import HOOK_NAMES, HOOK_SPECS, hooks_yaml
from skillsift.usecases.starter.snippets import pre_commit_snippet
from tests.conftest import ROOT
from tests.support.cli import run


def test_the_hooks_file_is_written_from_the_registry():
    shipped = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert hooks_yaml() == shipped, "run: python -m tests.generated --write"
    parsed = yaml.safe_load(shipped)  # and what pre-commit reads is the registry's values
    assert [h["id"] for h in parsed] == [s.id for s in HOOK_SPECS]
    for hook, spec in zip(parsed, HOOK_SPECS, strict=True):
        assert hook["entry"] == spec.entry and hook["description"] == spec.description
        assert hook.get("files", "") == spec.files and tuple(hook.get("types", ())) == spec.types
        assert tuple(hook.get("types_or", ())) == spec.types_or
        assert hook["pass_filenames"] is spec.pass_filenames and hook["require_serial"] is spec.require_serial
        assert hook.get("always_run", False) is spec.always_run


def test_the_docs_table_lists_the_registry_hooks_in_order():
    text = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    table = text.split("## The hooks", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [re.match(r"\| `([^`]+)`", row).group(1) for row in rows] == [s.id for s in HOOK_SPECS]
    for row, spec in zip(rows, HOOK_SPECS, strict=True):  # the codes a hook owns are the ones the table says it checks
        checks = row.split("|")[2]
        assert all(code in checks for code in spec.owns), row
    assert all(f"skillsift hook {spec.name}" in text or spec.id in text for spec in HOOK_SPECS)


def test_the_snippets_name_only_registry_hooks():
    ids = {spec.id for spec in HOOK_SPECS}
    for name, text in (("README.md", (ROOT / "README.md").read_text(encoding="utf-8")),
                       ("docs/hooks.md", (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")),
                       ("skillsift init", pre_commit_snippet(index=True))):
        named = set(re.findall(r"id: (skillsift-[a-z-]+)", text))
        assert named and named <= ids, (name, named - ids)


def test_the_door_and_the_sibling_codes_come_from_the_registry(capsys):
    assert tuple(HOOK_MODULES) == HOOK_NAMES
    assert OWNED_CODES == {"skillsift-cases": {"AR9D2"}, "skillsift-index": {"AR9D1"}, "skillsift-eval": {"AR9D4"}}
    code, _, err = run(capsys, "hook", "no-such-hook")
    assert code == 2 and f"hooks are {', '.join(HOOK_NAMES)}" in err
    code, out, _ = run(capsys, "hook", "--help")
    listed = ", ".join(HOOK_NAMES[:-1]) + f" or {HOOK_NAMES[-1]}"
    assert code == 0 and f"Run one pre-commit hook: {listed}." in " ".join(out.split())

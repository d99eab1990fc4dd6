"""AR9D3: skills whose text an index build would withhold from a remote provider."""

from __future__ import annotations

from skillsift.catalog.skill import Skill
from skillsift.checks.withheld import check as check_withheld
from tests.conftest import write_skill
from tests.support.validators_support import check

KEY = "AKIAQWERTYUIOPASDFGH"
OPENAI = '[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\n'


def leaky(tmp_path):
    write_skill(tmp_path, "rotate", f"Rotate the key {KEY} every month")
    write_skill(tmp_path, "clean", "Nothing to hide here")
    write_skill(tmp_path, "body-only", "Harmless description", body=f"Body has {KEY}\n")


def test_remote_provider_would_not_get_the_skill(tmp_path):
    leaky(tmp_path)
    [diag] = check(tmp_path, select=["AR9D3"], user_config=OPENAI)
    assert (diag.code, diag.severity, diag.file, diag.line, diag.column) == (
        "AR9D3", "warning", ".claude/skills/rotate/SKILL.md", 3, 30)
    assert diag.message == ('skill "rotate" would not be embedded by the openai provider: its text looks like it '
                            "holds a secret (aws-access-key); it would rank lexically only")


def test_the_local_provider_gets_everything(tmp_path):
    leaky(tmp_path)
    assert check(tmp_path, select=["AR9D3"]) == []


def test_body_counts_only_when_it_is_embedded(tmp_path):
    leaky(tmp_path)
    (tmp_path / "skillsift.toml").write_text("[search]\nindex_body = true\n")
    diags = check(tmp_path, select=["AR9D3"], user_config=OPENAI)
    assert [d.file for d in diags] == [".claude/skills/body-only/SKILL.md", ".claude/skills/rotate/SKILL.md"]


def test_pure_check_with_an_allowed_secret():
    allowed = Skill(name="a", description=f"{KEY} skillsift: allow-secret", path="a/SKILL.md")
    plain = Skill(name="b", description=f"{KEY}", path="b/SKILL.md")
    diags = check_withheld([allowed, plain], provider="command", fields=("name", "description"),
                           index_body=False, body_chars=0)
    assert [d.file for d in diags] == ["b/SKILL.md"]
    assert "command provider" in diags[0].message and diags[0].line is None


def test_a_secret_in_the_name_is_masked_in_the_warning(tmp_path):
    from tests.support.validators_support import raw_skill

    raw_skill(tmp_path, "named", f'---\nname: "ops {KEY}"\ndescription: Rotates keys\n---\nBody.\n')
    [diag] = check(tmp_path, select=["AR9D3"], user_config=OPENAI)
    assert KEY not in diag.message
    assert diag.message.startswith('skill "ops AKIA**** (20 characters)" would not be embedded')

"""AR001 secrets in skills, the inline allowance, the baseline of accepted findings (SK010)."""

from __future__ import annotations

import json

from conftest import write_skill
from test_validators_support import check, codes

from skillsift.cli import main
from skillsift.validators.secrets import (
    baseline_document,
    check_text,
    finding_value,
    fingerprint,
    parse_baseline,
    scan,
)

KEY = "AKIAQWERTYUIOPASDFGH"
GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_secret_reported_with_line_column_and_masked_excerpt():
    text = f"---\nname: x\ndescription: y\n---\nConfigure it:\n  aws_key = {KEY}\n"
    [diag] = check_text("s/SKILL.md", text)
    assert (diag.code, diag.severity, diag.line, diag.column) == ("AR001", "error", 6, 13)
    assert diag.message == "looks like an AWS access key id (AKIA**** (20 characters))"
    assert KEY not in diag.message + diag.hint


def test_placeholders_are_not_reported_and_allowed_lines_are_notes():
    text = ("api_key = \"your-api-key-here-0000000000\"\n"
            f"token: {GH}  # skillsift: allow-secret\n"
            "AKIAXXXXXXXXXXXXXXXX\n")
    [note] = check_text("s/SKILL.md", text)
    assert (note.severity, note.line, note.column) == ("note", 2, 8)
    assert note.message == "looks like a GitHub token (ghp_**** (40 characters)), allowed on this line"


def test_generic_credentials_need_letters_and_digits():
    assert codes(check_text("f", 'password = "Zq8vN2mLx5Tr9wKp4Hs7"\n')) == ["AR001"]
    assert check_text("f", 'password = "abcdefghijklmnopqrstuv"\n') == []


def test_configured_patterns_are_scanned(tmp_path):
    write_skill(tmp_path, "acme", "Talks to the Acme API", body="Use ACME-7f3k9q2m1z when asked.\n")
    (tmp_path / "skillsift.toml").write_text('[[secrets.patterns]]\nname = "acme-key"\nregex = "ACME-[0-9a-z]{10}"\n')
    [diag] = check(tmp_path, select=["AR001"])
    assert diag.message == "looks like an acme-key (ACME**** (15 characters))"
    assert diag.line == 5


def test_finding_value_recovers_the_match_and_the_fingerprint_is_stable():
    text = f"a\nbb {KEY} cc\n"
    [(finding, key)] = scan("f.md", text)
    assert finding_value(text, finding) == KEY
    assert key == fingerprint("f.md", "aws-access-key", KEY)
    moved = f"new first line\na\nbb {KEY} cc\n"
    assert scan("f.md", moved)[0][1] == key  # the line moved, the key did not
    assert scan("g.md", text)[0][1] != key  # another file is another finding


def test_baseline_accepts_exactly_the_listed_findings(tmp_path):
    write_skill(tmp_path, "ops", "Operations notes", body=f"Old demo key {KEY}\n")
    assert codes(check(tmp_path, select=["AR001"])) == ["AR001"]
    assert main(["validate", "--root", str(tmp_path), "--update-secrets-baseline"]) == 0
    baseline = tmp_path / ".skillsift/secrets-baseline.json"
    doc = json.loads(baseline.read_text())
    assert doc["schema_version"] == 1
    [entry] = doc["accepted"]
    assert entry["file"] == ".claude/skills/ops/SKILL.md" and entry["kind"] == "aws-access-key"
    assert KEY not in baseline.read_text()  # the baseline never holds the secret
    assert check(tmp_path, select=["AR001"]) == []
    # a new value in the same file is a new finding
    write_skill(tmp_path, "ops", "Operations notes", body=f"Old demo key {KEY}\nNew: {GH}\n")
    [diag] = check(tmp_path, select=["AR001"])
    assert diag.line == 6 and "GitHub token" in diag.message


def test_baseline_path_is_configurable(tmp_path):
    write_skill(tmp_path, "ops", "Operations notes", body=f"key {KEY}\n")
    (tmp_path / "skillsift.toml").write_text('[validate]\nsecrets_baseline = "security/accepted.json"\n')
    assert main(["validate", "--root", str(tmp_path), "--update-secrets-baseline"]) == 0
    assert (tmp_path / "security/accepted.json").is_file()
    assert check(tmp_path, select=["AR001"]) == []


def test_invalid_baseline_is_sk010(tmp_path):
    write_skill(tmp_path, "ops", "Operations notes")
    (tmp_path / ".skillsift").mkdir()
    (tmp_path / ".skillsift/secrets-baseline.json").write_text("{not json\n")
    [diag] = check(tmp_path, select=["AR001", "SK010"])
    assert (diag.code, diag.file, diag.line) == ("SK010", ".skillsift/secrets-baseline.json", 1)
    assert "not valid JSON" in diag.message


def test_parse_baseline_shapes():
    assert parse_baseline(json.dumps(baseline_document([])), "b.json") == (frozenset(), [])
    _keys, [problem] = parse_baseline('{"schema_version": 2}', "b.json")
    assert "schema_version 1" in problem.message
    _keys, [problem] = parse_baseline('{"schema_version": 1, "accepted": [{"fingerprint": "md5:x"}]}', "b.json")
    assert "entry 1" in problem.message


def test_only_skill_files_are_scanned_by_validate(tmp_path):
    write_skill(tmp_path, "ok", "Fine skill")
    (tmp_path / "notes.md").write_text(f"{KEY}\n")
    assert check(tmp_path, select=["AR001"]) == []

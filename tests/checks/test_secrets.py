"""AR001 secrets in skills, the inline allowance, the baseline of accepted findings (SK010)."""

from __future__ import annotations

import json

from skillsift.checks.secrets import (
    baseline_document,
    check_text,
    fingerprint,
    parse_baseline,
    scan,
)
from skillsift.cli import main
from tests.conftest import write_skill
from tests.support.validators_support import check, codes

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


def test_a_finding_locates_the_match_and_the_fingerprint_is_stable():
    text = f"a\nbb {KEY} cc\n"
    [(finding, key)] = scan("f.md", text)
    line = text.split("\n")[finding.line - 1]
    assert line[finding.column - 1:finding.column - 1 + len(KEY)] == KEY
    assert finding.masked.endswith(f"({len(KEY)} characters)")
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


# -- one scan: the raw lines and the parsed values ------------------------------------------------


def _escaped_skill(tmp_path, description_yaml: str, name: str = "esc"):
    from tests.support.validators_support import raw_skill

    return raw_skill(tmp_path, name, f"---\nname: {name}\ndescription: {description_yaml}\n---\nBody.\n")


def test_a_secret_in_an_escaped_yaml_string_is_reported(tmp_path):
    value = "Zq8vN2mLx5Tr9wKp4Hs7"
    path = _escaped_skill(tmp_path, f'"Call it with api_key = \\"{value}\\" set"')
    [diag] = check(tmp_path, select=["AR001"])
    line = path.read_text().split("\n")[2]
    assert (diag.line, diag.column) == (3, line.index(value) + 1) and "hard-coded credential" in diag.message
    assert value not in diag.message


def test_a_secret_only_visible_after_unescaping_is_reported_at_its_key(tmp_path):
    key = "AK" + "IA" + "Q3ZR7T2MWX9PLK4N"
    _escaped_skill(tmp_path, f'"deploy with \\x{ord(key[0]):02x}{key[1:]} now"')
    [diag] = check(tmp_path, select=["AR001"])
    assert (diag.line, diag.column, diag.code) == (3, None, "AR001")
    assert "AWS access key id" in diag.message


def test_the_hook_scans_escaped_frontmatter_too(tmp_path, capsys, monkeypatch):
    from skillsift.cli import main as cli

    monkeypatch.chdir(tmp_path)
    key = "AK" + "IA" + "Q3ZR7T2MWX9PLK4N"
    _escaped_skill(tmp_path, f'"deploy with \\x{ord(key[0]):02x}{key[1:]} now"')
    assert cli(["hook", "secrets", ".claude/skills/esc/SKILL.md"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(".claude/skills/esc/SKILL.md:3: AR001 looks like an AWS access key id")


def test_validate_reports_everything_the_build_withholds(tmp_path):
    """Every text AR9D3 would withhold holds a finding AR001 reports (the same scan)."""
    import random

    from skillsift.catalog.embedtext import embedded_text
    from skillsift.secrets.scan import detect_secret
    from tests.support.secret_samples import GENERATORS, sample

    rng = random.Random(5)
    for i, kind in enumerate(sorted(GENERATORS)):
        line, _value = sample(kind, rng)
        if "\n" in line:
            continue
        escaped = line.replace("\\", "\\\\").replace('"', '\\"')
        _escaped_skill(tmp_path, f'"Use {escaped} to deploy"', name=f"s{i:02d}")
    from tests.support.validators_support import workspace

    ws = workspace(tmp_path)
    reported = {d.file for d in check(tmp_path, select=["AR001"]) if d.severity == "error"}
    withheld = {skill.path for skill in ws.catalog.skills
                if detect_secret(embedded_text(skill, ("name", "description", "triggers", "keywords"))) is not None}
    assert withheld and withheld <= reported
    assert len(withheld) == len([k for k in GENERATORS if "\n" not in sample(k, random.Random(0))[0]])


def test_a_complete_token_followed_by_an_elision_is_still_a_secret():
    token = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert codes(check_text("f", f"token: {token}...\n")) == ["AR001"]
    assert codes(check_text("f", f"token: {token}\u2026 and more\n")) == ["AR001"]
    assert check_text("f", "token: " + "gh" + "p_abc...\n") == []


# -- configured patterns cannot hang a hook (RE2) ---------------------------------------------------


def test_a_catastrophic_pattern_does_not_hang_validate_or_the_hook(tmp_path):
    import subprocess
    import sys

    write_skill(tmp_path, "slow", "a" * 35 + "!", body="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n")
    write_skill(tmp_path, "hit", "Uses aaab here")
    (tmp_path / "skillsift.toml").write_text('[[secrets.patterns]]\nname = "nested"\nregex = "(a+)+$"\n'
                                             '[[secrets.patterns]]\nname = "aaab"\nregex = "\\\\ba+b\\\\b"\n')
    for argv in (["validate", "--select", "AR001"], ["hook", "secrets"]):
        # Python's backtracking engine needs hours for this; RE2 is linear in the text
        done = subprocess.run([sys.executable, "-m", "skillsift", *argv], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 1, done.stderr
        assert "looks like an aaab" in done.stdout and "nested" not in done.stdout


def test_a_pattern_re2_cannot_run_is_a_config_error_naming_it(tmp_path):
    write_skill(tmp_path, "x", "Uses things")
    (tmp_path / "skillsift.toml").write_text('[[secrets.patterns]]\nname = "backref"\nregex = "(a)\\\\1"\n')
    diags = check(tmp_path)
    [diag] = [d for d in diags if d.code == "AR9D0"]
    assert "secrets.patterns entry 1: regex does not compile" in diag.message
    assert "RE2 syntax" in diag.message


def test_validate_scans_every_file_of_a_skill_folder_but_not_binaries_or_files_outside(tmp_path):
    from tests.support.validators_support import check, raw_skill

    raw_skill(tmp_path, "deploy", "---\nname: deploy\ndescription: Deploys. Use when shipping.\n---\nBody.\n")
    folder = tmp_path / ".claude/skills/deploy"
    (folder / "scripts").mkdir()
    key = "AKIA" + "Q3EGRZ7XJ2LMNB4T"
    (folder / "scripts/run.sh").write_text(f"export AWS_ACCESS_KEY_ID={key}\n")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + key.encode())  # binary: skipped
    (tmp_path / "notes.txt").write_text(f"{key}\n")  # in no skill folder: not a skill's file
    found = check(tmp_path, select=["AR001"])
    assert [(d.file, d.line) for d in found] == [(".claude/skills/deploy/scripts/run.sh", 1)]
    # with paths, a file of a skill folder triggers the check on that file
    assert [d.file for d in check(tmp_path, select=["AR001"], paths=[".claude/skills/deploy/scripts/run.sh"])] == [
        ".claude/skills/deploy/scripts/run.sh"]
    # near miss: a placeholder is no secret
    (folder / "scripts/run.sh").write_text("export AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX\n")
    assert check(tmp_path, select=["AR001"]) == []

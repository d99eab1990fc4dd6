"""`skillsift validate --fix` / `--diff`: mechanical safe fixes only."""

from __future__ import annotations

from skillsift.checks.fixes import plan, quote_colon_values
from skillsift.cli import main
from tests.support.validators_support import raw_skill


def test_quoting_a_value_that_holds_colon_space(tmp_path, capsys):
    text = "---\nname: demo\ndescription: Deploy it: always, carefully\n---\n# Demo\n"
    path = raw_skill(tmp_path, "demo", text, "skills")
    assert main(["validate", "--root", str(tmp_path), "--diff"]) == 0
    captured = capsys.readouterr()
    assert '+description: "Deploy it: always, carefully"' in captured.out
    assert "would fix: skills/demo/SKILL.md: SK001" in captured.err
    assert path.read_text() == text  # --diff alone writes nothing
    assert main(["validate", "--root", str(tmp_path), "--fix"]) == 0
    assert path.read_text() == '---\nname: demo\ndescription: "Deploy it: always, carefully"\n---\n# Demo\n'
    assert "SK001" not in capsys.readouterr().out


def test_quoting_is_refused_when_it_would_change_the_value():
    assert quote_colon_values("---\nname: demo\ndescription: fine\n---\n") is None
    assert quote_colon_values("---\nname: demo\ndescription: a: b # c\n---\n") is None  # a comment: not mechanical
    new, keys = quote_colon_values("---\r\nname: demo\r\ndescription: a: b\r\n---\r\nbody\r\n")
    assert keys == ["description"] and new == '---\r\nname: demo\r\ndescription: "a: b"\r\n---\r\nbody\r\n'


def test_case_mismatch_takes_the_valid_folder_name_and_says_who_still_uses_the_old(tmp_path, capsys):
    path = raw_skill(tmp_path, "pdf-tools", "---\nname: PDF-Tools\ndescription: Fill PDF forms.\n---\nb\n", "skills")
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: c1\n    query: fill a pdf\n    expect: [PDF-Tools]\n", encoding="utf-8")
    assert main(["validate", "--root", str(tmp_path), "--fix", "--select", "SK1"]) == 0
    err = capsys.readouterr().err
    assert "fixed: skills/pdf-tools/SKILL.md: SK102" in err
    assert 'skill "PDF-Tools" is now "pdf-tools"; still named "PDF-Tools" in search-cases.yaml' in err
    assert path.read_text().startswith("---\nname: pdf-tools\n")


def test_case_mismatch_renames_an_invalid_folder(tmp_path):
    raw_skill(tmp_path, "Pdf-Tools", "---\nname: pdf-tools\ndescription: Fill PDF forms.\n---\nb\n", "skills")
    assert main(["validate", "--root", str(tmp_path), "--fix", "--select", "SK1"]) == 0
    assert (tmp_path / "skills" / "pdf-tools" / "SKILL.md").is_file()
    assert not (tmp_path / "skills" / "Pdf-Tools").exists()


def test_no_fix_for_a_real_mismatch_or_both_invalid():
    front = {"name": "other", "description": "d"}
    assert plan("skills/demo/SKILL.md", "---\nname: other\n---\n", front) == []
    assert plan("skills/PDF_X/SKILL.md", "---\nname: pdf_x\n---\n", {"name": "pdf_x"}) == []


def test_fix_unquotes_a_boolean_string_sets_the_exec_bit_and_renames_skill_md(tmp_path, capsys):
    import os
    import stat

    text = ("---\nname: demo\ndescription: Demo. Use when demoing.\ndisable-model-invocation: 'true'\n---\n"
            "Run `./scripts/go.sh`.\n")
    path = raw_skill(tmp_path, "demo", text, ".claude/skills")
    script = path.parent / "scripts" / "go.sh"
    script.parent.mkdir()
    script.write_text("echo hi\n")
    script.chmod(0o644)
    lower = raw_skill(tmp_path, "other", "---\nname: other\ndescription: Other. Use when other.\n---\nBody.\n",
                      ".claude/skills").rename(tmp_path / ".claude/skills/other/skill.md")
    main(["validate", "--root", str(tmp_path), "--diff"])  # a preview: nothing written
    err = capsys.readouterr().err
    assert "would fix: .claude/skills/demo/SKILL.md: SK201" in err and "SK316" in err and "SK319" in err
    assert not os.access(script, os.X_OK) and lower.exists()
    main(["validate", "--root", str(tmp_path), "--fix"])
    out = capsys.readouterr().out
    assert "disable-model-invocation: true\n" in path.read_text()
    assert script.stat().st_mode & stat.S_IXUSR and script.stat().st_mode & stat.S_IXOTH
    assert (tmp_path / ".claude/skills/other/SKILL.md").is_file()
    assert not any(code in out for code in ("SK201", "SK316", "SK319"))


def test_a_boolean_fix_is_refused_when_the_value_is_not_a_boolean_string():
    from skillsift.checks.fixes import unquote_booleans

    assert unquote_booleans("---\nuser-invocable: 'yes'\n---\n", {"user-invocable": "yes"}) is None
    assert unquote_booleans("---\nuser-invocable: false\n---\n", {"user-invocable": False}) is None


def _fix_twice(tmp_path, folder, text):
    """``validate --fix`` twice over one skill written as bytes: (the file after the first, after the second)."""
    path = raw_skill(tmp_path, folder, text, "skills")
    main(["validate", "--root", str(tmp_path), "--fix", "--select", "SK1"])
    first = path.read_bytes().decode("utf-8")
    main(["validate", "--root", str(tmp_path), "--fix", "--select", "SK1"])
    return first, path.read_bytes().decode("utf-8")


def test_case_only_name_fix_keeps_every_other_byte_and_a_second_fix_changes_nothing(tmp_path, capsys):
    text = ('---\r\nname: "PDF-Tools"   # shown in the picker\r\ndescription: Fill PDF forms. Use when a PDF'
            ' has fields.\r\n---\r\nBody.\r\n')
    first, second = _fix_twice(tmp_path, "pdf-tools", text)
    assert first == text.replace('"PDF-Tools"', '"pdf-tools"')
    assert second == first
    err = capsys.readouterr().err
    assert err.count("fixed: skills/pdf-tools/SKILL.md: SK102") == 1
    single = "---\nname: 'Pdf-TOOLS'\ndescription: Fill PDF forms. Use when a PDF has fields.\n---\nBody.\n"
    first, second = _fix_twice(tmp_path / "b", "pdf-tools", single)
    assert first == second == single.replace("'Pdf-TOOLS'", "'pdf-tools'")


def test_case_only_name_fix_near_misses_are_left_alone(tmp_path):
    description = "description: Fill PDF forms. Use when a PDF has fields.\n"
    misses = [
        ("pdf-tools", "---\nname: PDF-Toolz\n" + description + "---\nb\n"),      # more than case
        ("pdf-tools", "---\nname: PDF Tools\n" + description + "---\nb\n"),      # a blank, not a hyphen
        ("PDF_Tools", "---\nname: pdf_tools\n" + description + "---\nb\n"),      # neither is a valid name
        ("PDF-Tools", "---\nname: pdf-TOOLS\n" + description + "---\nb\n"),      # nor here (capitals)
        ("pdf-tools", "---\nname: >\n  PDF-Tools\n" + description + "---\nb\n"),  # folded
        ("pdf-tools", "---\nname: |-\n  PDF-Tools\n" + description + "---\nb\n"),  # literal block
        ("pdf-tools", "---\nname:\n  PDF-Tools\n" + description + "---\nb\n"),   # value on the next line
        ("pdf-tools", '---\nname: "PDF-\n  Tools"\n' + description + "---\nb\n"),  # quoted over two lines
        ("strasse-tools", "---\nname: Straße-Tools\n" + description + "---\nb\n"),  # ß is not "ss" in other case
    ]
    for i, (folder, text) in enumerate(misses):
        first, _second = _fix_twice(tmp_path / str(i), folder, text)
        assert first == text, (folder, text)
        assert (tmp_path / str(i) / "skills" / folder / "SKILL.md").is_file()


def test_set_name_refuses_every_form_it_cannot_rewrite_in_place():
    from skillsift.checks.fixes import set_name

    assert set_name("---\nname: PDF-Tools # c\n---\n", "pdf-tools") == "---\nname: pdf-tools # c\n---\n"
    assert set_name("---\nname: &n PDF-Tools\n---\n", "pdf-tools") is None  # an anchor
    assert set_name("---\nname: !!str PDF-Tools\n---\n", "pdf-tools") is None  # a tag
    assert set_name('---\nname: "PDF-Tools" trailing\n---\n', "pdf-tools") is None  # not YAML
    assert set_name("---\ndescription: d\n---\n", "pdf-tools") is None  # no name line

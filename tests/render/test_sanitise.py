"""Repository text in every door's output: no workflow command, no escape sequence, no Markdown
syntax, no SARIF path outside the root (render/sanitise.py).

The step's log is read as the GitHub runner reads it (tests/support/runner.py) and the
Markdown is rendered by GitHub's own cmark-gfm (with its table, autolink and tag-filter
extensions), then the HTML is read back.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest

from skillsift.diagnostics import ERROR, Diagnostic
from skillsift.evaluate.compare import Comparison, RankChange
from skillsift.evaluate.gates import Flips
from skillsift.evaluate.outcomes import Side
from skillsift.evaluate.verdict import CiRun
from skillsift.render.diagnostics import sarif_log
from skillsift.render.pull_request import render_markdown
from skillsift.render.registry import render
from skillsift.render.sanitise import md_code, md_text, plain, plain_lines, sarif_uri, visible
from tests.conftest import write_skill
from tests.support.cli import run
from tests.support.runner import commands

FORGED = "::error file=a.md,line=1::forged"
HOSTILE = (f"x\n{FORGED}\r\n  ::add-mask::word ##[warning]forged2 \x1b]52;c;ZXZpbA==\x07 \x9b31m \u202e "
           "`` <img src=x> </details> ![i](https://e.test/x.png) [l](https://e.test) www.e.test a@b.test")


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF"):
        monkeypatch.delenv(var, raising=False)


def no_raw_controls(text: str) -> None:
    bad = [c for c in text if (ord(c) < 32 and c not in "\n") or 0x7f <= ord(c) <= 0x9f or c == "\u202e"]
    assert not bad, f"raw control characters {bad!r} in output"


# -- the functions ------------------------------------------------------------------------------


def test_plain_leaves_no_command_and_no_control_character():
    text = plain(HOSTILE)
    assert "\n" not in text and "\r" not in text
    no_raw_controls(text)
    assert commands(text) == []
    assert "\\x1b]52;c;ZXZpbA==\\x07" in text and "\\u202e" in text  # shown escaped, not dropped
    assert commands(plain(FORGED)) == [] and commands(plain("  " + FORGED)) == []
    assert commands(plain_lines("ok\n" + FORGED + "\nsee ##[group]x")) == []
    assert plain("deploy-prod") == "deploy-prod" and visible("a\tb") == "a\\tb"


def test_plain_equals_the_two_regex_passes_on_random_text():
    """plain's return of text with nothing to escape is exact: against visible then the command guard,
    every character of the unsafe set, the categories isprintable refuses, and random mixes."""
    import random
    import unicodedata

    from skillsift.render import sanitise

    def reference(text):
        return sanitise._guard(sanitise.visible(text))

    odd = [chr(cp) for cp in range(0x3000) if not unicodedata.category(chr(cp)).startswith(("L", "N"))]
    odd += ["\ufeff", "\U0001f600", "\U000e0001", "\ud800", "::", "##[", "#", "[", " ", "\t", "a", "é"]
    for char in odd:
        for text in (char, "x" + char, char + "::", " \t" + char, "ok " + char + " ok"):
            assert plain(text) == reference(text), repr(text)
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(odd) for _ in range(rng.randint(0, 8)))
        assert plain(text) == reference(text), repr(text)
    assert plain(3) == "3" and plain("  ::x") == "  \\::x" and plain("a##[b") == "a##\\[b"


def test_markdown_from_repository_text_renders_as_literal_text():
    html = cmarkgfm.github_flavored_markdown_to_html(
        "| a | b |\n| --- | --- |\n| " + md_text(HOSTILE) + " | " + md_code(HOSTILE) + " |\n\n- " + md_text("# h")
        + "\n- " + md_text("1. x"))
    tags = _tags(html)
    assert tags - {"table", "thead", "tbody", "tr", "th", "td", "code", "ul", "li"} == set(), tags
    assert html.count("<td>") == 2  # the pipe-free cells stayed two cells
    assert "<img" not in html and "</details>" not in html and "href" not in html
    for fence in ("`", "``", "```"):
        inner = f"a{fence}b {fence}"
        assert _text(cmarkgfm.github_flavored_markdown_to_html(md_code(inner))).strip() == inner


def test_sarif_uris_stay_inside_the_root():
    assert sarif_uri(".claude/skills/a b/SKILL.md") == ".claude/skills/a%20b/SKILL.md"
    for outside in ("../x.yaml", "/etc/passwd", "a/../../x", "C:/x", "..", "a/\nb"):
        assert sarif_uri(outside) is None, outside
    log = sarif_log([Diagnostic(file="../cases.yaml", line=3, code="AR9D2", severity=ERROR, message="bad"),
                     Diagnostic(file="/abs/x.md", code="AR9D2", severity=ERROR, message="bad"),
                     Diagnostic(file="skills/a/../b/SKILL.md", code="AR9D2", severity=ERROR, message="ok")])
    results = log["runs"][0]["results"]
    assert "locations" not in results[0] and results[0]["message"]["text"] == "../cases.yaml: bad"
    assert "locations" not in results[1]
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "skills/b/SKILL.md"


# -- the doors ----------------------------------------------------------------------------------


def hostile_repo(root: Path) -> Path:
    write_skill(root, "deploy-prod", "Deploy the service to production with a rollback plan")
    folder = root / ".claude" / "skills" / "::warning::folder ##[error]x"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: " + json.dumps(HOSTILE) + "\ndescription: " + json.dumps("Deploy " + HOSTILE) + "\n---\nBody\n",
        encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_validate_prints_no_command_from_repository_text(tmp_path, capsys, fmt):
    root = hostile_repo(tmp_path)
    code, out, err = run(capsys, "validate", "--root", root, "--format", fmt)
    assert code == 1, out + err  # the bidi override in the name and description is an SK406 error
    assert commands(out + err) == []
    no_raw_controls(out + err)
    if fmt != "text":
        assert "::error file=a.md" in out  # the text is kept, escaped as the format writes it
        json.loads(out)


def test_validate_github_annotations_carry_repository_text_only_as_data(tmp_path, capsys):
    root = hostile_repo(tmp_path)
    code, out, err = run(capsys, "validate", "--root", root, "--format", "github")
    assert code == 1, out + err  # SK406 (the bidi override) is an error
    found = commands(out + err)
    assert found and {c.name for c in found} <= {"error", "warning", "notice"}
    assert len(found) == sum(1 for line in out.splitlines() if line.startswith("::"))
    assert any(FORGED in c.data for c in found)  # the forged line is the message of a real annotation
    assert all(c.props.get("title", "").startswith(("SK", "AR")) for c in found)
    no_raw_controls(out)


def test_search_list_and_hook_print_no_command(tmp_path, capsys, monkeypatch):
    root = hostile_repo(tmp_path)
    outputs = []
    for argv in (["search", "--root", root, "deploy", "forged"], ["search", "--root", root, "--explain", "deploy"],
                 ["list", "--root", root, "--agent", "claude-code"],
                 ["search", "--root", root, "--format", "json", "deploy"]):
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        outputs.append(out + err)
    monkeypatch.chdir(root)
    skill = next(root.glob(".claude/skills/::*/SKILL.md"))
    code, out, err = run(capsys, "hook", "validate", str(skill.relative_to(root)))
    assert code == 1 and "SK101" in out, out + err  # SK406 (the bidi override) is an error
    outputs.append(out + err)
    for text in outputs:
        assert commands(text) == [], text
        no_raw_controls(text)
    assert "##\\[error]x" in outputs[0] or "##\\[warning]forged2" in outputs[0]


def test_ci_error_paths_print_no_command(tmp_path, capsys, monkeypatch):
    write_skill(tmp_path, "deploy-prod", "Deploy the service to production")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "skillsift.toml").write_text(
        '[search]\n"::warning::key ##[error]k" = 1\nmode = ' + json.dumps("x\n" + FORGED) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "ci", "--baseline", "none", "--annotations")
    assert code == 1
    assert {c.name for c in commands(out + err)} <= {"error", "warning", "notice"}
    assert all(c.line.startswith("::") and c.props.get("title") for c in commands(out + err))
    (tmp_path / "skillsift.toml").write_text("", encoding="utf-8")
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: one\n    query: deploy it\n    expect: ["
        + json.dumps("nope ##[warning]x\n" + FORGED) + "]\n", encoding="utf-8")
    code, out, err = run(capsys, "ci", "--baseline", "none")
    assert code == 1 and "unknown skill" in out + err, out + err
    assert commands(out + err) == []
    no_raw_controls(out + err)


def test_eval_text_prints_no_command(tmp_path, capsys):
    write_skill(tmp_path, "deploy-prod", "Deploy the service to production")
    (tmp_path / "cases.yaml").write_text(
        "version: 1\ncases:\n  - id: " + json.dumps("c ##[warning]x") + "\n    query: " + json.dumps("zzz\n" + FORGED)
        + "\n    expect: [deploy-prod]\n", encoding="utf-8")
    for fmt in ("text", "markdown", "junit", "json"):
        code, out, err = run(capsys, "eval", "cases.yaml", "--root", tmp_path, "--format", fmt)
        assert commands(out + err) == [], (fmt, out)


# -- the pull-request summary ---------------------------------------------------------------------


def hostile_run() -> CiRun:
    side = Side(label="base", mode="lexical", k=5, cases=())
    change = RankChange(id="c`` </details><img src=x>", query=HOSTILE, expected=("`` <b>x</b>",), before=1, after=None,
                        first_after="![i](https://e.test/x.png)", line=3)
    comparison = Comparison(base=side, head=side, flips=Flips(regressed=(change.id,)), regressed=(change,), fixed=(),
                            moved=(), paired={}, common=1)
    return CiRun(cases_path="search-cases.yaml", mode="lexical", k=5, comparison=comparison, base_label="base x",
                 notes=[HOSTILE], error="", findings=[Diagnostic(file="skills/`` <img>/SKILL.md", line=1, code="SK001",
                                                                 severity=ERROR, message=HOSTILE, hint=HOSTILE)])


def test_the_summary_renders_repository_text_as_text():
    markdown = render_markdown(hostile_run())
    html = cmarkgfm.github_flavored_markdown_to_html(markdown)
    tags = _tags(html)
    assert not tags & {"img", "a", "b", "script", "iframe"}, tags
    assert markdown.count("<details>") == html.count("<details>") == html.count("</details>")
    assert commands(markdown) == []
    no_raw_controls(markdown)
    assert "c`` </details><img src=x>" in _text(html)  # still readable, as text


def _tags(html: str) -> set[str]:
    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags: set[str] = set()

        def handle_starttag(self, tag, attrs):
            self.tags.add(tag)

    parser = Tags()
    parser.feed(html)
    return parser.tags


def _text(html: str) -> str:
    class Text(HTMLParser):
        def __init__(self):
            super().__init__()
            self.parts: list[str] = []

        def handle_data(self, data):
            self.parts.append(data)

    parser = Text()
    parser.feed(html)
    return "".join(parser.parts)


def test_render_text_format_shows_each_finding_on_one_line():
    diag = Diagnostic(file="a\nb.md", line=1, code="SK001", severity=ERROR, message="m\n" + FORGED)
    text = render("diagnostics", "text", [diag])
    assert commands(text) == [] and text.splitlines()[0] == "a\\nb.md:1: SK001 m\\n::error file=a.md,line=1::forged"

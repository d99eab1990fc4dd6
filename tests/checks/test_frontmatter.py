"""SK001, SK004-SK008: one SKILL.md on its own."""

from __future__ import annotations

import re

import pytest

from skillsift.checks.frontmatter import (
    check_skill_text,
    coverage,
    trigger_passages,
)
from skillsift.validators.settings import DEFAULT_DESCRIPTION_LIMITS
from tests.conftest import corpora, write_skill
from tests.support.validators_support import check, codes, raw_skill

LIMITS = DEFAULT_DESCRIPTION_LIMITS
P = ".claude/skills/demo/SKILL.md"


def run(text: str, limits=LIMITS):
    return check_skill_text(P, text, limits=limits)


def test_a_sound_skill_has_no_finding():
    text = "---\nname: demo\ndescription: Deploy the demo app. Use when shipping the demo.\n---\n# Demo\nSteps.\n"
    assert run(text) == []


def test_no_frontmatter_is_sk004_on_line_1():
    [diag] = run("# Demo\nJust text.\n")
    assert (diag.code, diag.line, diag.severity) == ("SK004", 1, "error")
    assert "no frontmatter" in diag.message


def test_unclosed_and_invalid_yaml_are_sk001_with_their_lines():
    [unclosed] = run("---\nname: demo\ndescription: x\n")
    assert (unclosed.code, unclosed.line) == ("SK001", 1)
    assert "no closing ---" in unclosed.message
    [bad] = run("---\nname: demo\ndescription: a: b\n---\nbody\n")
    assert (bad.code, bad.line, bad.column) == ("SK001", 3, 15)
    assert "not valid YAML" in bad.message
    [listy] = run("---\n- a\n- b\n---\nbody\n")
    assert listy.code == "SK001" and "mapping" in listy.message


def test_missing_name_is_a_warning_naming_the_folder_fallback():
    [diag] = run("---\ndescription: Deploy the demo. Use when shipping.\n---\nbody\n")
    assert (diag.code, diag.severity, diag.line) == ("SK005", "warning", 1)
    assert 'folder name "demo"' in diag.message


def test_name_of_the_wrong_type_is_sk005_at_its_line():
    [diag] = run("---\ndescription: Deploy the demo. Use when shipping.\nname: [a, b]\n---\nbody\n")
    assert (diag.code, diag.line) == ("SK005", 3)
    assert diag.message == "name must be a non-empty string, not a list"


def test_missing_or_blank_description_is_an_error():
    [missing] = run("---\nname: demo\n---\nbody\n")
    assert (missing.code, missing.severity) == ("SK006", "error")
    assert "no description" in missing.message
    [blank] = run('---\nname: demo\ndescription: "  "\n---\nbody\n')
    assert (blank.code, blank.line) == ("SK006", 3)
    assert blank.message == "description must be a non-empty string, not blank"


def test_empty_frontmatter_lacks_both():
    assert codes(run("---\n---\nbody\n")) == ["SK005", "SK006"]


def test_description_over_1024_is_one_sk007_per_agent_profile():
    description = "word " * 210  # 1049 characters once trimmed
    text = f"---\nname: demo\ndescription: {description}\n---\nbody\n"
    [copilot_only] = run(text)  # .claude/skills: Claude Code keeps 1,536, Codex does not read it
    assert "copilot keeps only the first 1024" in copilot_only.message
    found = check_skill_text(".agents/skills/demo/SKILL.md", text, limits=LIMITS)
    assert [(d.code, d.line, d.severity) for d in found] == [("SK007", 3, "warning")] * 2
    codex, copilot = found
    assert codex.message == "description is 1049 characters; codex does not load a skill whose description is over 1024"
    assert copilot.message.startswith("description is 1049 characters; copilot keeps only the first 1024")


def test_claude_code_cuts_description_plus_when_to_use_at_1536():
    assert DEFAULT_DESCRIPTION_LIMITS["claude-code"] == 1536
    text = f"---\nname: demo\ndescription: {'d' * 900}\nwhen_to_use: {'w' * 700}\n---\nbody\n"
    [diag] = run(text)
    assert diag.message.startswith("description + when_to_use are 1601 characters; claude-code keeps only the first "
                                   "1536")
    assert run(f"---\nname: demo\ndescription: {'d' * 900}\nwhen_to_use: {'w' * 600}\n---\nbody\n") == []
    [long] = run(f"---\nname: demo\ndescription: {'d' * 1000}\n---\nbody\n", limits={"claude-code": 900})
    assert long.message.startswith("description is 1000 characters; claude-code keeps only the first 900")


def _sk007(description: str, limits: dict) -> list[str]:
    text = f"---\nname: demo\ndescription: {description}\n---\nbody\n"
    return [d.message for d in run(text, limits) if d.code == "SK007"]


def test_description_exactly_at_the_limit_passes():
    limits = {"one-agent": 1024, "another": 1024}
    assert _sk007("x" * 1024, limits) == []
    assert _sk007('"  ' + "x" * 1024 + ' "', limits) == []  # trimmed first
    assert len(_sk007("x" * 1025, limits)) == 2


def test_limits_are_per_agent_and_configurable(tmp_path):
    [message] = _sk007("x" * 300, {"tiny": 200, "big": 5000})
    assert "tiny keeps only the first 200" in message
    write_skill(tmp_path, "demo", "x " * 200)  # 399 characters
    assert check(tmp_path, select=["SK007"]) == []
    (tmp_path / "skillsift.toml").write_text("[validate.description_limits]\nmy-agent = 250\ncodex = 0\n")
    [diag] = check(tmp_path, select=["SK007"])
    assert "my-agent keeps only the first 250" in diag.message


def test_trigger_section_only_in_the_body_is_sk008_at_its_line():
    text = ("---\nname: demo\ndescription: Deploy the demo application.\n---\n# Demo\n\n## When to use\n\n"
            "- shipping a branch to QA testers\n- previewing a release candidate\n")
    [diag] = run(text)
    assert (diag.code, diag.line, diag.severity) == ("SK008", 7, "warning")
    assert '"## When to use"' in diag.message and "description" in diag.message


def test_inline_trigger_phrases_in_the_body():
    for marker in ("Use this skill when", "**Triggers:**", "Use when", "Trigger phrases:"):
        text = f"---\nname: demo\ndescription: Deploy the demo.\n---\n{marker} the pager rings at night\n"
        assert codes(run(text)) == ["SK008"], marker


def test_triggers_also_in_the_description_are_fine():
    covered = ("---\nname: demo\ndescription: Deploy the demo. Ship a branch to QA testers or preview a "
               "release candidate.\n---\n## When to use\n- ship a branch to QA testers\n"
               "- preview a release candidate\n")
    assert run(covered) == []
    with_clause = "---\nname: demo\ndescription: Deploy things. Use when asked.\n---\nUse when the moon is full\n"
    assert run(with_clause) == []


def test_fenced_code_and_unrelated_headings_are_not_triggers():
    text = ("---\nname: demo\ndescription: Deploy the demo.\n---\n```\nUse when: never\n```\n"
            "## When not to use\n- on fridays\n## Trigger types of webhooks\n- push\n")
    assert run(text) == []


def test_trigger_passages_and_coverage_are_pure():
    lines = ["# T", "## Triggers", "", "- rotate the keys", "- expired certificate", "## Steps", "Use when: x y"]
    assert trigger_passages(lines, 10) == [(11, "## Triggers", "- rotate the keys - expired certificate"),
                                           (16, "Use when: x y", "x y")]
    assert coverage("rotate the keys", "Rotate API keys") == 1.0
    assert coverage("rotate expired certificates", "Rotate keys") == pytest.approx(1 / 3)


def test_run_reports_parse_errors_of_unreadable_files(tmp_path):
    raw_skill(tmp_path, "latin", "")
    (tmp_path / ".claude/skills/latin/SKILL.md").write_bytes(b"---\nname: caf\xe9\n---\n")
    [diag] = check(tmp_path, select=["SK001"])
    assert (diag.code, diag.line, diag.column) == ("SK001", 2, 10)
    assert "not valid UTF-8" in diag.message


@pytest.mark.slow  # the whole corpus of real skills
def test_real_corpus_is_mostly_clean():
    """On ~2,100 published skills the checks stay quiet except for real problems."""
    real = corpora()
    found: dict[str, int] = {}
    total = 0
    for path in sorted(real.rglob("SKILL.md"))[:600]:
        total += 1
        for diag in check_skill_text(path.as_posix(), path.read_text("utf-8"), limits=LIMITS):
            found[diag.code] = found.get(diag.code, 0) + 1
    assert total == 600
    assert set(found) <= {"SK007", "SK008"}  # published skills parse and carry name and description
    assert found.get("SK008", 0) < total * 0.3


# The heading and inline-marker patterns as first written (backtracking freely: fine on these
# bodies, slow on hostile lines): the scanner's linear-time forms must find the same passages.
_REFERENCE_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_REFERENCE_INLINE = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)?(?:\*\*|__|\*|_)?\s*"
    r"(use (?:this skill|it) (?:when|whenever|if|for)\b|use when(?:ever)?\b|"
    r"triggers?(?: phrases?| words?)?\s*(?:\*\*|__)?\s*:|when to use(?: this skill)?\s*(?:\*\*|__)?\s*:)",
    re.IGNORECASE,
)


def _reference_trigger_passages(lines, first_line):
    """trigger_passages with every regex tried on every line (no character pre-checks)."""
    from skillsift.checks import frontmatter as fm

    out, in_code, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if fm._FENCE.match(line):
            in_code, i = not in_code, i + 1
            continue
        if in_code:
            i += 1
            continue
        heading = _REFERENCE_HEADING.match(line)
        if heading and fm._TRIGGER_HEADING.match(heading.group(1).strip("*_ ").strip()):
            passage, j = [], i + 1
            while j < len(lines) and len(passage) < 15:
                if _REFERENCE_HEADING.match(lines[j]) or fm._FENCE.match(lines[j]):
                    break
                if lines[j].strip():
                    passage.append(lines[j].strip())
                j += 1
            if passage:
                out.append((first_line + i, line, " ".join(passage)))
            i = j
            continue
        inline = _REFERENCE_INLINE.match(line)
        if inline and line[inline.end():].strip(" *_:"):
            out.append((first_line + i, line, line[inline.end():].strip(" *_:")))
        i += 1
    return out


@pytest.mark.slow  # the whole corpus of real skills
def test_trigger_passages_equal_the_regex_on_every_line():
    from skillsift.checks.frontmatter import trigger_passages

    bodies = ["\n".join([
        "# Skill", "USE WHEN the build breaks", "Uſe when deploying (long s)", "  - **Triggers:** deploy",
        "## When to use", "on release", "```", "use when inside code", "```", "~~~", "# not a heading", "~~~",
        "### \u212aeywords", "> use this skill for rollbacks", "1. When to use this skill: nightly",
        "#", "text # with hash", "trigger words: ship it", "Activation triggers", "## Activation", "ops",
        "## WHEN SHOULD YOU INVOKE THIS SKILL", "nightly", "# Use İt when", "### uſe this skill when", "x",
        "## Notes", "- Use it for rollbacks", "## ACTİVATİON TRİGGERS", "on push", "## Usage", "use it", "# Trıggers",
        "y", "## When This Skill Applies", "z",
    ])]
    bodies += [p.read_text("utf-8", "replace") for p in sorted(corpora().rglob("SKILL.md"))]
    for body in bodies:
        lines = body.split("\n")
        assert trigger_passages(lines, 3) == _reference_trigger_passages(lines, 3)


def test_the_findings_of_an_unchanged_skill_come_from_the_text_check_cache(tmp_path, monkeypatch, capsys):
    """A second validate checks no unchanged SKILL.md again; an edit, or other description limits, does."""
    import skillsift.checks.frontmatter as fm
    from tests.support.cli import run as run_cli

    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("alpha", "beta"):
        path = tmp_path / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: {'x' * 1100}\n---\n# {name}\nSteps.\n", encoding="utf-8")
    calls: list[str] = []
    real = fm.check_skill_text

    def counting(path, text, **kw):
        calls.append(path)
        return real(path, text, **kw)

    monkeypatch.setattr(fm, "check_skill_text", counting)

    def validate() -> str:
        _code, out, _err = run_cli(capsys, "validate", "--root", tmp_path, "--format", "json")
        return out

    first = validate()
    assert sorted(calls) == [".claude/skills/alpha/SKILL.md", ".claude/skills/beta/SKILL.md"]
    assert "SK007" in first
    calls.clear()
    assert validate() == first and calls == []  # the same findings, none computed
    beta = tmp_path / ".claude" / "skills" / "beta" / "SKILL.md"
    beta.write_text(beta.read_text(encoding="utf-8").replace("x" * 1100, "Short."), encoding="utf-8")
    assert validate() != first and calls == [".claude/skills/beta/SKILL.md"]
    calls.clear()
    (tmp_path / "skillsift.toml").write_text("[validate.description_limits]\ncodex = 2000\n", encoding="utf-8")
    validate()
    assert sorted(calls) == [".claude/skills/alpha/SKILL.md", ".claude/skills/beta/SKILL.md"]


def _reference_trigger_lines(lines):
    """The lines holding a fence run or a word of a trigger heading or marker, by the IGNORECASE regex
    on each line, up to the last holding a word (none without one)."""
    word = re.compile(r"use when|when to |when should |when this skill|trigger|activation|use this skill|use it ",
                      re.IGNORECASE)
    marker = re.compile(r"```|~~~|" + word.pattern, re.IGNORECASE)
    last = max((i for i, line in enumerate(lines) if word.search(line)), default=-1)
    return [i for i, line in enumerate(lines[:last + 1]) if marker.search(line)]


def _trigger_lines(lines):
    from skillsift.checks.frontmatter import _lowered, _trigger_lines

    return _trigger_lines(_lowered(lines, None))


_CANDIDATE_WORDS = ("use when", "when to ", "when should ", "when this skill", "trigger", "activation",
                    "use this skill", "use it ")


def test_trigger_lines_fold_case_as_the_ignorecase_regex_does():
    """The lowered-text search finds the lines IGNORECASE finds: every code point that lowers to or
    matches an ASCII letter under IGNORECASE put in place of each letter of the words, and random
    lines of letters, folding characters and markers."""
    import random

    letter = re.compile(r"[a-z ]", re.IGNORECASE)
    # (the other code points match no letter either way: neither lowered to one nor equal under IGNORECASE)
    points = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and cp != 10
              and (letter.match(chr(cp)) or any("a" <= c <= "z" or c == " " for c in chr(cp).lower()))]
    assert len(points) > 50 and "\u212a" in points and "\u0130" in points
    lines = [w[:i] + ch + w[i + 1:] for ch in points for w in _CANDIDATE_WORDS for i in range(len(w)) if ch != w[i]]
    found = set(_trigger_lines(lines))
    expected = set(_reference_trigger_lines(lines))
    assert found == expected
    assert {lines[i] for i in expected} >= {"triggeR", "use whEn", "when tO ", "uſe it ", "use ıt ", "actİvation",
                                            "use this s\u212aill", "when thiſ skill"}
    rng = random.Random(45)
    alphabet = ["u", "s", "e", "U", "S", "E", "t", "r", "i", "g", "T", "R", "I", "G", "\u017f", "\u0131", "\u0130",
                "\u212a", "#", "`", "~", " ", "é", "—", "\u00df", "x", "w", "h", "n", "W", "H", "N", "k", "K", "l",
                "a", "c", "v", "o", "when", "use", "this skill", "it ", "activation", "```", " to ", "should ",
                "when to ", "use when", "when this skill"]
    for _ in range(3000):
        body = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 8))]
        assert _trigger_lines(body) == _reference_trigger_lines(body)


_BODY_LINES = ("", "   ", "# Skill", "## When to use", "### Triggers", "## Activation", "# Use İt when", "## Notes",
               "#", "####### When to use", "## WHEN SHOULD YOU INVOKE THIS SKILL ##", "  ## When to use **",
               "```", "~~~", "  ```python", "    ```", "\t```", "USE WHEN the build breaks", "Uſe when deploying",
               "  - **Triggers:** deploy", "1. When to use this skill: nightly", "> use this skill for rollbacks",
               "- Use it for rollbacks", "use it", "trigger words: ship it", "text # with hash", "on release",
               "when the user asks", "ops", "nightly", "x \u2028 y", "use when\r", "Trıggers: ship", "é",
               "## When\tto use", "## When  to use", "## When should I use it", "## When this skill applies",
               "use\u00a0when deploying", "Use  when deploying", "- when to use: nightly", "When\u2003to use:")


def test_trigger_passages_equal_the_regex_on_every_line_on_random_bodies():
    """Random bodies of headings, markers, fences, blank and plain lines (folding characters): the passages
    of the lines holding a word or a fence up to the last word are those of the regex on every line."""
    import random

    rng = random.Random(8)
    found = 0
    for _ in range(4000):
        lines = [rng.choice(_BODY_LINES) for _ in range(rng.randint(0, 40))]
        want = _reference_trigger_passages(lines, 5)
        assert trigger_passages(lines, 5) == want
        found += len(want)
    assert found > 4000


def _body_trigger_passages_both_ways(body: str, monkeypatch) -> list[list[tuple[int, str, str]]]:
    """``body_trigger_passages(body)`` with the substring tests (the text split into lines) and with the RE2
    set (the lines decoded from the body's UTF-8 bytes)."""
    from skillsift.checks.frontmatter import body_trigger_passages
    from skillsift.validators import parsed as views
    from tests.support.set_gates import read_with_sets

    out = []
    for sets in (False, True):
        read_with_sets(monkeypatch, views.MARK_SETS, sets)
        with views.shared_views():
            out.append(body_trigger_passages(body, 5))
    return out


def test_body_trigger_passages_equal_the_regex_on_every_line_on_random_bodies(monkeypatch):
    """Random bodies of headings, markers, fences, blank and plain lines, with lone surrogates and characters
    of every UTF-8 length in passages: the passages of a body read in its bytes, or as text, are those of the
    regex on every line (a trigger section read to the body's end, or to a heading or fence, 15 lines at most)."""
    import random

    rng = random.Random(9)
    pieces = (*_BODY_LINES, "Use when \udc80 \u2014 \U0001d4b3 \u00e9", "\u00e9 \ud800 \u2014 x", "## Triggers")
    found = sections = 0
    for _ in range(3000):
        lines = [rng.choice(pieces) for _ in range(rng.randint(0, 40))]
        want = _reference_trigger_passages(lines, 5)
        assert _body_trigger_passages_both_ways("\n".join(lines), monkeypatch) == [want, want], lines
        found += len(want)
        sections += any(" " in passage and line.lstrip().startswith("#") for _n, line, passage in want)
    assert found > 3000 and sections > 300, (found, sections)


@pytest.mark.slow  # the whole corpus of real skills
def test_body_trigger_passages_equal_the_regex_on_every_line_on_the_corpus(monkeypatch):
    from skillsift.catalog.frontmatter import split_frontmatter

    found = 0
    for path in sorted(corpora().rglob("SKILL.md")):
        body = split_frontmatter(path.read_text("utf-8", "replace").replace("\r\n", "\n")).body
        want = _reference_trigger_passages(body.split("\n"), 5)
        assert _body_trigger_passages_both_ways(body, monkeypatch) == [want, want], path
        found += len(want)
    assert found > 300, found


def test_entry_limit_problems_equal_the_reference_on_random_skills():
    """SK007 with the entry texts made once per set of fields and the folders asked only past a limit: the
    findings of the reference (every agent's folders asked first) on random descriptions, ``when_to_use``
    values, limits (profiled agents, other names, zero) and paths each agent reads or not."""
    import random

    from skillsift.checks.frontmatter import entry_limit_problems
    from tests.support.entry_limit_reference import entry_limit_problems as reference

    rng = random.Random(17)
    paths = [".claude/skills/a/SKILL.md", ".codex/skills/a/SKILL.md", ".agents/skills/a/SKILL.md",
             ".github/skills/a/SKILL.md", "skills/a/SKILL.md", "skills/x/y/SKILL.md", "docs/a/SKILL.md",
             "plugins/p/skills/a/SKILL.md", ".skillsift/local/sources/s/a/SKILL.md", ".gemini/skills/a/SKILL.md"]
    agents = ["claude-code", "codex", "copilot", "cursor", "gemini-cli", "opencode", "my-agent", "other"]
    values = [None, "", "  ", 5, ["a"], "short", "x " * 300, "y" * 1030, "z " * 520, "w" * 1600, "é " * 900]
    found = 0
    for _ in range(3000):
        front = {key: rng.choice(values) for key in ("description", "when_to_use") if rng.random() < 0.85}
        limits = {agent: rng.choice((0, 10, 1024, 1536, 2000)) for agent in rng.sample(agents, rng.randint(0, 5))}
        path, plugin = rng.choice(paths), rng.choice(("", "", "gemini-extension.json:p"))
        want = reference(path, 3, front, limits, plugin)
        assert entry_limit_problems(path, 3, front, limits, plugin) == want
        found += len(want)
    assert found > 800
    # (an agent that does not read the folder is left out once another one reads it)
    front = {"description": "x" * 50}
    limits = {"claude-code": 10, "codex": 10, "my-agent": 10}
    found_for = entry_limit_problems(".codex/skills/a/SKILL.md", 3, front, limits)
    assert [d.message.split(";")[1].split()[0] for d in found_for] == ["codex", "my-agent"]


def test_says_when_equals_the_when_clause_search():
    """The look for the clause's first words before the regex: the regex's answer on every code point that
    lowers to or matches an ASCII letter under IGNORECASE put in place of each letter of those words, on
    random descriptions of words, folding characters and clauses, and on the corpus's descriptions."""
    import random

    from skillsift.checks.frontmatter import _WHEN_CLAUSE, _WHEN_WORDS, _says_when

    letter = re.compile(r"[a-z ]", re.IGNORECASE)
    points = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000
              and (letter.match(chr(cp)) or any("a" <= c <= "z" or c == " " for c in chr(cp).lower()))]
    clauses = ["use when", "Use this skill for x", "use it to", "Use PROACTIVELY when", "when the user asks",
               "when you", "triggers", "trigger on", "invoke for", "applies when", "use cases", "activated on",
               "activates for", "because it", "a user"]
    texts = [c[:i] + ch + c[i + 1:] for ch in points for c in clauses for i in range(len(c)) if ch != c[i]]
    rng = random.Random(31)
    words = ["Deploy", "the", "app", "when", "use", "USE", "uſe", "ıt", "İnvoke", "\u212anow", "trıgger", "é", "—",
             "for", "to", "on", "user", "asked", "applies", "activate", "activated", "case", "cases", "because"]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(0, 10))) for _ in range(5000)]
    texts += [str(s.frontmatter.get("description")) for s in _corpus_skills()]
    assert [_says_when(t) for t in texts] == [_WHEN_CLAUSE.search(t) is not None for t in texts]
    assert sum(map(_says_when, texts)) > 2000
    assert sum(not any(w in t.lower() for w in _WHEN_WORDS) for t in texts) > 1000  # (the look does skip some)


def test_says_when_equals_the_when_clause_search_on_ascii_soup():
    """ASCII descriptions, where the regex is tried only where a clause's first word is: the words packed
    against letters, digits, underscores and punctuation (word boundaries), in any case, overlapping."""
    import random

    from skillsift.checks.frontmatter import _WHEN_CLAUSE, _says_when

    pieces = ["use", "USE", "Use ", "use ", "when", "When ", "when ", "the ", "user", "you", "asked", "trigger",
              "TRIGGERS", "trigger ", "on", "invoke ", "applies when", "activate", "activated ", "cases", "it ",
              "this ", "skill ", "quickly ", "ly ", "for", "to", "x", "_", "-", "9", ".", " ", " ", "  ", "\t", "\n"]
    rng = random.Random(37)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    assert [_says_when(t) for t in texts] == [_WHEN_CLAUSE.search(t) is not None for t in texts]
    assert 3000 < sum(map(_says_when, texts)) < 17000


def _corpus_skills():
    from skillsift.catalog.load import parse_skill

    out = []
    for path in sorted(corpora().rglob("SKILL.md"))[:800]:
        skill, _problems = parse_skill(path.read_text("utf-8", "replace"), path.parent.name, path=path.as_posix())
        if skill is not None:
            out.append(skill)
    return out


def _body_trigger_lines_both_ways(body: str, monkeypatch) -> list[list[int]]:
    """The trigger lines of a body (those of its UTF-8 bytes, or of its lowered text when it is read as text)
    with the substring tests (the first 64 KiB) and with the RE2 set."""
    from skillsift.checks.frontmatter import _body_trigger_ends, _lowered, _trigger_lines
    from skillsift.validators import parsed as views

    def _body_trigger_lines(body: str) -> list[int]:
        ends = _body_trigger_ends(body)
        return _trigger_lines(_lowered(None, body)) if ends is None else [number for number, _end in ends]
    from tests.support.set_gates import read_with_sets

    out = []
    for sets in (False, True):
        read_with_sets(monkeypatch, views.MARK_SETS, sets)
        with views.shared_views():
            out.append(_body_trigger_lines(body))
    return out


def test_odd_holds_every_character_ignorecase_matches_to_a_letter_besides_its_cases():
    from skillsift.checks.frontmatter import _FOLDS, _ODD

    letter = re.compile(r"[a-z]", re.IGNORECASE)
    odd = {chr(cp) for cp in range(0x80, 0x110000) if not 0xD800 <= cp < 0xE000 and letter.match(chr(cp))}
    assert odd == set("".join(_ODD.values())) == {f for f, _plain in _FOLDS} | {"\u212a"}
    for plain, chars in _ODD.items():
        assert all(re.fullmatch(plain, c, re.IGNORECASE) for c in chars)


def test_body_trigger_lines_in_bytes_equal_the_ignorecase_regex(monkeypatch):
    """The lines of a body read in its lowered UTF-8 bytes after one RE2 set pass (or as text when it holds
    a character of ``_ODD``) are those of the IGNORECASE regex on each line: every code point that lowers to
    or matches an ASCII letter or blank put in place of each letter of the words (one body each, and all in
    one), then random bodies of words, fences, folding and other characters, and lone surrogates."""
    import random

    letter = re.compile(r"[a-z ]", re.IGNORECASE)
    points = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and cp != 10
              and (letter.match(chr(cp)) or any("a" <= c <= "z" or c == " " for c in chr(cp).lower()))]
    lines = [w[:i] + ch + w[i + 1:] for ch in points for w in _CANDIDATE_WORDS for i in range(len(w)) if ch != w[i]]
    bodies = [*lines, "\n".join(lines), "\n".join(line for line in lines if line.isascii())]
    rng = random.Random(12)
    alphabet = ["u", "s", "e", "U", "S", "E", "t", "r", "i", "g", "T", "R", "I", "G", "\u017f", "\u0131", "\u0130",
                "\u212a", "#", "`", "~", " ", "é", "—", "\u00df", "\U0001d4b3", "\udc80", "x", "w", "h", "n", "W",
                "H", "N", "k", "K", "a", "c", "v", "o", "when", "use", "this skill", "it ", "activation", "```", "\n",
                " to ", "should ", "when to ", "use when", "when this skill"]
    bodies += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    found = 0
    for body in bodies:
        want = _reference_trigger_lines(body.split("\n"))
        assert _body_trigger_lines_both_ways(body, monkeypatch) == [want, want], body
        found += bool(want)
    assert found > 1500


@pytest.mark.slow  # the whole corpus of real skills
def test_body_trigger_lines_in_bytes_equal_the_ignorecase_regex_on_the_corpus(monkeypatch):
    from skillsift.catalog.frontmatter import split_frontmatter

    found = 0
    for path in sorted(corpora().rglob("SKILL.md")):
        body = split_frontmatter(path.read_text("utf-8", "replace").replace("\r\n", "\n")).body
        want = _reference_trigger_lines(body.split("\n"))
        assert _body_trigger_lines_both_ways(body, monkeypatch) == [want, want], path
        found += bool(want)
    assert found > 500


def test_coverages_tokenize_the_description_once_and_equal_the_share_of_each_passage():
    import random

    from skillsift.checks import frontmatter as fm
    from skillsift.ranker.tokenize import tokenize

    rng = random.Random(4)
    words = ["deploy", "deploys", "the", "app", "when", "Rotating", "keys", "of", "İnvoke", "—", "", "x1", "use"]
    for _ in range(2000):
        description = " ".join(rng.choice(words) for _ in range(rng.randint(0, 8)))
        passages = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 4))]
        want = []
        for passage in passages:
            terms = set(tokenize(passage))
            want.append(len(terms & set(tokenize(description))) / len(terms) if terms else 1.0)
        assert fm._coverages(passages, description) == want
        assert [fm.coverage(passage, description) for passage in passages] == want


def test_entry_text_joins_the_trimmed_strings_of_its_fields():
    import random

    from skillsift.checks.frontmatter import entry_text

    rng = random.Random(3)
    values = [None, "", " ", "\t\n", "a", " b ", "c d", 5, ["x"], True, "é "]
    fields_choices = [(), ("description",), ("description", "when_to_use"), ("when_to_use", "description", "x")]
    for _ in range(3000):
        front = {key: rng.choice(values) for key in ("description", "when_to_use", "x") if rng.random() < 0.7}
        fields = rng.choice(fields_choices)
        want = " ".join(v.strip() for v in (front.get(f) for f in fields) if isinstance(v, str) and v.strip())
        assert entry_text(front, fields) == want, (front, fields)

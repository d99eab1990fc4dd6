"""The body scans of the spec, body and path checks, which look for every mark in one pass and read
only the lines holding one, and the repeated-key look of SK211, find what the scans they replaced
found (tests/support/body_scans_reference.py), finding for finding: seeded random bodies and blocks
built from the marks, their near misses and the characters around them, and the corpus of real skills."""

from __future__ import annotations

import random

import pytest

from skillsift.checks import body as body_check
from skillsift.checks import paths, spec, yaml_checks
from skillsift.validators import parsed as views
from skillsift.validators.parsed import Parsed
from tests.conftest import corpora
from tests.support import body_scans_reference as reference
from tests.support.set_gates import read_with_sets

PIECES = (
    "```", "````", "```py", "~~~", "~~~~", "``", "~~", "`", " ", "  ", "   ", "    ", "\t", "\n", "\n", "\n", "\n",
    "](", "]:", "[a]", "[^1]:", "(x.md)", "(<y z.md>)", "[ref]: ref.md", " \"t\"", "(#top)", "(https://x.io/a)",
    "(../up.md)", "(a%20b.md)", "(path/to/file.md)", "(refs\\g.md)", "[", "]", "(", ")", "TODO", "TODO:", "[TODO: x]",
    "TO", "$", "$1", "$ARGUMENTS", "$ARGUMENTS[2]", "!", "!`", "!`git status`", "scripts/", "scripts/run.py",
    "python ", "python3 ", "bash ", "uv run ", "./", "x./", "_./", "bin/", "bin/tool", "tools/t.sh", "s/",
    "[a](b/c.md)", "python scripts/run.py", "./tools/t.sh", "/Users/ana/",
    "/Users/username/", "C:\\Users\\bob\\", "Users", "When", "use it ", "Trigger",
    "x", "é", "İ", "\u212a", "\U0001d4b3", "#", "-",
)
SEED = 20261207


def _view(body: str, description: str = "Does x. Use when y.") -> Parsed:
    return Parsed(path="skills/demo/SKILL.md", text=f"---\nname: demo\n---\n{body}",
                  front={"name": "demo", "description": description}, raw="name: demo\n", raw_line=2,
                  body=body, body_line=4, lines={"name": 2, "description": 3})


def _runs(found) -> list[tuple[str, int]]:
    return [(run.group(1), run.start()) for run in found]


NEEDLES = (("TODO", "$", "!`"), ("$",), ("```", "~~~", "when", "trigger", "activation", "use this skill", "use it "),
           ("x", "é"), ())


def _lines_holding(text: str, needles) -> list[tuple[int, str]]:
    """The lines holding a needle, by a test of every line."""
    return [(number, line) for number, line in enumerate(text.split("\n")) if any(n in line for n in needles)]


def _same(body: str) -> None:
    for needles in NEEDLES:
        for text in (body, body.lower()):
            want = _lines_holding(text, needles)
            assert views.lines_holding(text, needles) == want, (text, needles)
            assert views.line_numbers_holding(text, needles) == [number for number, _line in want], (text, needles)
    assert views._fenced_blocks(body).lines == [start for start, _m in reference._fence_lines(body)], body
    assert spec.relative_links(body, 4) == reference.relative_links(body, 4), body
    for dot_only in (False, True):
        assert _runs(paths.script_runs(body, dot_only)) == _runs(reference.script_runs(body, dot_only)), body
    view = _view(body)
    assert body_check.check_body(view) == reference.check_body(view), body
    assert paths._home_paths(view) == reference._home_paths(view), body

    def is_file(rel: str) -> bool:
        return "run" in rel or "t.sh" in rel

    def is_executable(rel: str) -> bool:
        return "t.sh" in rel

    assert (paths._script_problems(view, is_file, is_executable)
            == reference._script_problems(view, is_file, is_executable)), body


@pytest.mark.parametrize("sets", [False, True], ids=["substring-tests", "re2-set"])
def test_the_scans_equal_the_old_scans_on_random_bodies(sets, monkeypatch):
    """With the marks found by substring tests, and by the RE2 set (past the first 64 KiB)."""
    read_with_sets(monkeypatch, views.MARK_SETS, sets)
    rng = random.Random(SEED)
    for _ in range(4000):
        _same("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 50))))


def test_the_mark_set_reports_what_the_substring_tests_report(monkeypatch):
    read_with_sets(monkeypatch, views.MARK_SETS, True)
    for mark in views.MARKS:
        for text in (mark, f"İ{mark}é\U0001d4b3", mark + "\udc80", mark[:-1], mark[1:], f"\u212a{mark[::-1]}"):
            assert views.marks(text) == frozenset(m for m in views.MARKS if m in text), text


def test_the_random_bodies_are_not_vacuous():
    """The pieces make every kind of finding the scans look for."""
    rng = random.Random(SEED)
    links = runs = dots = 0
    codes: set[str] = set()
    for _ in range(4000):
        body = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 50)))
        links += len(reference.relative_links(body, 4))
        runs += len(reference.script_runs(body))
        dots += len(reference.script_runs(body, True))
        codes |= {d.code for d in reference.check_body(_view(body)) + reference._home_paths(_view(body))}
    assert links > 1000 and runs > 500 and dots > 200, (links, runs, dots)
    assert codes >= {"SK302", "SK303", "SK304", "SK305", "SK306", "SK311"}, codes


def test_more_runs_than_the_cap_are_cut_alike():
    body = "python scripts/a.py ./bin/bb\n" * 1500 + "./tools/c.sh\n" * 600
    for dot_only in (False, True):
        found = _runs(paths.script_runs(body, dot_only))
        assert found == _runs(reference.script_runs(body, dot_only)) and len(found) == 1000
    _same(body)


KEY_PARTS = (
    ("", "", "", " ", "  ", "\t", "# "),  # indent
    ("", "", "", "- ", "-"),
    ("name", "name", "name", "k", "k", "a b", "\"name\"", "'name'", "\"k'", "é", "#x", ":", ""),  # key
    ("", "", "", " ", "\r", "\x85", "\u2028"),
    (":", ":", ": v", ":x", ": ", ":\r", ": # c", "", " :"),
    ("", "", "", "\r", " \u2028 k: v", "\x0bk: w"),
)


def test_the_repeated_key_look_equals_the_line_scan_on_random_blocks():
    rng = random.Random(SEED)
    repeats = 0
    for _ in range(6000):
        raw = "\n".join("".join(rng.choice(part) for part in KEY_PARTS) for _ in range(rng.randint(0, 8)))
        want = reference.repeated_key_lines(raw)
        assert yaml_checks.repeated_key_lines(raw) == want, raw
        repeats += want
    assert repeats > 300, repeats


@pytest.mark.slow  # the whole corpus of real skills
def test_the_scans_equal_the_old_scans_on_the_corpus(tmp_path):
    from skillsift.validators.parsed import parsed_skills
    from skillsift.validators.workspace import Workspace

    config = tmp_path / "skillsift.toml"  # the corpus is read-only: name its layout in a config kept elsewhere
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    ws = Workspace(corpora(), config_file=config)
    links = 0
    for view in parsed_skills(ws, ws.skill_paths):
        _same(view.body)
        assert yaml_checks.repeated_key_lines(view.raw) == reference.repeated_key_lines(view.raw), view.path
        assert body_check.check_body(view) == reference.check_body(view), view.path
        links += len(reference.relative_links(view.body, view.body_line))
    assert links > 1000


LINK_PIECES = ("!", "!", "[", "]", "(", ")", "](", "[a]", "(x.md)", "![i](i.png)", "[t](t.md \"t\")", "<", ">",
               "<a b.md>", " ", "'", "\"", "`", "#", "%20", "\n", "\n", "]:", "[r]: r.md", "é", "\U0001d4b3")


def test_the_links_equal_the_old_links_on_random_link_soup():
    """Images, brackets and parentheses packed together: the link pattern without the image's "!" finds
    the targets the one with it found."""
    rng = random.Random(SEED)
    found = 0
    for _ in range(4000):
        body = "".join(rng.choice(LINK_PIECES) for _ in range(rng.randint(0, 40)))
        want = reference.relative_links(body, 4)
        with views.shared_views():
            assert spec.relative_links(body, 4) == want, body
        found += len(want)
    assert found > 1000, found

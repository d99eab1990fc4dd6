"""The per-file body checks that read the shared marks, fence lines and line lists of a body
(skillsift/validators/parsed.py) find what they found when each read the body on its own
(tests/support/body_checks_reference.py), finding for finding: seeded random bodies built from what
the checks look for, their near misses and the characters around them, with the marks found by
substring tests and by the RE2 set, and the corpus of real skills."""

from __future__ import annotations

import random

import pytest

from skillsift.checks import backslash_paths, bang_position, example_home, interactive_input, spec
from skillsift.checks import body as body_check
from skillsift.validators import parsed as views
from skillsift.validators.parsed import Parsed
from tests.conftest import corpora
from tests.support import body_checks_reference as reference

PIECES = (
    "```", "````", "```sh", "```bash", "```py", "~~~", "~~~~", "``", "`", " ", "  ", "   ", "    ", "\t", "\n", "\n",
    "\n", "\n", "!", "!`", "!`git status`", "x!`date`", "(!`ls`)", "`a!`b`", "``a!`b``", "x", "é", "İ",
    "\u212a", "\U0001d4b3", "#", "-", "\\", "scripts\\run.py", "C:\\Users\\x\\a.py", "read -p ", "read -rp x",
    "while read -p", "Read-Host",
    "read-host", "read\t-p", "read  -sp", "read \t-p x", "read x",
    ".\\tools\\run.ps1", "%APPDATA%\\x\\y.txt", "a\\b", "\\\\server\\f.txt",
    "refs\\api.md", "x\\_y", "$env:HOME\\a\\b.ps1", '"', "é\\b.md", "a.b\\c", "-\\x", "\\n", "\\frac", "dir\\",
    "\n```sh\n", "\n```bash\n", "\nread -p name\n", "\n  read -rp x y\n", "\n$x = Read-Host\n", "input(", "[ -t 0 ]",
    "/Users/", "/home/", "/home/username/", "/Users/john/", ":\\Users\\", "C:\\Users\\jane\\", "~/Users/x/",
    "isatty(", "](", "]:", "[a](b.md)", "[r]: r.md", "TODO", "TODO:", "[TODO: x]", "$1", "$ARGUMENTS", "`$1`",
    "`!`ls``", "   ```", "    ```", "~~~~~ x", "``` ",
)
SEED = 20261207
FLAGS = [{"scaffold": s, "argument": a, "bang": b} for s in (False, True) for a in (False, True) for b in (False, True)]


def _view(body: str, front: dict | None = None) -> Parsed:
    return Parsed(path="skills/demo/SKILL.md", text=f"---\nname: demo\n---\n{body}",
                  front=front or {"name": "demo", "description": "Does x."}, raw="name: demo\n", raw_line=2,
                  body=body, body_line=4, lines={"name": 2, "description": 3})


def _substring_marks(text: str):
    return views._Substrings(text)


def _set_marks(text: str):
    return frozenset(views._ENTRIES[n] for n in views._mark_set().Match(views.utf8(text)) or ())


MODES = {"substring-tests": _substring_marks, "re2-set": _set_marks}


def _same(view: Parsed, flags=FLAGS) -> None:
    with views.shared_views():
        assert bang_position.check_positions(view) == reference.check_positions(view), view.body
        assert interactive_input.skill_problems(view) == reference.skill_problems(view), view.body
        assert backslash_paths.check_backslashes(view) == reference.check_backslashes(view), view.body
        assert example_home.check_example_home(view) == reference.check_example_home(view), view.body
        for wanted in flags:
            assert (body_check._line_checks(view.path, view.body, 4, **wanted)
                    == reference._line_checks(view.path, view.body, 4, **wanted)), (view.body, wanted)
        inside, unclosed = body_check.fences(view.body)
        lines, opened = reference.inside_lines(view.body)
        assert ([inside[n] for n in range(len(lines))], unclosed) == (lines, opened), view.body


def _bodies(count: int):
    rng = random.Random(SEED)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_checks_equal_the_old_checks_on_random_bodies(mode, monkeypatch):
    monkeypatch.setattr(views, "_marks", MODES[mode])
    for body in _bodies(3000):
        _same(_view(body))


def test_the_random_bodies_are_not_vacuous():
    """The pieces make every finding the checks report, and bodies without one."""
    codes: dict[str, int] = {}
    for body in _bodies(3000):
        for d in (reference.check_positions(_view(body)) + reference.skill_problems(_view(body))
                  + reference.check_backslashes(_view(body)) + reference.check_example_home(_view(body))
                  + reference._line_checks("SKILL.md", body, 4, scaffold=True, argument=True, bang=True)):
            codes[d.code] = codes.get(d.code, 0) + 1
    assert all(codes.get(code, 0) > 100 for code in ("SK303", "SK304", "SK305", "SK306", "SK307", "SK321",
                                                     "SK322", "SK324")), codes


@pytest.mark.slow  # the whole corpus of real skills
def test_the_checks_equal_the_old_checks_on_the_corpus(tmp_path):
    from skillsift.validators.parsed import parsed_skills
    from skillsift.validators.workspace import Workspace

    config = tmp_path / "skillsift.toml"  # the corpus is read-only: name its layout in a config kept elsewhere
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    ws = Workspace(corpora(), config_file=config)
    for view in parsed_skills(ws, ws.skill_paths):
        _same(view, FLAGS[-1:])


NAME_PIECES = ("a", "z", "A", "Z", "0", "9", "-", "--", "_", " ", ".", "é", "É", "ß", "\uff41", "\u2460", "\u0130",
               "\u212a", "\n", "\t", "\u00a0", "\U0001d4b3", "/", "ı", "x" * 70)


def test_name_problems_equal_the_old_ones_on_random_names():
    rng = random.Random(SEED)
    ascii_only = 0
    for _ in range(20000):
        name = "".join(rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 8)))
        assert spec.name_problems(name) == reference.name_problems(name), name
        ascii_only += spec._ASCII_NAME.fullmatch(spec.normal_name(name)) is not None
    assert 1000 < ascii_only < 19000, ascii_only

"""A hook's arguments read without argparse are exactly what argparse reads (skillsift/hooks/_common.py).

The plain reader takes the forms pre-commit and people write; everything else goes to argparse
(help, usage errors), so the two must agree wherever the plain reader answers.
"""

from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.hooks._common import _parser, _plain_args, parse_args


def _argparse(argv):
    """argparse's reading of ``argv``, or "error" when it refuses them (exit 2)."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return SimpleNamespace(**vars(_parser("frontmatter", "d").parse_args(argv)))
        except SystemExit:
            return "error"


@pytest.mark.parametrize("argv", [
    [],
    [".claude/skills/a/SKILL.md", "skills/b/SKILL.md"],
    ["--root", "repo", "a.md"],
    ["a.md", "b.md", "--format", "json"],
    ["--format=sarif", "--config=ci/skillsift.toml", "a.md"],
    ["--root", ".", "a.md", "--format", "github"],
    ["--root=", "a.md"],
    ["", "a b.md"],
])
def test_the_forms_pre_commit_passes_are_read_without_argparse(argv):
    plain = _plain_args(argv)
    assert plain is not None and plain == _argparse(argv)


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["--ro", "x"], ["--root"], ["--format", "yaml"], ["a.md", "--root", ".", "b.md"],
    ["--", "a.md"], ["-"], ["--root", "-x"], ["--root=-x"], ["-a.md"],
])
def test_everything_else_goes_to_argparse(argv):
    assert _plain_args(argv) is None


def test_parse_args_gives_argparse_help_and_errors():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exc:
        parse_args("frontmatter", ["--help"], "Check the frontmatter.")
    assert exc.value.code == 0 and "usage: skillsift hook frontmatter" in out.getvalue()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exc:
        parse_args("frontmatter", ["--format", "yaml"], "Check the frontmatter.")
    assert exc.value.code == 2 and "invalid choice: 'yaml'" in err.getvalue()
    assert parse_args("secrets", ["a.md", "--root", "r"], "d") == SimpleNamespace(
        files=["a.md"], root="r", config_file=None, fmt="text")


_TOKENS = st.sampled_from(["a.md", "b/SKILL.md", "", "-", "--", "-x", "-h", "--help", "--root", "--root=r", "--root=",
                           "--config", "--config=c.toml", "--format", "--format=json", "--format=bogus", "json",
                           "sarif", "--ro", "--forma", "--root=-x", ".", "x y", "--root=a=b", "-1"])


@settings(max_examples=800, deadline=None)
@given(st.lists(_TOKENS, max_size=7))
def test_the_plain_reader_never_disagrees_with_argparse(argv):
    plain = _plain_args(argv)
    if plain is not None:
        assert plain == _argparse(argv)

"""A one-shot command asks numpy for no huge pages (skillsift/blocks.py, ``small_pages``); the ``mcp`` server
and a program that imports skillsift keep numpy's setting."""

from __future__ import annotations

import sys

import pytest

import skillsift
from skillsift import blocks, cli


def _switch():
    try:
        from numpy._core import multiarray
    except ImportError:
        from numpy.core import multiarray
    return getattr(multiarray, "_set_madvise_hugepage", None)


@pytest.fixture
def numpy_setting():
    switch = _switch()
    if switch is None:
        pytest.fail("this numpy has no huge-page switch")
    before = switch(True)
    switch(True)
    yield switch
    switch(before)


def test_a_program_that_imports_skillsift_keeps_numpys_setting(numpy_setting):
    assert skillsift._one_shot is False
    assert blocks.small_pages() is False
    assert numpy_setting(True) is True  # (it returns the setting it replaces: still on)


def test_a_one_shot_command_turns_huge_pages_off(numpy_setting, monkeypatch):
    monkeypatch.setattr(skillsift, "_one_shot", True)
    assert blocks.small_pages() is True
    assert numpy_setting(True) is False


@pytest.mark.parametrize("argv,one_shot", [(["skillsift", "eval", "x"], True), (["skillsift", "mcp"], False),
                                           (["skillsift", "search", "q"], True)])
def test_the_console_script_says_which_run_is_one_shot(argv, one_shot, monkeypatch):
    seen = []

    class Group:
        @staticmethod
        def main(args):
            seen.append(skillsift._one_shot)
            return 0

    class Plain:
        @staticmethod
        def main(args):
            seen.append(skillsift._one_shot)
            return 0

    from types import SimpleNamespace

    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(skillsift, "_command_line", False)  # (restored: the console script sets it)
    monkeypatch.setattr(cli, "gc", SimpleNamespace(isenabled=lambda: False, get_freeze_count=lambda: 0))
    monkeypatch.setattr(cli, "_imported_quietly", lambda args: Group)
    monkeypatch.setattr(cli, "_group", lambda: Group)
    monkeypatch.setattr(cli, "_plain_run", lambda name: Plain)
    monkeypatch.setattr(cli, "_save_regexes", lambda: None)
    assert cli.main() == 0
    assert seen == [one_shot]
    assert skillsift._one_shot is False  # (back after the run)
    assert cli.main(argv[1:]) == 0 and seen[-1] is False  # called with arguments: a program, never one-shot

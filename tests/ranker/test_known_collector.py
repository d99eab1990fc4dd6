"""Reading the known requests under the command line's pause of the cyclic collector
(skillsift.catalog.collector_pause): the examples files are read and the requests deduplicated inside it,
with the same result as a library call, which leaves the collector alone; a bad file's error too."""

from __future__ import annotations

import pytest

import skillsift.catalog
from skillsift.diagnostics import SkillsiftError
from skillsift.ranker.known import load_examples_files

NAMES = ["deploy", "refund", "pdf"]


class _Recorded:
    made = 0
    open = 0

    def __init__(self):
        type(self).made += 1

    def __enter__(self):
        type(self).open += 1
        return self

    def __exit__(self, *exc):
        type(self).open -= 1


def _write(tmp_path, text: str) -> None:
    (tmp_path / "examples.yaml").write_text(text)


def test_examples_are_read_in_the_pause_and_read_the_same(tmp_path, monkeypatch):
    _write(tmp_path, "version: 1\ncases:\n" + "".join(
        f"- id: c{i}\n  query: request number {i}\n  expect: [{NAMES[i % 3]}]\n" for i in range(50)))
    monkeypatch.setattr("skillsift.casefile.files._PARSED", {})
    plain = load_examples_files(str(tmp_path), ["examples.yaml"], NAMES)
    monkeypatch.setattr("skillsift.casefile.files._PARSED", {})
    monkeypatch.setattr(skillsift.catalog, "collector_pause", _Recorded)
    paused = load_examples_files(str(tmp_path), ["examples.yaml"], NAMES)
    assert paused == plain and len(paused.requests) == 50
    assert _Recorded.made >= 1 and _Recorded.open == 0  # taken, and given back


def test_a_bad_file_is_the_same_error_in_the_pause(tmp_path, monkeypatch):
    _write(tmp_path, "version: 1\ncases:\n- id: a\n  query: q\n  expect: [nope]\n")
    with pytest.raises(SkillsiftError) as plain:
        load_examples_files(str(tmp_path), ["examples.yaml"], NAMES)
    monkeypatch.setattr(skillsift.catalog, "collector_pause", _Recorded)
    with pytest.raises(SkillsiftError) as paused:
        load_examples_files(str(tmp_path), ["examples.yaml"], NAMES)
    assert paused.value.message == plain.value.message and _Recorded.open == 0

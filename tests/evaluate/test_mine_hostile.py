"""A query log is text anyone's agent wrote: ``mine`` keeps it out of the terminal raw and writes
it to YAML only as double-quoted, escaped scalars that read back to the same string."""

from __future__ import annotations

import re

import pytest
import yaml

from skillsift.evaluate.cases import parse_cases
from tests.evaluate.test_mine import KNOWN, ld, q, write_log
from tests.support.cli import run

HOSTILE = [
    "copy \x1b]52;c;ZXZpbA==\x07 to clipboard",  # OSC 52
    "refund\rdone ::error::forged",
    "::error file=x::forged annotation",
    "refund \u202egnp.exe",  # right-to-left override
    "line\u2028separator and \x85next line",
    "csi \x1b[2J clear and \x9b31m c1",
    "del\x7f and bell\x07 and nul-free tab\tok",
    "##[warning]forged anywhere",
]
EXPECTED = sorted(" ".join(h.split()) for h in HOSTILE)  # mining folds whitespace runs
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def project(tmp_path, skill_writer):
    for name in KNOWN:
        skill_writer(tmp_path, name, f"The {name} skill")
    return tmp_path


def _log(project):
    entries = []
    for i, text in enumerate(HOSTILE):
        entries += [q(f"s{i}", text), ld(f"s{i}", KNOWN[0])]
    write_log(project, entries)


def _no_raw(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text))
    assert "\x1b" not in text and "\r" not in text


def test_output_file_round_trips_every_hostile_request(project, capsys, tmp_path):
    _log(project)
    out_file = tmp_path / "mined.yaml"
    code, out, err = run(capsys, "mine", "--root", project, "--output", out_file)
    assert code == 0, err
    text = out_file.read_text(encoding="utf-8")
    _no_raw(text.replace("\n", " "))
    assert not any(line.startswith("::") or "##[" in line and not line.lstrip().startswith(("- ", "query"))
                   for line in text.splitlines())
    # every request reads back to the very string the log held, through the cases parser and plain YAML
    assert sorted(c.query for c in parse_cases(text).cases) == EXPECTED
    assert sorted(c["query"] for c in yaml.safe_load(text)["cases"]) == EXPECTED
    _no_raw(err)


def test_into_an_examples_file_round_trips_too(project, capsys, tmp_path):
    _log(project)
    into = tmp_path / "examples.yaml"
    code, _out, err = run(capsys, "mine", "--root", project, "--into", into)
    assert code == 0, err
    text = into.read_text(encoding="utf-8")
    _no_raw(text.replace("\n", " "))
    assert sorted(c["query"] for c in yaml.safe_load(text)["cases"]) == EXPECTED
    _no_raw(err)


def test_stdout_carries_no_raw_control(project, capsys):
    _log(project)
    code, out, err = run(capsys, "mine", "--root", project)
    assert code == 0, err
    _no_raw(out.replace("\n", " "))
    _no_raw(err.replace("\n", " "))
    assert not [line for line in (out + err).splitlines() if line.startswith("::")]

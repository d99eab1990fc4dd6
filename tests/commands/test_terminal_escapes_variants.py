"""Terminal controls written into cases, frontmatter requests and queries never reach a terminal raw.

Varied from tests/commands/test_terminal_escapes.py: an OSC 52 clipboard write, a C1 CSI (U+009B), SGR and a
right-to-left override in a case query, in a frontmatter ``examples`` query (``eval --from-skills``) and in a
search query; through ``eval`` (text, ``--why``, hybrid), ``tune`` and ``search``.
"""

from __future__ import annotations

import pytest

from tests.support.cli import run

EVIL = "refund \\e]52;c;ZXZpbA==\\a the \\e[31mcustomer\\u202e \\x9b31m money back"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture
def evil_repo(acme):
    (acme / "evil-cases.yaml").write_text(
        'version: 1\ncases:\n  - id: e1\n    query: "' + EVIL + '"\n    expect: [csv-cleanup]\n'
        '  - id: e2\n    query: "roll back \\x9b31m the release"\n    expect: [rollback-release]\n', encoding="utf-8")
    skill = acme / ".claude/skills/csv-cleanup/SKILL.md"
    text = skill.read_text(encoding="utf-8")
    skill.write_text(text.replace("\n---\n", '\nexamples:\n  - "' + EVIL + '"\n---\n', 1), encoding="utf-8")
    return acme


@pytest.mark.parametrize("argv", [
    ("eval", "evil-cases.yaml"),
    ("eval", "evil-cases.yaml", "--mode", "hybrid", "--why"),
    ("eval", "--from-skills", "--mode", "hybrid"),
    ("tune", "evil-cases.yaml"),
    ("search", "refund \x1b]52;c;ZXZpbA==\x07 \x9b31m\u202e money back", "--mode", "hybrid", "--explain"),
])
def test_no_terminal_control_reaches_the_output(evil_repo, capsys, monkeypatch, argv):
    monkeypatch.chdir(evil_repo)
    code, out, err = run(capsys, *argv, "--root", evil_repo)
    assert code in (0, 1), out + err
    for raw in RAW:
        assert raw not in out and raw not in err, (argv, raw)
    assert out or err

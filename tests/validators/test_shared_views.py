"""``memoised`` computes a value of a text once per text object within ``shared_views`` (the runner's
scope), each time outside it, and forgets everything when the scope closes."""

from __future__ import annotations

from skillsift.checks.body import fences
from skillsift.checks.frontmatter import trigger_passages
from skillsift.validators.parsed import fenced_blocks, memoised, shared_views


def _counting():
    calls: list[str] = []

    def compute(text: str) -> str:
        calls.append(text)
        return text.upper()

    return calls, compute


def test_outside_the_scope_every_call_computes():
    calls, compute = _counting()
    text = "body text"
    assert memoised("upper", text, compute) == memoised("upper", text, compute) == "BODY TEXT"
    assert len(calls) == 2


def test_inside_the_scope_one_text_object_is_computed_once_per_kind():
    calls, compute = _counting()
    text = "".join(["body ", "text"])  # built, so equal strings below are other objects
    other = "".join(["body ", "text"])
    assert text == other and text is not other
    with shared_views():
        first = memoised("upper", text, compute)
        assert memoised("upper", text, compute) is first
        assert memoised("upper", other, compute) == first  # an equal text of its own: computed again
        assert memoised("lower", text, str.lower) == "body text"  # another kind: its own value
        with shared_views():  # a nested scope shares the outer one's values
            assert memoised("upper", text, compute) is first
        assert memoised("upper", text, compute) is first
    assert calls == [text, other]
    memoised("upper", text, compute)  # the scope closed: forgotten
    assert len(calls) == 3


def _blocks(body: str):
    blocks = fenced_blocks(body)
    return blocks.lines, blocks.opens, blocks.closes, blocks.unclosed


def test_the_shared_fence_views_equal_the_computed_ones():
    body = "intro\n```sh\nrun\n```\nWhen to use: nightly\n  ~~~\nopen\n"
    lines = body.split("\n")
    plain = (_blocks(body), fences(body)[1],
             trigger_passages(lines, 5), trigger_passages(lines, 5, body))
    with shared_views():
        for _ in range(2):
            shared = (_blocks(body), fences(body)[1],
                      trigger_passages(lines, 5), trigger_passages(lines, 5, body))
            assert shared == plain
    assert plain[0] == ([6, 16, 41], [6, 41], [16, len(body) + 1], 41)
    assert plain[1] == 5 and plain[2] == [(9, "When to use: nightly", "nightly")]


def test_the_workspace_asks_the_file_system_once_per_path(tmp_path, monkeypatch):
    """exists and is_file answer as os.path does (a file, a folder, a link to each, a broken link, a
    missing path, a NUL in the name), each path's status read once."""
    import os

    from skillsift.validators.workspace import Workspace

    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    for name, target in (("to-file", "file"), ("to-folder", "folder"), ("broken", "nowhere")):
        (tmp_path / name).symlink_to(tmp_path / target)
    ws = Workspace(tmp_path)
    paths = ["file", "folder", "to-file", "to-folder", "broken", "missing", "bad\0name"]
    for rel in paths:
        full = os.path.join(tmp_path, rel)
        assert (ws.exists(rel), ws.is_file(rel)) == (os.path.exists(full), os.path.isfile(full)), rel
    asked: list[str] = []
    real = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: asked.append(path) or real(path, *a, **k))
    assert ws.is_file("file") and ws.exists("folder") and not ws.is_file("folder")
    assert asked == []  # answered from the first look


def test_each_entry_of_the_mark_set_is_its_own_string():
    """A found entry of the marks' RE2 set is named by its string: no mark, word or trigger word is another's
    (the trigger words are matched with their folds, the words in ASCII case, the marks as written)."""
    from skillsift.validators import parsed

    assert len(set(parsed._ENTRIES)) == len(parsed._ENTRIES) == len(parsed.MARKS + parsed.WORDS + parsed.TRIGGER_WORDS)
    assert set(parsed._FOLDED_CHARACTERS) <= set(parsed.MARKS)


def test_trigger_words_from_the_mark_set(monkeypatch):
    """``trigger_words``: None with the substring tests; with the RE2 set, the trigger words a text holds in any
    case IGNORECASE matches (a long s for "s", a Kelvin sign for "k", a dotless i for "i"), and whether it holds
    a folding character."""
    from skillsift.validators import parsed
    from tests.support.set_gates import read_with_sets

    read_with_sets(monkeypatch, parsed.MARK_SETS, False)
    with shared_views():
        assert parsed.trigger_words("Use it when") is None
    read_with_sets(monkeypatch, parsed.MARK_SETS, True)
    with shared_views():
        assert parsed.trigger_words("WHEN to TRIGGER") == (["when to ", "trigger"], False)
        assert parsed.trigger_words("Use WHEN, when\tto, when, ſhould") == (["use when"], True)
        folded = "u\u017fe this s\u212aill, u\u017fe \u0131t "  # a long s, a Kelvin sign, a dotless i
        assert parsed.trigger_words(folded) == (["use this skill", "use it "], True)
        assert parsed.trigger_words("Activation") == (["activation"], False)
        assert parsed.trigger_words("wh en, trigge, use it") == ([], False)
        assert parsed.trigger_words("\u0130") == ([], True)

"""Property: no repository text can add, open or close an element of the job summary.

The summary of a ``skillsift ci`` run is rendered twice from the same run: once with every
piece of repository text (case ids and queries, skill names, descriptions in messages, file
paths, known requests, config values, notes) replaced by ``x``, once with random hostile
strings.  Both are parsed by GitHub's own cmark-gfm (tables, autolinks, tag filter, raw HTML
kept as written so any would show) and the sequence of elements must be the same: no raw
HTML node, link, image, emphasis or extra table cell comes from repository text, every table
keeps its shape and the ``<details>`` folds stay balanced.  The annotations printed for the
same findings carry no workflow command but skillsift's own.
"""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsift.diagnostics import ERROR, WARNING, Diagnostic
from skillsift.evaluate.compare import Comparison, RankChange
from skillsift.evaluate.gate_changes import GateChange
from skillsift.evaluate.gates import Flips
from skillsift.evaluate.outcomes import Side
from skillsift.evaluate.verdict import CiRun
from skillsift.render.diagnostics import render_github
from skillsift.render.pull_request import render_markdown
from skillsift.render.sanitise import plain_lines
from tests.support.runner import commands

# pieces of Markdown, HTML and workflow-command syntax, mixed with plain characters
PIECES = ["`", "``", "```", "\\", "|", "<", ">", "&", "*", "_", "~", "[", "]", "(", ")", "!", "#", "-", "+", ":",
          "/", " ", "\n", "\r", "\t", "=", '"', "'", "$", "@", ".", "1", "x", "é", "\u202e", "\x1b", "\x00",
          "</details>", "<details>", "<summary>", "<img src=x>", "<!--", "-->", "<![CDATA[", "<?php", "&lt;",
          "&#60;", "http://e.test", "www.e.test", "a@b.test", "::error::forged", "##[warning]", "%0A", "| --- |",
          "![i](https://e.test/i.png)", "[l](javascript:x)", "<https://e.test>", "***", "___", "\\`", "\\|"]
hostile = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), min_size=1, max_size=14).map("".join).filter(bool)
OPTIONS = Options.CMARK_OPT_UNSAFE  # raw HTML passes through as written: any that leaked would be seen


def _run(t) -> CiRun:
    """A run with every table and fold of the summary, its repository text from ``t`` (name -> text)."""
    side = Side(label="base", mode="lexical", k=5, cases=())
    regressed = RankChange(id=t["id1"], query=t["query1"], expected=(t["skill1"], t["skill2"]), before=1, after=None,
                           first_after=t["skill3"], line=3)
    fixed = RankChange(id=t["id2"], query=t["query2"], expected=(t["skill2"],), before=None, after=1, line=9)
    moved = RankChange(id=t["id3"], query=t["query1"], expected=(t["skill3"],), before=1, after=2, line=12)
    comparison = Comparison(base=side, head=side, flips=Flips(regressed=(regressed.id,)), regressed=(regressed,),
                            fixed=(fixed,), moved=(moved,), paired={}, common=3)
    findings = [
        Diagnostic(file=f"skills/{t['folder']}/SKILL.md", line=2, code="SK101", severity=ERROR,
                   message=f'name "{t["skill1"]}" {t["description"]}', hint=t["hint"]),
        Diagnostic(file=f"other/{t['folder']}/SKILL.md", line=4, code="SK009", severity=WARNING,
                   message=t["description"], hint=""),
    ]
    gate = [GateChange("config", f"roles.{t['role']}", t["value"], t["value2"], "changed"),
            GateChange("example", t["query2"], t["skill1"], t["skill2"], "request moved", line=5,
                       file=f"ex/{t['folder']}.yaml"),
            GateChange("case", t["id1"], t["skill1"], "", "removed", base_result="rank 1", line=4)]
    return CiRun(cases_path=f"{t['folder']}/cases.yaml", mode="lexical", k=5, comparison=comparison,
                 base_label="base 1a2b3c4", notes=[t["note"]], findings=findings, gate_changes=gate,
                 changed_files=frozenset({f"skills/{t['folder']}/SKILL.md"}))


KEYS = ("id1", "id2", "id3", "query1", "query2", "skill1", "skill2", "skill3", "folder", "description", "hint",
        "role", "value", "value2", "note")


class _Shape(HTMLParser):
    """The sequence of elements (start and end tags), text left out; comments and declarations kept."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.shape: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.shape.append(f"<{tag} {sorted(k for k, _ in attrs)}>")

    def handle_endtag(self, tag):
        self.shape.append(f"</{tag}>")

    def handle_comment(self, data):
        self.shape.append("<!--comment-->")

    def handle_decl(self, decl):
        self.shape.append("<!decl>")

    def handle_pi(self, data):
        self.shape.append("<?pi>")

    def unknown_decl(self, data):
        self.shape.append("<![cdata]>")


def shape(markdown: str) -> list[str]:
    parser = _Shape()
    parser.feed(cmarkgfm.github_flavored_markdown_to_html(markdown, options=OPTIONS))
    parser.close()
    return parser.shape


BENIGN = shape(render_markdown(_run(dict.fromkeys(KEYS, "x"))))


def test_the_benign_summary_has_every_table_and_fold():
    tags = set(BENIGN)
    assert {"<table []>", "<details []>", "</details>", "<code []>", "<blockquote []>"} <= tags
    assert BENIGN.count("<table []>") == 6  # metrics, gate changes, regressed, fixed, moved, two findings: one folded
    assert not any(t.startswith(("<img", "<a ", "<script", "<!")) for t in BENIGN)


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.fixed_dictionaries({key: hostile for key in KEYS}))
def test_hostile_repository_text_changes_no_element_of_the_summary(texts):
    run = _run(texts)
    markdown = render_markdown(run)
    assert shape(markdown) == BENIGN, markdown
    assert commands(plain_lines(markdown)) == []  # as `skillsift ci` prints it on a step's log
    assert "\x1b" not in markdown and "\x00" not in markdown and "\u202e" not in markdown
    log = render_github(run.findings)
    found = commands(log)
    assert [c.name for c in found] == ["error", "warning"], log
    assert found[0].props["title"] == "SK101" and found[1].props["title"] == "SK009"


class _Everything(_Shape):
    def __init__(self):
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data):
        self.text.append(data)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(hostile, hostile)
def test_html_text_is_text_in_an_element_and_in_an_attribute(text, value):
    from skillsift.render.sanitise import html_text, visible

    parser = _Everything()
    parser.feed(f'<td title="{html_text(value)}">{html_text(text)}</td>')
    parser.close()
    assert parser.shape == ["<td ['title']>", "</td>"]
    assert "".join(parser.text) == visible(text)

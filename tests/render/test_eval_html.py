"""``skillsift eval --format html``: one self-contained page (docs/evaluation.md, "The HTML report").

The page is checked as text for what it must never hold (a script, a link out, unescaped
repository text), and rendered by headless Chromium (Debian's ``chromium`` package, which
``.ci/run`` installs) to check what a reader sees.  Under ``CI=true`` a missing browser fails.
"""

from __future__ import annotations

import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from skillsift.render.evaluation_html import confusion
from tests.support.cli import run

CHROMIUM = Path("/usr/bin/chromium")
HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)> refund'


def _cases(root: Path) -> Path:
    text = (root / "search-cases.yaml").read_text(encoding="utf-8")
    extra = ("  - id: hostile-query\n"
             f"    query: {json_quote(HOSTILE)}\n"
             "    expect: [issue-refund]\n")
    path = root / "search-cases.yaml"
    path.write_text(text.replace("cases:\n", "cases:\n" + extra, 1), encoding="utf-8")
    return path


def json_quote(text: str) -> str:
    import json

    return json.dumps(text)


def _page(acme, capsys, *extra) -> str:
    cases = _cases(acme)
    report = acme / "report.html"
    code, out, err = run(capsys, "eval", cases, "--root", acme, "--format", "html", "--output", report, *extra)
    assert code in (0, 2), err
    assert out == "" and f"wrote {report}" in err
    return report.read_text(encoding="utf-8")


def test_the_page_loads_nothing_and_escapes_every_repository_text(acme, capsys):
    page = _page(acme, capsys)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    tags = re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>", page)
    assert {name.lower() for name, _ in tags} <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3",
                                                  "p", "span", "table", "tr", "th", "td"}
    assert not [attrs for _, attrs in tags if re.search(r"\b(src|href|on\w+)\s*=", attrs, re.I)]
    lowered = page.lower()
    for banned in ("http://", "https://", "url(", "@import"):
        assert banned not in lowered, banned
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;" in page
    # the same run gives the same bytes
    assert _page_again(acme, capsys) == page


def _page_again(acme, capsys) -> str:
    report = acme / "report.html"
    assert run(capsys, "eval", acme / "search-cases.yaml", "--root", acme, "--format", "html",
               "--output", report)[0] in (0, 2)
    return report.read_text(encoding="utf-8")


def test_the_confusion_view_counts_who_took_which_queries():
    from skillsift.evaluate.metrics import CaseResult

    def case(case_id, expected, got, rank):
        return CaseResult(id=case_id, query=case_id, expected=(expected,), got=tuple(got), rank=rank,
                          hit=rank is not None)

    cases = [case("a", "refund", ["rollback", "refund"], 2), case("b", "refund", ["rollback"], None),
             case("c", "deploy", ["deploy"], 1), case("d", "deploy", [], None), case("e", "alpha", ["zeta"], 3)]
    assert confusion(cases) == [("refund", "rollback", ["a", "b"]), ("alpha", "zeta", ["e"]),
                                ("deploy", "(nothing)", ["d"])]


class _Text(HTMLParser):
    """The text a reader sees (no head, no style) and the element names of the body."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.tags: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in ("head", "style", "script", "title"):
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag in ("head", "style", "script", "title") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)

    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def _chromium() -> Path:
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    if os.environ.get("CI") == "true":
        pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")


def _rendered_dom(page: Path, profile: Path) -> str:
    proc = subprocess.run(
        [str(_chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.slow  # a headless browser
def test_a_reader_sees_the_metrics_the_confusion_the_moves_and_every_rank(acme, capsys, tmp_path):
    chromium = _chromium()
    assert chromium.exists()
    cases = _cases(acme)
    assert run(capsys, "eval", cases, "--root", acme, "--output", acme / "base.json")[0] == 0
    skill = acme / ".claude/skills/issue-refund/SKILL.md"
    skill.write_text(re.sub(r"^description: .*$", "description: Handles an order's paperwork.",
                            skill.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")
    report = acme / "report.html"
    code, _out, err = run(capsys, "eval", cases, "--root", acme, "--baseline", acme / "base.json",
                          "--max-flips", "5", "--format", "html", "--output", report)
    assert code in (0, 2), err
    dom = _rendered_dom(report, tmp_path / "profile")
    reader = _Text()
    reader.feed(dom)
    text = reader.text()
    assert "script" not in reader.tags and "img" not in reader.tags  # the hostile query stayed text
    assert HOSTILE in text
    assert "skillsift eval: search-cases.yaml" in text or "search-cases.yaml" in text
    assert re.search(r"Result: (passed|gate failed) · 35 cases \(\+4 negative\) · k=5 · primary mode: lexical", text)
    assert re.search(r"top1 0\.\d{4} \(95% interval 0\.\d{4} to 0\.\d{4}\)", text)
    assert "Which skills take whose queries" in text and "ranked first instead" in text
    assert "Against the baseline" in text and re.search(r"\d+ cases? regressed", text)
    assert "Every case" in text and "lit-issue-refund" in text and "issue a partial refund for an order" in text
    assert "Negatives (nothing should match)" in text

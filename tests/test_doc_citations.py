"""What the code cites is in the repository: each ``docs/*.md`` file, and each section named
with it (``docs/vector-index.md, "Writing and the lock"``, ``README, "Exit codes"``)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "skillsift"
DOC_PATH = re.compile(r"docs/[A-Za-z0-9_./-]+?\.md\b")
SECTION = re.compile(r'(README|docs/[A-Za-z0-9_./-]+?\.md)[,:]? \(?"([^"\s][^"]*)"')
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.MULTILINE)
TERM = re.compile(r"\*\*([^*]+)\*\*")  # a term a page defines in bold ("- **Hard error** — ...")


def _sources() -> dict[Path, str]:
    """Each module's text with every run of white space made one space (a citation may wrap)."""
    return {path: " ".join(path.read_text(encoding="utf-8").split()) for path in sorted(PACKAGE.rglob("*.py"))}


def _cited_paths(text: str) -> set[str]:
    return set(DOC_PATH.findall(text))


def _cited_sections(text: str) -> set[tuple[str, str]]:
    return {("README.md" if where == "README" else where, title) for where, title in SECTION.findall(text)}


def _headings(path: Path) -> list[str]:
    """The page's headings and the terms it defines in bold."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)  # a "# comment" in a code block
    return [heading.replace("`", "") for heading in HEADING.findall(text) + TERM.findall(text)]


def test_the_patterns_read_citations():
    text = 'see docs/vector-index.md, "Writing and the lock"; docs/validate.md ("SK007") and README, "Exit codes".'
    assert _cited_paths(text) == {"docs/vector-index.md", "docs/validate.md"}
    assert _cited_sections(text) == {("docs/vector-index.md", "Writing and the lock"), ("docs/validate.md", "SK007"),
                                     ("README.md", "Exit codes")}


def test_every_cited_docs_page_exists():
    cited = {}
    for path, text in _sources().items():
        for doc in _cited_paths(text):
            cited.setdefault(doc, path.relative_to(ROOT).as_posix())
    assert len(cited) >= 10  # the code does cite its documentation
    missing = {doc: where for doc, where in cited.items() if not (ROOT / doc).is_file()}
    assert missing == {}


def test_every_cited_section_exists():
    wrong = []
    for path, text in _sources().items():
        for doc, title in sorted(_cited_sections(text)):
            target = ROOT / doc
            if not target.is_file() or not any(title in heading for heading in _headings(target)):
                wrong.append(f'{path.relative_to(ROOT).as_posix()}: {doc}, "{title}"')
    assert wrong == []


def test_no_citation_of_a_reference_outside_the_repository():
    cited = [f"{path.relative_to(ROOT).as_posix()}: {m.group(0)}" for path, text in _sources().items()
             for m in re.finditer(r"reference(?:'s)? §[\d.]+", text)]
    assert cited == []


def test_every_section_the_tests_the_docs_and_the_benchmarks_cite_exists():
    """The same rule for the sections cited outside the package (a page's links are tests/test_doc_links.py's):
    a page split, or a section moved to another page, leaves no citation behind."""
    paths = [path for path in sorted((ROOT / "tests").rglob("*.py")) if path.name != "test_doc_citations.py"]
    paths += sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "bench").rglob("*.md"))
    paths += sorted((ROOT / "bench").glob("*.py")) + [ROOT / "README.md"]
    wrong = []
    for path in paths:
        text = " ".join(path.read_text(encoding="utf-8").split())
        for doc, title in sorted(_cited_sections(text)):
            target = ROOT / doc
            if not target.is_file() or not any(title in heading for heading in _headings(target)):
                wrong.append(f'{path.relative_to(ROOT).as_posix()}: {doc}, "{title}"')
    assert wrong == []

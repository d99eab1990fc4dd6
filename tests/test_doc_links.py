"""Every relative link of the documentation resolves: the file exists, and a ``#section`` is a heading of it
(GitHub's anchors), so a page moved or split leaves no dead link behind."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#* *$")
FENCE = re.compile(r"^ *(```|~~~)")


def _pages() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "tests" / "README.md", ROOT / "bench" / "README.md"]
    for folder in ("docs", "bench/results"):
        found += sorted((ROOT / folder).rglob("*.md"))
    return [path for path in found if path.is_file()]


def _outside_code(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _outside_code(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def test_the_slug_is_githubs():
    assert slug("Why a case missed, and what to change: `--why`") == "why-a-case-missed-and-what-to-change---why"
    assert slug("AR001 — secrets") == "ar001--secrets"
    assert slug("`[search]`") == "search"


def test_every_relative_link_resolves():
    dead = []
    for page in _pages():
        for line in _outside_code(page.read_text(encoding="utf-8")):
            line = re.sub(r"`[^`]*`", "", line)  # a link written as code is an example
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # http(s), mailto: outside the repository
                file_part, _, anchor = target.partition("#")
                where = (page.parent / file_part).resolve() if file_part else page
                name = page.relative_to(ROOT).as_posix()
                if not where.exists():
                    dead.append(f"{name}: {target} (no such file)")
                elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                    dead.append(f"{name}: {target} (no such section)")
    assert dead == []


def test_the_docs_index_names_every_page():
    """docs/README.md (what GitHub shows for the folder) links each page of docs/, design notes included."""
    index = ROOT / "docs" / "README.md"
    linked = set()
    for line in _outside_code(index.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            linked.add((index.parent / target.partition("#")[0]).resolve())
    pages = {path.resolve() for path in (ROOT / "docs").rglob("*.md") if path != index}
    assert sorted(path.relative_to(ROOT).as_posix() for path in pages - linked) == []


def test_no_hand_written_page_is_over_400_lines():
    """A how-to or reference page stays short; history goes to docs/design/ and bench/results/
    (docs/development.md, "Documentation and benchmarks"). A generated page (it says "do not edit by
    hand" at its top) does not count, and neither do the generated blocks of a page between their markers."""
    long = {}
    for page in sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "bench").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if "do not edit by hand" in "".join(text.splitlines(keepends=True)[:8]):
            continue
        text = re.sub(r"^<!-- ([a-z-]+): generated.*?^<!-- \1: end -->", "", text, flags=re.MULTILINE | re.DOTALL)
        if len(text.splitlines()) > 400:
            long[page.relative_to(ROOT).as_posix()] = len(text.splitlines())
    assert long == {}

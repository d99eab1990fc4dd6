"""A second labelled development set, built at run time from real SKILL.md files.

    python bench/skills_devset.py [--corpora ../shared/corpora] [--summary]

The MetaTool split has tool descriptions and user queries; real skills are longer, named
by slugs, and their authors say in the body when a skill applies.  This set turns those
statements into queries for their own skill and ranks them among every skill of the
corpora.  Nothing of the corpora is copied into the repository: the set is rebuilt from
``../shared/corpora`` each run, deterministically, by the rules below.

1. Skills: every ``<repo>/<folder>/SKILL.md`` under the corpora root, in sorted
   (repo, folder) order, parsed with skillsift's own parser (files that do not parse are
   left out).  A name that repeats (several repositories ship the same skill) keeps its
   first occurrence in that order; the later ones are dropped from the catalog.
2. Queries, per skill, in document order, at most :data:`PER_SKILL`:
   a. the list items (``-``, ``*``, ``1.``) directly under each heading of the body that
      reads "When to use ...", "When to apply ..." (not "... vs ...", not "when not to"),
      up to the next heading, outside code fences, stopping at a line that starts a
      negative list ("Do not use", "Don't use", "Avoid", "Not for", "When not");
   b. body sentences that start with "Use when", "Use this skill when", "Use it when",
      "Invoke when", "Apply when", "Activate when", with that opening phrase removed;
   c. the frontmatter ``examples`` of the skill.
   Markdown is stripped (emphasis, code ticks, links keep their text), white space
   collapsed, a trailing ``:``/``.``/``;`` removed; a query keeps 3 to 40 words.
3. A query text that occurs for two skills is dropped for both (it cannot be labelled).
4. Out of what is ranked and embedded for that experiment: the body and the ``examples``
   of every skill are emptied (neither is ranked nor embedded by default anyway), and each
   sentence of a skill's description, and each of its triggers, that contains one of its
   own queries, or is contained in one, is removed (compared on lower-cased words).  So no
   query is found by its own text.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from harness import CORPORA

from skillsift.catalog.load import read_skill
from skillsift.catalog.skill import Skill

DEFAULT_CORPORA = CORPORA
PER_SKILL = 3
MIN_WORDS, MAX_WORDS = 3, 40

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_WHEN = re.compile(r"^when\s+to\s+(use|apply|invoke|activate)\b", re.I)
_NOT_WHEN = re.compile(r"\bvs\.?\b|\bversus\b|\bnot\b|\beach\b", re.I)
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,2}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_NEGATIVE = re.compile(r"^\W*(do not use|don't use|avoid|not for|when not|do not|don't)\b", re.I)
_USE_WHEN = re.compile(
    r"(?:^|(?<=[.!?])\s+)(?:use|invoke|apply|activate)(?: this skill| it| this)? when\b[,:]?\s+([^.!?\n]+)", re.I)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class DevCase:
    query: str
    skill: str
    source: str  # "when-to-use" | "use-when" | "examples"


@dataclass(frozen=True)
class DevSet:
    skills: tuple[Skill, ...]
    cases: tuple[DevCase, ...]
    dropped_duplicate_names: int
    dropped_ambiguous_queries: int
    stripped_description_sentences: int
    stripped_triggers: int

    def digest(self) -> str:
        """sha256 of the set (skills' ranked fields and the cases), to tell runs apart."""
        h = hashlib.sha256()
        for s in self.skills:
            h.update("\x1f".join([s.name, s.description, *s.triggers, "\x1e", *s.keywords]).encode() + b"\x1d")
        for c in self.cases:
            h.update(f"{c.query}\x1f{c.skill}\x1d".encode())
        return h.hexdigest()[:16]


def clean(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    text = re.sub(r"(?<!\w)[*_](\S[^*_]*?)[*_](?!\w)", r"\1", text)
    text = " ".join(text.split())
    return text.strip().rstrip(":.;,").strip()


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _keep(text: str) -> bool:
    n = len(text.split())
    return MIN_WORDS <= n <= MAX_WORDS


def _outside_fences(body: str) -> list[str]:
    lines, fenced = [], False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        lines.append("" if fenced else line)
    return lines


def queries_of(skill: Skill) -> list[tuple[str, str]]:
    """(query, source) of one skill, in document order, rules 2a-2c."""
    out: list[tuple[str, str]] = []
    lines = _outside_fences(skill.body or "")
    inside = False
    for line in lines:
        heading = _HEADING.match(line)
        if heading:
            title = clean(heading.group(2))
            inside = bool(_WHEN.match(title)) and not _NOT_WHEN.search(title)
            continue
        if not inside:
            continue
        if _NEGATIVE.match(clean(line)):
            inside = False
            continue
        item = _ITEM.match(line)
        if item:
            text = clean(item.group(1))
            if text and _keep(text):
                out.append((text, "when-to-use"))
    for line in lines:
        if _HEADING.match(line):
            continue
        for m in _USE_WHEN.finditer(line):
            text = clean(m.group(1))
            if _keep(text):
                out.append((text, "use-when"))
    for example in skill.examples:
        text = clean(example)
        if _keep(text):
            out.append((text, "examples"))
    seen, unique = set(), []
    for text, source in out:
        key = " ".join(_words(text))
        if key and key not in seen:
            seen.add(key)
            unique.append((text, source))
    return unique[:PER_SKILL]


def _sentences(text: str) -> list[str]:
    return [p for p in re.split(r"(?<=[.!?;])\s+", text) if p.strip()]


def _overlaps(piece: str, queries: list[str]) -> bool:
    key = " " + " ".join(_words(piece)) + " "
    if key.strip() == "":
        return False
    for q in queries:
        qk = " " + " ".join(_words(q)) + " "
        if qk in key or (len(key.split()) >= MIN_WORDS and key in qk):
            return True
    return False


def read_skills(corpora: Path) -> tuple[list[Skill], int]:
    skills, seen, dropped = [], set(), 0
    for path in sorted(corpora.glob("*/*/SKILL.md"), key=lambda p: (p.parent.parent.name, p.parent.name)):
        skill, _problems = read_skill(path, corpora)
        if skill is None or not skill.name:
            continue
        if skill.name in seen:
            dropped += 1
            continue
        seen.add(skill.name)
        skills.append(skill)
    return skills, dropped


def build(corpora: Path = DEFAULT_CORPORA) -> DevSet:
    """The development set of ``corpora`` (rules 1-4 of the module doc)."""
    skills, dup_names = read_skills(corpora)
    per_skill = {s.name: queries_of(s) for s in skills}
    owners: dict[str, set] = {}
    for name, qs in per_skill.items():
        for text, _source in qs:
            owners.setdefault(" ".join(_words(text)), set()).add(name)
    ambiguous = {k for k, v in owners.items() if len(v) > 1}
    cases, out_skills = [], []
    stripped_sentences = stripped_triggers = 0
    for s in skills:
        qs = [(t, src) for t, src in per_skill[s.name] if " ".join(_words(t)) not in ambiguous]
        texts = [t for t, _ in qs]
        sentences = _sentences(s.description)
        kept = [p for p in sentences if not _overlaps(p, texts)]
        triggers = tuple(t for t in s.triggers if not _overlaps(t, texts))
        stripped_sentences += len(sentences) - len(kept)
        stripped_triggers += len(s.triggers) - len(triggers)
        out_skills.append(replace(s, description=" ".join(kept), triggers=triggers, body="", examples=()))
        cases.extend(DevCase(t, s.name, src) for t, src in qs)
    dropped_ambiguous = sum(len(owners[k]) for k in ambiguous)
    return DevSet(tuple(out_skills), tuple(cases), dup_names, dropped_ambiguous, stripped_sentences,
                  stripped_triggers)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--show", type=int, default=0, help="print the first N cases")
    args = parser.parse_args(argv)
    if not args.corpora.is_dir():
        print(f"no corpora at {args.corpora}", file=sys.stderr)
        return 2
    ds = build(args.corpora)
    by_source: dict[str, int] = {}
    for c in ds.cases:
        by_source[c.source] = by_source.get(c.source, 0) + 1
    labelled = len({c.skill for c in ds.cases})
    print(f"{len(ds.skills)} skills ({ds.dropped_duplicate_names} repeated names dropped), {len(ds.cases)} cases "
          f"for {labelled} skills {by_source}; {ds.dropped_ambiguous_queries} ambiguous queries dropped; "
          f"{ds.stripped_description_sentences} description sentences and {ds.stripped_triggers} triggers "
          f"removed as leaks; digest {ds.digest()}")
    for c in ds.cases[: args.show]:
        print(f"  {c.skill:40s} {c.source:12s} {c.query}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

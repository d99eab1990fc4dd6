"""How the served skills stand against an index: current, drifted, stale, missing, orphaned.

* current — the index has a row for the skill with the digest of its present embedded
  text; among them *drifted* counts skills whose file digest changed while the embedded
  text did not (the vector is still valid);
* stale — a row exists but the embedded text changed;
* missing — no row;
* orphaned — a row whose (domain, id) is no longer served.

Known requests (example rows, docs/index-format.md) are counted apart: an example is
current when a row holds its skill and text digest; ``examples_missing`` counts the
configured requests without a row, ``examples_orphaned`` the rows no request needs any more.

:func:`classify` is pure and takes plain values; :func:`classify_skills` computes the
text digests of skills first.  No numpy here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog.embedtext import embedded_text, text_digest
from .manifest import EXAMPLE_KIND, ITEM_KIND, ManifestItem


@dataclass(frozen=True)
class Served:
    """A served skill as the classification sees it."""

    id: str
    domain: str = ""
    digest: str = ""  # the skill's file digest ("" = unknown, never drifted)
    text_digest: str = ""  # digest of its embedded text under the current settings


@dataclass(frozen=True)
class Classification:
    rows: int
    current: int = 0
    drifted: int = 0
    stale: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    orphaned: tuple[str, ...] = ()
    examples_current: int = 0
    examples_missing: int = 0
    examples_orphaned: int = 0

    @property
    def fresh(self) -> bool:
        """Every served skill and known request is current and no row is orphaned."""
        return not (self.stale or self.missing or self.orphaned or self.examples_missing or self.examples_orphaned)


def classify(index_items, served, examples=()) -> Classification:
    """Classify ``served`` skills against ``index_items`` (manifest items, in row order).

    ``examples``: the configured known requests as (skill name, text digest) pairs.  Lists
    are sorted; ids are listed as written (not domain-qualified).
    """
    rows: dict[tuple[str, str, str], ManifestItem] = {}
    indexed_examples: set[tuple[str, str]] = set()
    skill_items = []
    for item in index_items:
        if item.kind == EXAMPLE_KIND:
            indexed_examples.add((item.id, item.text_digest))
            continue
        skill_items.append(item)
        rows.setdefault((item.kind, item.domain, item.id), item)
    present = set()
    current = drifted = 0
    stale, missing = [], []
    for skill in served:
        key = (ITEM_KIND, skill.domain, skill.id)
        present.add(key)
        item = rows.get(key)
        if item is None:
            missing.append(skill.id)
        elif item.text_digest != skill.text_digest:
            stale.append(skill.id)
        else:
            current += 1
            if skill.digest and item.item_digest != skill.digest:
                drifted += 1
    orphaned = [item.id for item in skill_items if (item.kind, item.domain, item.id) not in present]
    wanted = set(examples)
    return Classification(
        rows=len(index_items),
        examples_current=len(wanted & indexed_examples),
        examples_missing=len(wanted - indexed_examples),
        examples_orphaned=len(indexed_examples - wanted),
        current=current,
        drifted=drifted,
        stale=tuple(sorted(stale)),
        missing=tuple(sorted(missing)),
        orphaned=tuple(sorted(orphaned)),
    )


def classify_skills(
    index_items, skills, *, fields=(), index_body: bool = False, body_chars: int = 0, examples=()
) -> Classification:
    """:func:`classify` for :class:`~skillsift.catalog.skill.Skill` objects under the given text settings."""

    served = [
        Served(
            id=skill.name,
            domain=skill.domain,
            digest=skill.digest,
            text_digest=text_digest(embedded_text(skill, fields, index_body, body_chars)),
        )
        for skill in skills
    ]
    return classify(index_items, served, examples)

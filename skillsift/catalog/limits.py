"""Ceilings on what one catalog may hold, so memory and time stay linear and bounded.

Every command reads the whole catalog, and the lexical index holds one entry per distinct
word: 50 MB of descriptions made of distinct words took 2.2 GB and minutes to search.
Two ceilings, each eight to sixteen times what the largest real catalog here needs (2,164
skills: 14.8 MB of SKILL.md files, 0.5 MB of ranked text, 6,027 distinct terms), refuse a
larger catalog with an error that names the size and the fix (docs/bounded-input.md,
"Catalog size"):

* :data:`MAX_CATALOG_BYTES`: the SKILL.md files found, added up, before any is read;
* :data:`MAX_RANKED_BYTES`: the ranked fields (name, triggers, keywords, description) of
  the skills read, added up (UTF-8), before anything is indexed or compared.
"""

from __future__ import annotations

import os

from skillsift.diagnostics import SkillsiftError

MAX_CATALOG_BYTES = 128 << 20
MAX_RANKED_BYTES = 8 << 20
HINT = ("keep descriptions to what an agent needs to choose (the specification allows 1,024 characters), or point "
        "[catalog] skills at the folders that hold this repository's skills (docs/bounded-input.md)")


class CatalogTooLarge(SkillsiftError):
    """The catalog is over a ceiling of this module: nothing is ranked or checked."""


def check_files_size(root, paths, stats) -> None:
    """Raise :class:`CatalogTooLarge` when the SKILL.md files ``paths`` (relative parts) add up to more
    than :data:`MAX_CATALOG_BYTES`; ``stats`` holds the sizes discovery already has."""
    total = 0
    for parts in paths:
        info = stats.get(parts)
        if info is None:
            try:
                info = os.stat(os.path.join(os.fspath(root), *parts))
            except OSError:
                continue
        total += info.st_size
        if total > MAX_CATALOG_BYTES:
            raise CatalogTooLarge(
                f"the SKILL.md files found hold more than {MAX_CATALOG_BYTES:,} bytes ({len(paths):,} files); "
                "skillsift reads at most that much of one catalog", hint=HINT)


def check_ranked_size(skills) -> None:
    """Raise :class:`CatalogTooLarge` when the ranked fields of ``skills`` add up to more than
    :data:`MAX_RANKED_BYTES` (UTF-8 bytes)."""
    total = 0
    for skill in skills:
        for value in (skill.name, skill.description, *skill.triggers, *skill.keywords):
            if value.__class__ is str:  # an ASCII text is as many bytes as characters: no encoding
                total += len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
        if total > MAX_RANKED_BYTES:
            raise CatalogTooLarge(
                f"the names, triggers, keywords and descriptions of the skills add up to more than "
                f"{MAX_RANKED_BYTES:,} bytes; skillsift ranks and checks at most that much text of one catalog",
                hint=HINT)

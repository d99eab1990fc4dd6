"""The skill model: what skillsift knows about one SKILL.md."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Skill:
    """One skill of the catalog.

    ``name`` is the catalog id (frontmatter ``name`` else the folder name); it is the
    key for ranking, evaluation and pinning.  ``domain`` is "" for root skills.
    ``digest`` is ``sha256:<hex>`` of the SKILL.md bytes (drift reporting only).
    ``path`` is the SKILL.md path relative to the repository root, with ``/``.
    ``frontmatter_line`` is the 1-based line of the first YAML line (0 when there is
    no frontmatter), so validators can turn YAML line numbers into file lines.
    """

    name: str
    description: str
    triggers: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    not_for: tuple[str, ...] = ()
    domain: str = ""
    body: str = ""
    path: str = ""
    dir_id: str = ""
    digest: str = ""
    frontmatter_line: int = 0
    frontmatter: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

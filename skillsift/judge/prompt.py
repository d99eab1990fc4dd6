"""The judge's prompt: the agent's listing, the request, a fixed instruction (docs/judge.md, "The prompt").

The listing is what :func:`~skillsift.catalog.listing.build_listing` says the agent reads, line
for line (:func:`~skillsift.catalog.listing.listing_lines`: full, truncated and name-only
entries, in the listing's order), minus the skills the secret scan withholds: a skill whose name
or listed fields hold a secret is left out of the text sent, and named in the report.  Nothing
else of the repository enters the prompt.  The template is versioned; its version is part of
every cache key, so a changed template asks again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..catalog.listing import build_listing, entry_text, listing_lines
from ..secrets.scan import detect_secret

TEMPLATE_VERSION = "judge-prompt.v1"

TEMPLATE = """You are an AI coding agent. These are the skills available to you, exactly as they are listed to you:

<skills>
{listing}
</skills>

The user's request:

<request>
{request}
</request>

Which one skill would you use for this request? Answer with the skill's name exactly as listed above, \
or with the word none if no listed skill fits. Write nothing else: no explanation, no punctuation.
"""


@dataclass(frozen=True)
class Withheld:
    name: str
    path: str
    kind: str  # the kind of secret found


@dataclass(frozen=True)
class JudgeListing:
    """The listing text one agent is sent, its digest and what it holds."""

    agent: str
    text: str
    names: tuple[str, ...]  # the names listed in ``text``, in order
    entries: dict  # name -> the line of its entry (the first, for a name two plugins share)
    withheld: tuple[Withheld, ...] = ()

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def judge_listing(skills, profile, context_window: int | None = None, secret_patterns=()) -> JudgeListing:
    """The listing ``profile`` builds of ``skills``, as text; a skill holding a secret is withheld."""

    listing = build_listing(skills, profile, context_window)
    lines: list[str] = []
    names: list[str] = []
    entries: dict[str, str] = {}
    withheld: list[Withheld] = []
    patterns = tuple(secret_patterns)
    for entry, skill, line in listing_lines(skills, profile, listing):
        front = skill.frontmatter if isinstance(skill.frontmatter, dict) else {}
        kind = detect_secret(entry.name + "\n" + entry_text(front, profile.entry_fields), patterns)
        if kind is not None:
            withheld.append(Withheld(entry.name, entry.path, kind))
            continue
        lines.append(line)
        names.append(entry.name)
        entries.setdefault(entry.name, line)
    return JudgeListing(agent=profile.name, text="\n".join(lines), names=tuple(names), entries=entries,
                        withheld=tuple(withheld))


def build_prompt(listing: JudgeListing, request: str) -> str:
    """The prompt of one case: the template filled with the listing and the request."""
    return TEMPLATE.format(listing=listing.text, request=request.strip())


def cache_key(command, agent: str, listing_digest: str, request: str) -> str:
    """sha256 over the command's argv, the agent profile, the template version, the listing digest and the
    request (each NUL-terminated; the argv joined by NUL too): what decides the agent's answer."""
    h = hashlib.sha256()
    for part in ("\0".join(command), agent, TEMPLATE_VERSION, listing_digest, request.strip()):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()

"""SK007 as it was computed before the entry texts were made once per set of fields and the agents'
folders asked only of an entry over a limit: kept word for word as the reference the faster
:func:`skillsift.checks.frontmatter.entry_limit_problems` is compared with
(tests/checks/test_frontmatter.py)."""

from __future__ import annotations

from skillsift.catalog.agents import BY_NAME, serves
from skillsift.checks.frontmatter import TOO_LONG, entry_text
from skillsift.diagnostics import Diagnostic


def entry_limit_problems(path: str, line: int, front: dict, limits: dict, plugin: str = "") -> list[Diagnostic]:
    """SK007, one per agent whose limit the skill's listing entry exceeds.

    A profiled agent measures its own entry (Claude Code: description plus ``when_to_use``)
    and says what it does past the limit (cut, or not loaded for Codex), and only counts when
    it reads the skill's folder; any other name in ``limits`` cuts the trimmed description.
    """

    out = []
    # An agent that does not read the skill's folder never lists it; when none of the
    # targeted agents does (a configured path), every one is checked.
    readers = {a for a in limits if a in BY_NAME and serves(BY_NAME[a], path, plugin)}
    for agent, limit in sorted(limits.items()):
        if not limit or (readers and agent in BY_NAME and agent not in readers):
            continue
        profile = BY_NAME.get(agent)
        fields = profile.entry_fields if profile is not None else ("description",)
        text = entry_text(front, fields)
        if len(text) <= limit:
            continue
        what = "description" if fields == ("description",) or not front.get("when_to_use") else (
            "description + when_to_use")
        verb = "are" if "+" in what else "is"
        if profile is not None and profile.description_max == limit and profile.entry_cap is None:
            message = (f"{what} {verb} {len(text)} characters; {agent} does not load a skill whose description "
                       f"is over {limit}")
            hint = f"cut the description by {len(text) - limit} characters, or {agent} never sees the skill"
        else:
            cut = " ".join(text[limit:].split())
            cut = cut if len(cut) <= 50 else cut[:49] + "…"
            message = f'{what} {verb} {len(text)} characters; {agent} keeps only the first {limit}, so "{cut}" is cut'
            hint = (f"cut {len(text) - limit} characters (what it does, then when to use it); move details into "
                    "the body")
        out.append(TOO_LONG.report(file=path, line=line, message=message, hint=hint))
    return out

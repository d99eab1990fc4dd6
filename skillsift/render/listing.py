"""What ``skillsift list`` prints: one agent's listing of the skills as a table or as JSON.

The ``list`` family of the renderer registry; the listing is a
:class:`~skillsift.catalog.listing.Listing` (``build_listing``).
"""

from __future__ import annotations

from .sanitise import json_text, plain, plain_lines


def render_listing_json(listing) -> str:
    """The listing document (``Listing.to_dict``) as JSON text."""
    return json_text(listing.to_dict())


def render_listing_text(listing, *, label: str = "") -> str:
    """The table of entries and the summary line of ``label`` (the agent), made safe for a terminal."""
    return plain_lines(listing_table(listing, label))


def listing_table(listing, label: str) -> str:
    """One row per entry (name, how it is listed, characters shown of the description, path), then the summary."""
    width = max([len(plain(e.name)) for e in listing.entries] + [4])
    lines = [f"{'NAME':<{width}}  {'LISTED':<10}  {'SHOWN':>5}/{'DESC':<5}  PATH"]
    reasons: dict[tuple[str, str], int] = {}
    for e in listing.entries:
        if e.reason:
            reasons[(e.listed, e.reason)] = reasons.get((e.listed, e.reason), 0) + 1
    for e in listing.entries:
        own = e.reason and reasons[(e.listed, e.reason)] == 1  # a reason many entries share is said once, below
        lines.append(f"{plain(e.name):<{width}}  {e.listed:<10}  {e.shown_chars:>5}/{e.description_chars:<5}  "
                     f"{plain(e.path)}" + (f"\n{'':<{width}}  {plain(e.reason)}" if own else ""))
    shared = [(state, reason, n) for (state, reason), n in reasons.items() if n > 1]
    if shared:
        lines.append("")
    for state, reason, n in shared:
        lines.append(f"{n} {state}: {plain(reason)}")
    budget = "no documented budget" if listing.budget_chars is None else f"budget {listing.budget_chars:,} characters"
    window = f", context window {listing.context_window:,} tokens" if listing.context_window else ""
    over = f", {listing.overflow:,} over before descriptions were dropped" if listing.overflow else ""
    counts: dict[str, int] = {}
    for e in listing.entries:
        counts[e.listed] = counts.get(e.listed, 0) + 1
    summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items())) or "no skill"
    lines.append("")
    lines.append(f"{label}: {summary}; used {listing.used_chars:,} characters, {budget}{window}{over}")
    return "\n".join(lines) + "\n"

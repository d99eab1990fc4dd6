"""What a report says of the view ranked (docs/views.md, "Views: what is ranked"). No I/O."""

from __future__ import annotations


def view_words(view: dict) -> str:
    """``listing (claude-code, context window 200,000 tokens)``: what a header says of a listing view."""
    window = f", context window {view['context_window']:,} tokens" if view.get("context_window") else ""
    return f"{view.get('name', 'listing')} ({view.get('agent', '')}{window})"


def header_view(result) -> str:
    """What the header line adds: "" in the full view (the report is what it was)."""
    if result.views:
        return ", view: full, " + ", ".join(sorted(result.views)) + " beside it"
    return f", view: {view_words(result.view)}" if result.view else ""


def _listing_words(view: dict) -> str:
    budget = view.get("budget_chars")
    used = f"{view.get('used_chars', 0):,} of {budget:,} characters" if budget else "no documented budget"
    window = f"context window {view['context_window']:,} tokens, " if view.get("context_window") else ""
    return f"what {view.get('agent', '')} lists ({window}{used})"


VIEWS_TITLE = ("views: the full view ranks every field; the listing view only what the agent lists "
               "(paired difference listing minus full, 95% bootstrap interval):")


def text_views(result, add, metric_rows) -> None:
    """The ``--view all`` section: per mode and metric, the full view, the listing view and their paired difference."""
    for name, other in sorted(result.views.items()):
        add("")
        add(VIEWS_TITLE)
        add(f"  {name}: {_listing_words(other.view or {})}")
        add(f"  {'':<10}{'':<12}{'full':<9}{name:<9}difference")
        for mode in result.report_modes():
            diffs = result.paired_views.get(mode, {})
            for label, key, get in metric_rows:
                if not key or key not in diffs:
                    continue
                d = diffs[key]
                full_v, view_v = get(result.by_mode[mode].metrics), get(other.by_mode[mode].metrics)
                add(f"  {mode:<10}{label:<12}{full_v:<9.4f}{view_v:<9.4f}{d.diff:+.4f}  "
                    f"({d.low:+.4f} to {d.high:+.4f})")

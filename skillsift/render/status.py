"""What ``skillsift status`` prints: the report of :func:`skillsift.index.status.status_report` as text or JSON.

The ``status`` family of the renderer registry.
"""

from __future__ import annotations

from .sanitise import json_text, plain_lines


def render_status_json(report: dict) -> str:
    """The report as JSON text (its keys in the report's order)."""
    return json_text(report)


def render_status_text(report: dict) -> str:
    """:func:`render_status`, each line made safe for a terminal."""
    return plain_lines(render_status(report))


def _kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def _line(label: str, value: str) -> str:
    return f"{label:<10} {value}".rstrip()


def render_status(report: dict) -> str:
    """The text form of a :func:`status_report` (ends with a newline)."""
    where = report["index_dir"] + ("  (committed location)" if report["committed"] else "")
    lines = [_line("index", where), _line("state", report["state"])]
    if report.get("reason"):
        lines.append(_line("reason", report["reason"]))
    lines.append(_line("mode", report["mode"]))
    model = report["model"] or "(none configured)"
    lines.append(_line("provider", f"{report['provider']}   model {model}   (config)"))
    if report["rows"] > 0:
        built_model = report.get("index_model") or "(none)"
        lines.append(_line("built with", f"{report.get('index_provider', '')}   model {built_model}   "
                                         f"{report['dims']} dims   {report['dtype']}   {report['rows']} rows   "
                                         f"{_kib(report['bytes'])}"))
    lines.append(_line("skills", f"{report['skills']} served   {report['current']} current   "
                                 f"{len(report['stale'])} changed   {len(report['missing'])} not indexed   "
                                 f"{len(report['orphaned'])} no longer served"))
    verified = report.get("verified")
    if verified and verified["ran"]:
        done = verified["checked"] + verified["remembered"]
        bad = verified["mismatched"]
        lines.append(_line("verified", f"{done} rows re-embedded and compared ({verified['remembered']} verified "
                                       f"before), {len(bad)} not the embedding of their text"))
        if bad:
            lines.append("not their embedding: " + ", ".join(bad))
    elif verified:
        lines.append(_line("verified", f"no ({verified['problem']})"))
    for row in report.get("refused", ()):
        what = "known request of" if row["kind"] == "example" else "skill"
        lines.append(f"refused: row {row['row']}, {what} {row['name']}: {row['reason']}")
    known = report.get("examples")
    if known and (known["configured"] or known["orphaned"]):
        lines.append(_line("examples", f"{known['configured']} known requests   {known['current']} current   "
                                       f"{known['missing']} not indexed   {known['orphaned']} no longer known"))
    if report["drifted"]:
        lines.append(_line("drift", f"{report['drifted']} current skills changed outside their embedded text "
                                    "(their vectors are still valid)"))
    for label, key in (("changed", "stale"), ("not indexed", "missing"), ("no longer served", "orphaned")):
        if report[key]:
            lines.append(f"{label}: " + ", ".join(report[key]))
    if report.get("hint"):
        lines.append(_line("next", report["hint"]))
    return "\n".join(lines) + "\n"

"""Reporters for diagnostics: text, JSON, GitHub workflow commands and SARIF 2.1.0.

Each renderer is a pure function from a list of :class:`~skillsift.diagnostics.Diagnostic`
(already sorted) to the text to print.

* ``text``: grouped by file, ``file:line: CODE message`` (a hint on the next line), then a
  one-line summary.
* ``json``: ``diagnostics.v1`` (schema shipped as ``skillsift/schemas/diagnostics.v1.json``).
* ``github``: ``::error file=F,line=L,col=C,title=CODE::message`` annotations.  GitHub
  shows at most 10 error and 10 warning annotations (and 10 notices) per step, so only
  that many of each are emitted, followed by a plain line saying how many were not
  annotated.  Data is escaped (``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``), and
  property values also escape ``:`` -> ``%3A`` and ``,`` -> ``%2C``
  (:mod:`skillsift.render.sanitise`, which also keeps every other line from being read as a
  workflow command).
* ``sarif``: a SARIF 2.1.0 log with one run, the registered checks as rules and
  ``%SRCROOT%``-relative artifact locations (a file outside the root gets no location).

Repository text is made safe for each sink by :mod:`skillsift.render.sanitise`: control
characters shown escaped in text, escaped in JSON, percent-encoded in workflow commands.
"""

from __future__ import annotations

from .._version import __version__
from ..config.checks import BY_CODE, CHECKS
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..secrets.scan import PATTERNS
from ..words import plural
from .json_indent import written
from .sanitise import command_data, command_property, json_text, json_writer, plain, sarif_uri

GITHUB_LIMIT = 10  # annotations of each kind GitHub shows per step
SCHEMA_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_GITHUB_COMMANDS = {ERROR: "error", WARNING: "warning", NOTE: "notice"}
_SARIF_LEVELS = {ERROR: "error", WARNING: "warning", NOTE: "note"}


def counts(diagnostics) -> dict[str, int]:
    out = {ERROR: 0, WARNING: 0, NOTE: 0}
    for diag in diagnostics:
        out[diag.severity] = out.get(diag.severity, 0) + 1
    return out


def summary_line(diagnostics, checked: int | None = None) -> str:
    """``2 errors, 1 warning in 2 files`` (``no problems found`` when empty)."""
    if not diagnostics:
        found = "no problems found"
    else:
        c = counts(diagnostics)
        parts = [plural(c[ERROR], "error"), plural(c[WARNING], "warning")]
        if c[NOTE]:
            parts.append(plural(c[NOTE], "note"))
        files = {d.file for d in diagnostics if d.file}
        found = ", ".join(parts) + (f" in {plural(len(files), 'file')}" if files else "")
    if checked is not None:
        found += f" ({plural(checked, 'skill')} checked)"
    return found


def render_text(diagnostics, *, checked: int | None = None) -> str:
    """Grouped by file (repository-level findings without a file first), then the summary.

    A hint shared by consecutive findings of one file and code (the lines of one invalid
    cases file) is printed once, under the last of them.
    """
    diagnostics = list(diagnostics)
    lines: list[str] = []
    current = None
    hints: dict[str, str] = {}  # a hint's line, made once (a check gives most of its findings one hint)
    last = len(diagnostics) - 1
    for i, diag in enumerate(diagnostics):
        file = diag.file
        if file != current:
            if current is not None:
                lines.append("")
            current = file
        suffix = "" if diag.severity == ERROR else f" ({diag.severity})"
        head = _rendered(diag) if type(diag) is Diagnostic else diag.render()
        # plain() returns most lines as they are: its test, without the call
        if not (head.isprintable() and "##[" not in head and not head.lstrip(" \t").startswith("::")):
            head = plain(head)
        lines.append(head + suffix)
        hint = diag.hint
        if not hint:
            continue
        following = diagnostics[i + 1] if i < last else None
        if following is not None and following.hint == hint and following.file == file and following.code == diag.code:
            continue  # shared with the next finding: printed under it
        line = hints.get(hint) if type(hint) is str else None
        if line is None:
            line = f"    hint: {plain(hint)}"
            if type(hint) is str:
                hints[hint] = line
        lines.append(line)
    if lines:
        lines.append("")
    lines.append(summary_line(diagnostics, checked))
    return "\n".join(lines) + "\n"


def _rendered(diag: Diagnostic) -> str:
    """``diag.render()`` of a :class:`~skillsift.diagnostics.Diagnostic`, its location made in one format."""
    file, line, message = diag.file, diag.line, diag.message
    if file and line:
        column = diag.column
        head = f"{file}:{line}:{column}: " if column else f"{file}:{line}: "
    else:
        head = f"{file}: " if file else ""
    return f"{head}{diag.code} {message}" if diag.code else f"{head}{message}"


def render_json(diagnostics, *, root: str = "", checked: int | None = None) -> str:
    """``diagnostics.v1`` JSON (2-space indent, final newline).

    The document is written without its findings, then each finding's text put together in the layout
    json_text gives it (as :func:`render_sarif` does; tests/render/test_sarif_text.py holds both to the
    document written whole).
    """
    diagnostics = list(diagnostics)
    doc = _json_report(diagnostics, [], root, checked)
    head = json_text(doc)
    at = head.find(_FINDINGS_MARK)  # (a string's line break is written \n: only the key itself matches)
    if not diagnostics or at < 0 or any(type(diag) is not Diagnostic for diag in diagnostics):
        return json_text(_json_report(diagnostics, [_json_item(diag) for diag in diagnostics], root, checked))
    try:
        findings = _findings_text(diagnostics)
    except Exception:  # noqa: BLE001 - a value json writes its own way: json_text decides, or raises
        return json_text(_json_report(diagnostics, [_json_item(diag) for diag in diagnostics], root, checked))
    return head[:at] + '\n  "diagnostics": ' + findings + head[at + len(_FINDINGS_MARK):]


_FINDINGS_MARK = '\n  "diagnostics": []'


def _json_item(diag) -> dict:
    item = diag.to_dict()
    check = BY_CODE.get(diag.code)
    if check is not None:
        item["name"] = check.name
    return item


def _json_report(diagnostics, items: list, root: str, checked: int | None) -> dict:
    c = counts(diagnostics)
    summary = {"errors": c[ERROR], "warnings": c[WARNING], "notes": c[NOTE],
               "files": len({d.file for d in diagnostics if d.file})}
    doc: dict[str, object] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "skillsift", "version": __version__},
        "summary": summary,
        "diagnostics": items,
    }
    if root:
        doc["root"] = root
    if checked is not None:
        summary["skills"] = checked
    return doc


def _findings_text(diagnostics) -> str:
    """The ``diagnostics`` list of the report as json_text writes it at its place (2 spaces in): each
    finding's :func:`_json_item` (its :meth:`~skillsift.diagnostics.Diagnostic.to_dict` and its check's name)."""
    n4 = "\n    "
    n6 = n4 + "  "

    string = json_writer()

    def value(item) -> str:
        return string(item) if type(item) is str else written(item, n6, string)

    items = []
    for diag in diagnostics:  # the keys are plain words: json writes them as they are
        parts = [f'"{key}": {value(item)}' for key, item in _json_item(diag).items()]
        items.append("{" + n6 + ("," + n6).join(parts) + n4 + "}")
    return "[" + n4 + ("," + n4).join(items) + "\n  ]"


# -- GitHub workflow commands ---------------------------------------------------------------------


escape_data = command_data  # the message of a workflow command
escape_property = command_property  # a property value (``file``, ``title``)


def github_command(diag) -> str:
    """One annotation: ``::error file=...,line=...,col=...,title=CODE::message``."""
    props = []
    if diag.file:
        props.append(f"file={escape_property(diag.file)}")
        if diag.line:
            props.append(f"line={diag.line}")
            if diag.column:
                props.append(f"col={diag.column}")
    props.append(f"title={escape_property(diag.code)}")
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    command = _GITHUB_COMMANDS.get(diag.severity, "error")
    return f"::{command} {','.join(props)}::{escape_data(message)}"


def render_github(diagnostics, *, limit: int = GITHUB_LIMIT) -> str:
    """At most ``limit`` annotations per severity, then a line on what was left out."""
    shown = {ERROR: 0, WARNING: 0, NOTE: 0}
    left = {ERROR: 0, WARNING: 0, NOTE: 0}
    lines = []
    for diag in diagnostics:
        severity = diag.severity if diag.severity in shown else ERROR
        if shown[severity] < limit:
            shown[severity] += 1
            lines.append(github_command(diag))
        else:
            left[severity] += 1
    if any(left.values()):
        parts = [plural(n, word) for n, word in ((left[ERROR], "error"), (left[WARNING], "warning"),
                                                  (left[NOTE], "note")) if n]
        lines.append(f"skillsift: {', '.join(parts)} not annotated (GitHub shows {limit} annotations of each "
                     "kind per step); run 'skillsift validate' for the full list")
    lines.append(summary_line(diagnostics))
    return "\n".join(lines) + "\n"


# -- SARIF 2.1.0 ----------------------------------------------------------------------------------


def _sub_rules(diagnostics, levels) -> list[tuple[str, dict]]:
    """One SARIF rule per secret kind reported (``AR001/<kind>``), with its help text, sorted."""

    known = {rule.kind: rule for rule in PATTERNS}
    out = []
    for code, kind in sorted({(d.code, d.rule) for d in diagnostics if d.rule and d.code == "AR001"}):
        rule = known.get(kind)
        label = rule.label if rule is not None else kind
        help_text = rule.help if rule is not None else (
            f'A match of the configured [secrets] pattern "{kind}". Remove the value and rotate it.')
        out.append((f"{code}/{kind}", {
            "id": f"{code}/{kind}",
            "name": f"secret-detected/{kind}",
            "shortDescription": {"text": f"secret in a skill: {label}"},
            "fullDescription": {"text": f"{label} found in a skill file; the excerpt is masked (docs/secrets.md)"},
            "help": {"text": help_text + " If it is not a secret, add `skillsift: allow-secret` to its line or "
                                         "accept it with 'skillsift validate --update-secrets-baseline'."},
            "defaultConfiguration": {"level": levels.get(code, "error")},
            "properties": {"tags": ["security", "secret"]},
        }))
    return out


def _sarif_rules(diagnostics) -> tuple[list[dict], dict[str, int]]:
    """The rules of a SARIF log (every registered check, then the secret kinds reported) and each one's index."""
    rules = []
    index = {}
    for position, check in enumerate(CHECKS):
        index[check.code] = position
        rules.append({
            "id": check.code,
            "name": check.name,
            "shortDescription": {"text": check.summary},
            "fullDescription": {"text": f"{check.summary} (checked in: {check.files})"},
            "defaultConfiguration": {"level": _SARIF_LEVELS[check.severity]},
            "properties": {"preset": check.preset},  # docs/validate.md, "Presets"
        })
    levels = {check.code: _SARIF_LEVELS[check.severity] for check in CHECKS}
    for rule_id, rule in _sub_rules(diagnostics, levels):
        index[rule_id] = len(rules)
        rules.append(rule)
    return rules, index


def _sarif(rules: list[dict], results: list[dict]) -> dict:
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "skillsift", "version": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _rule_id(diag, index) -> str:
    return f"{diag.code}/{diag.rule}" if diag.rule and f"{diag.code}/{diag.rule}" in index else diag.code


def _uri(file: str, uris: dict) -> str | None:
    """:func:`sarif_uri` of ``file``, made once per file (a skill has many findings)."""
    return uris[file] if file in uris else uris.setdefault(file, sarif_uri(file))


def sarif_log(diagnostics) -> dict:
    """A SARIF 2.1.0 log object."""

    rules, index = _sarif_rules(diagnostics)
    results = []
    uris: dict[str, str | None] = {}
    for diag in diagnostics:
        rule_id = _rule_id(diag, index)
        result: dict = {
            "ruleId": rule_id,
            "level": _SARIF_LEVELS.get(diag.severity, "error"),
            "message": {"text": diag.message},
        }
        if rule_id in index:
            result["ruleIndex"] = index[rule_id]
        uri = _uri(diag.file, uris) if diag.file else None
        if diag.file and uri is None:
            result["message"]["text"] = f"{diag.file}: {diag.message}"
        if uri is not None:
            physical: dict = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
            if diag.line:
                region = {"startLine": diag.line}
                if diag.column:
                    region["startColumn"] = diag.column
                physical["region"] = region
            result["locations"] = [{"physicalLocation": physical}]
        if diag.hint:
            result["properties"] = {"hint": diag.hint}
        results.append(result)
    return _sarif(rules, results)


_RESULTS_END = '"results": []\n    }\n  ]\n}\n'  # how json_text of a log without results ends


def render_sarif(diagnostics) -> str:
    """``json_text(sarif_log(diagnostics))``, each result written straight from its finding.

    A log of thousands of findings was mostly its results' dicts built and then written key by key;
    here the log is written without results and each result's text is put together in the one layout
    json_text gives it (tests/render/test_sarif_text.py holds the two to the same bytes).
    """
    diagnostics = list(diagnostics)
    rules, index = _sarif_rules(diagnostics)
    head = json_text(_sarif(rules, []))
    if not diagnostics or not head.endswith(_RESULTS_END):
        return json_text(sarif_log(diagnostics))
    try:
        results = _results_text(diagnostics, index)
    except Exception:  # noqa: BLE001 - a value json writes its own way: json_text decides, or raises
        return json_text(sarif_log(diagnostics))
    return head[: -len(_RESULTS_END)] + '"results": ' + results + "\n    }\n  ]\n}\n"


def _results_text(diagnostics, index: dict[str, int]) -> str:
    """The ``results`` list of a SARIF log as json_text writes it at its place (8 spaces in)."""
    string = json_writer()

    def value(item, newline: str) -> str:
        return string(item) if type(item) is str else written(item, newline, string)

    n8 = "\n        "
    n10, n12, n14, n16, n18 = (n8 + " " * k for k in (2, 4, 6, 8, 10))
    uris: dict[str, str | None] = {}
    items = []
    for diag in diagnostics:
        rule_id = _rule_id(diag, index)
        file, message = diag.file, diag.message
        uri = _uri(file, uris) if file else None
        if file and uri is None:
            message = f"{file}: {message}"
        level = _SARIF_LEVELS.get(diag.severity, "error")
        parts = [f'"ruleId": {value(rule_id, n10)}', f'"level": {value(level, n10)}',
                 f'"message": {{{n12}"text": {value(message, n12)}{n10}}}']
        if rule_id in index:
            parts.append(f'"ruleIndex": {value(index[rule_id], n10)}')
        if uri is not None:
            region = ""
            if diag.line:
                region = f",{n16}\"region\": {{{n18}\"startLine\": {value(diag.line, n18)}"
                if diag.column:
                    region += f",{n18}\"startColumn\": {value(diag.column, n18)}"
                region += n16 + "}"
            parts.append(f'"locations": [{n12}{{{n14}"physicalLocation": {{{n16}"artifactLocation": {{{n18}"uri": '
                         f'{value(uri, n18)},{n18}"uriBaseId": "%SRCROOT%"{n16}}}{region}{n14}}}{n12}}}{n10}]')
        if diag.hint:
            parts.append(f'"properties": {{{n12}"hint": {value(diag.hint, n12)}{n10}}}')
        items.append("{" + n10 + ("," + n10).join(parts) + n8 + "}")
    return "[" + n8 + ("," + n8).join(items) + "\n      ]"

"""The SARIF log written result by result, and JSON made safe string by string, against the ways they
replaced: ``json_text(sarif_log(...))``, and the whole text of ``json.dumps`` made safe at once."""

from __future__ import annotations

import json
import random
import re

from skillsift._version import __version__
from skillsift.config.checks import BY_CODE
from skillsift.diagnostics import Diagnostic
from skillsift.render.diagnostics import counts, render_json, render_sarif, sarif_log
from skillsift.render.sanitise import json_text
from skillsift.secrets.scan import PATTERNS

_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")


def _json_text_before(doc) -> str:
    """json_text as it was: json.dumps of the whole document, then one pass over all of its text."""
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text).replace("##[", "##\\u005b")


_TEXTS = ("", "plain", "caf\u00e9", "tab\there", 'quote " and \\ back', "line\nbreak", "bidi \u202e x",
          "del \x7f c1 \x85", "only del \x7f", "##[group]", "::error::x", "emoji \U0001f600", "\u2028sep", "bom \ufeff")
_FILES = ("", "a/SKILL.md", "a b/SKILL.md", "../outside.md", "/abs/SKILL.md", "C:/x.md", "dir/\u00e9.md",
          "a/\x1b[31m.md", "./a/../b.md", "a\\win.md", "%20/SKILL.md")


def _random_finding(rng: random.Random) -> Diagnostic:
    code = rng.choice(("SK001", "AR001", "SK015", "XX999", "AR9D0"))
    rule = rng.choice(("", "", PATTERNS[0].kind, "custom-kind")) if code == "AR001" else rng.choice(("", "r"))
    return Diagnostic(file=rng.choice(_FILES), line=rng.choice((None, 0, 1, 42, True)),
                      column=rng.choice((None, 0, 3)), code=code, message=rng.choice(_TEXTS) + rng.choice(_TEXTS),
                      severity=rng.choice(("error", "warning", "note", "odd")), hint=rng.choice(_TEXTS), rule=rule)


def test_sarif_written_by_result_is_the_log_written_whole():
    rng = random.Random(71)
    for _ in range(400):
        findings = [_random_finding(rng) for _ in range(rng.randint(0, 12))]
        assert render_sarif(findings) == json_text(sarif_log(findings)) == _json_text_before(sarif_log(findings))


def test_a_message_that_is_no_string_is_written_as_json_writes_it():
    findings = [Diagnostic(file="a/SKILL.md", line=2, code="SK001", message=12), Diagnostic(message=["x", {"y": 1}])]
    assert render_sarif(findings) == _json_text_before(sarif_log(findings))


def test_json_made_safe_by_string_is_json_made_safe_whole():
    rng = random.Random(72)
    for _ in range(300):
        findings = [_random_finding(rng) for _ in range(rng.randint(0, 8))]
        root = rng.choice(_TEXTS)
        assert render_json(findings, root=root, checked=3) == _json_text_before(
            json.loads(render_json(findings, root=root, checked=3)))
        doc = {rng.choice(_TEXTS): [rng.choice(_TEXTS), 1.5, None, True, {rng.choice(_TEXTS): rng.choice(_TEXTS)}]}
        assert json_text(doc) == _json_text_before(doc)
    odd = {"k": {1, 2}}  # a value json.dumps decides: its error, as before
    for write in (json_text, _json_text_before):
        try:
            write(odd)
        except TypeError as exc:
            assert "not JSON serializable" in str(exc)


def _render_json_before(diagnostics, *, root: str = "", checked=None) -> str:
    """render_json as it was: the report built as one document, written whole."""
    c = counts(diagnostics)
    items = []
    for diag in diagnostics:
        item = diag.to_dict()
        check = BY_CODE.get(diag.code)
        if check is not None:
            item["name"] = check.name
        items.append(item)
    summary = {"errors": c["error"], "warnings": c["warning"], "notes": c["note"],
               "files": len({d.file for d in diagnostics if d.file})}
    doc = {"schema_version": 1, "tool": {"name": "skillsift", "version": __version__}, "summary": summary,
           "diagnostics": items}
    if root:
        doc["root"] = root
    if checked is not None:
        summary["skills"] = checked
    return _json_text_before(doc)


class _Own(Diagnostic):
    def to_dict(self) -> dict:
        return {"own": self.code}


def test_json_written_by_finding_is_the_report_written_whole():
    rng = random.Random(73)
    for _ in range(400):
        findings = [_random_finding(rng) for _ in range(rng.randint(0, 12))]
        if findings and rng.random() < 0.05:
            findings.append(_Own(code="SK001"))
        root = rng.choice(_TEXTS + ('\n  "diagnostics": []',))
        checked = rng.choice((None, 0, 7))
        assert render_json(findings, root=root, checked=checked) == _render_json_before(findings, root=root,
                                                                                        checked=checked)

"""The JUnit XML renderer of an evaluation result: one test suite per mode, one test case per labelled case."""

from __future__ import annotations

import re

from ..evaluate.run import EvalResult, ModeResult
from .evaluation import _flips_line, _rank_text

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return _XML_INVALID.sub("\ufffd", text)


def _suite_stem(result: EvalResult) -> str:
    import os

    base = os.path.basename(result.cases_path or "cases")
    for ext in (".yaml", ".yml"):
        if base.endswith(ext):
            return base[: -len(ext)] or "cases"
    return base or "cases"


def render_junit(result: EvalResult) -> str:
    """One test suite per mode, one test case per labelled case (negatives included).

    A miss or an avoided skill ranked first is a ``<failure>`` carrying the query, the
    expected skills and what ranked; a case whose ranking fell back to lexical is an
    ``<error>`` (it measured nothing).  Gate failures go to the primary suite's
    ``<system-err>``.
    """
    import xml.etree.ElementTree as ET

    stem = _suite_stem(result)
    root = ET.Element("testsuites", name=f"skillsift eval {stem}")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for mode in result.report_modes():
        mr = result.by_mode[mode]
        suite = ET.SubElement(root, "testsuite", name=f"{stem} ({mode})")
        props = ET.SubElement(suite, "properties")
        pairs = [("mode", mode), ("primary", str(mode == result.mode).lower()), ("k", str(result.k))]
        pairs += [(n, str(v)) for n, v in mr.metrics.to_dict().items()]
        for name, value in pairs:
            ET.SubElement(props, "property", name=name, value=value)
        counts = _junit_cases(suite, mr, f"{stem}.{mode}", result.k)
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", str(counts["errors"]))
        suite.set("skipped", "0")
        suite.set("time", "0")
        for key in totals:
            totals[key] += counts[key]
        if mode == result.mode and (result.gate_failures or result.flips is not None):
            lines = list(result.gate_failures)
            if result.flips is not None:
                lines.append(_flips_line(result.flips))
            ET.SubElement(suite, "system-err").text = _x("\n".join(lines))
    for key, total in totals.items():
        root.set(key, str(total))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _degraded_error(tc, reason: str, detail: str):
    import xml.etree.ElementTree as ET

    el = ET.SubElement(tc, "error", type="degraded", message=f"ranking fell back to lexical ({reason})")
    el.text = _x(detail)


def _junit_cases(suite, mr: ModeResult, classname: str, k: int) -> dict:
    import xml.etree.ElementTree as ET

    counts = {"tests": 0, "failures": 0, "errors": 0}
    for c in mr.cases:
        counts["tests"] += 1
        tc = ET.SubElement(suite, "testcase", classname=classname, name=_x(c.id), time="0")
        detail = (f"query: {c.query}\nexpected: {', '.join(c.expected)}\n"
                  f"got (top {k}): {', '.join(c.got) or 'nothing'}\nrank: {_rank_text(c.rank)}")
        if c.degraded:
            counts["errors"] += 1
            _degraded_error(tc, c.degraded, detail)
        elif not c.hit or c.avoid_violated:
            counts["failures"] += 1
            if not c.hit:
                message = f"expected {', '.join(c.expected)} in the top {k}, got [{', '.join(c.got)}] " \
                          f"({_rank_text(c.rank)})"
                kind = "miss"
            else:
                message = f"avoided skill {c.got[0]} ranked first"
                kind = "avoided-first"
            el = ET.SubElement(tc, "failure", type=kind, message=_x(message))
            el.text = _x(detail)
    for n in mr.negatives:
        counts["tests"] += 1
        tc = ET.SubElement(suite, "testcase", classname=classname, name=_x(n.id), time="0")
        detail = (f"query: {n.query}\nexpected: nothing\navoid: {', '.join(n.avoid) or '-'}\n"
                  f"ranked first: {n.top or 'nothing'}")
        if n.degraded:
            counts["errors"] += 1
            _degraded_error(tc, n.degraded, detail)
        elif n.avoid_violated:
            counts["failures"] += 1
            message = _x(f"avoided skill {n.top} ranked first")
            el = ET.SubElement(tc, "failure", type="avoided-first", message=message)
            el.text = _x(detail)
    return counts

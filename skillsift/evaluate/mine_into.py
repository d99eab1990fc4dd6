"""``skillsift mine --into FILE``: merge newly mined, labelled requests into an examples file.

Pure (text in, text out; the command reads and writes).  The rules (docs/query-mining.md,
"Into an examples file"):

* the file, when it exists, must be a valid cases file (read strictly, AR9D2);
* a mined request whose normalised text (:func:`skillsift.ranker.examples.normalised`)
  is already in the file, under any skill, or came earlier in this run, is a duplicate
  and is left out; so is one whose id the file already uses;
* a request in which the secrets scanner finds a credential is never written;
* at most ``cap`` requests per skill: requests past a skill's cap (counting the file's
  own) are dropped, and a note names the skill and how many;
* the new requests are appended after the file's cases, in the order they were mined;
  the file's own bytes (comments included) are kept when its ``cases`` list is a block
  list at the end of the file, else the file is written again in the cases-file layout
  (a note says so);
* nothing new: the file is left as it is, so a run over the same log changes no byte.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..docschema.yaml_nodes import compose
from ..ranker.examples import normalised
from .cases import Case, parse_cases
from .cases_yaml import cases_to_yaml

DEFAULT_CAP = 20
HEADER = ("Known requests mined from the search query log by 'skillsift mine --into'.\n"
          "Each query is labelled with the skill its session loaded next: review the diff before committing.")


@dataclass
class Merged:
    text: str | None  # the new file text, or None when nothing changes
    added: list[Case] = field(default_factory=list)
    duplicates: int = 0
    secrets: int = 0
    capped: dict[str, int] = field(default_factory=dict)  # skill -> requests dropped by the cap
    rewritten: bool = False  # the file was written again in the cases-file layout

    def notes(self, path: str, cap: int) -> list[str]:
        out = [f"{path}: {len(self.added)} new known requests, {self.duplicates} already known, "
               f"{self.secrets} holding a secret left out"]
        for skill, n in sorted(self.capped.items()):
            out.append(f"{path}: dropped {n} requests of {skill}: at most {cap} per skill (--max-per-skill)")
        if self.rewritten:
            out.append(f"{path}: its cases list is not a block list at the end of the file, so the file was "
                       "written again in the cases-file layout (comments inside it are not kept)")
        return out


def merge_into(existing: str | None, mined: Sequence[Case], *, cap: int = DEFAULT_CAP,
               scan: Callable[[str], str | None] | None = None, path: str = "<examples>") -> Merged:
    """Merge ``mined`` cases into the examples file text ``existing`` (None: no file yet)."""

    old = parse_cases(existing, path, "examples").cases if existing is not None else ()
    seen = {normalised(c.query) for c in old}
    ids = {c.id for c in old}
    per_skill: dict[str, int] = {}
    for c in old:
        for name in c.expect_ids:
            per_skill[name] = per_skill.get(name, 0) + 1
    out = Merged(text=None)
    for case in mined:
        key = normalised(case.query)
        if not key or key in seen or case.id in ids:
            out.duplicates += 1
            continue
        if scan is not None and scan(case.query):
            out.secrets += 1
            continue
        skills = case.expect_ids
        if any(per_skill.get(name, 0) >= cap for name in skills):
            for name in skills:
                if per_skill.get(name, 0) >= cap:
                    out.capped[name] = out.capped.get(name, 0) + 1
            continue
        seen.add(key)
        ids.add(case.id)
        for name in skills:
            per_skill[name] = per_skill.get(name, 0) + 1
        out.added.append(case)
    if not out.added:
        return out
    if existing is None:
        out.text = cases_to_yaml(out.added, header=HEADER)
        return out
    appended = _append(existing, out.added, path)
    if appended is None:
        out.rewritten = True
        file = parse_cases(existing, path, "examples")
        out.text = cases_to_yaml([*file.cases, *out.added], file.k, header=_leading_comments(existing))
    else:
        out.text = appended
    return out


def _append(existing: str, cases: Sequence[Case], path: str) -> str | None:
    """``existing`` with ``cases`` appended to its block ``cases`` list, or None when it cannot be."""
    import yaml

    try:
        root = compose(existing)[0]  # the strict reader's loader (the text already parsed as a valid file)
    except yaml.YAMLError:
        return None
    if not isinstance(root, yaml.MappingNode):
        return None
    node = next((v for k, v in root.value if getattr(k, "value", None) == "cases"), None)
    if not isinstance(node, yaml.SequenceNode) or node.flow_style or not node.value:
        return None
    if root.value[-1][1] is not node:  # another key follows the list
        return None
    lines = existing.splitlines()
    first = node.value[0].start_mark
    dash = lines[first.line].rfind("-", 0, first.column)
    if dash < 0:
        return None
    body = cases_to_yaml(cases).split("cases:\n", 1)[1]
    shift = dash - 2  # cases_to_yaml puts the dash at column 2
    if shift < 0:
        body = "".join(line[-shift:] + "\n" for line in body.splitlines())
    elif shift > 0:
        body = "".join(" " * shift + line + "\n" for line in body.splitlines())
    text = existing if existing.endswith("\n") else existing + "\n"
    merged = text + body
    parse_cases(merged, path, "examples")  # the result must read back as a valid file
    return merged


def _leading_comments(text: str) -> str:
    out = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        out.append(line[1:].lstrip())
    return "\n".join(out)

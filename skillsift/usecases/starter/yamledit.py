"""skillsift's entries added to YAML files people wrote, as text (pure).

The way pre-commit's own ``autoupdate`` edits ``rev:``: the file is read with PyYAML's composer,
which knows where each value starts and ends, and only those places change — a ``rev:`` value
replaced, a hook or a ``repos:`` item (a workflow job) inserted after the last line of its list.
Every other byte, comment and order stays.  The result is parsed again and must equal the file's
data with exactly skillsift's entries added or updated; when it does not, or when the file holds
what a text edit cannot handle safely (tabs, carriage returns, several documents, anchors and
aliases, flow-style lists, no ``repos:`` list), :class:`Unsafe` says why and the file is left as
it is (docs/init.md, "Merging into your files").
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

import yaml

from .snippets import (
    action_name,
    hook_lines,
    release_tag,
    repo_entry_lines,
    repository_url,
    snippet_hooks,
    workflow_job_lines,
)

MAX_CHARS = 1 << 18  # a larger file is not edited
MAX_DEPTH = 64  # nor one whose lists and mappings nest deeper (in flow style)


def _flow_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` (quotes not heeded: an overestimate only makes a file unsafe)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


class Unsafe(Exception):
    """The file cannot be edited as text safely; ``str()`` says why."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def _compose(text: str):
    if len(text) > MAX_CHARS:
        raise Unsafe(f"it is larger than {MAX_CHARS:,} characters")
    if "\r" in text or re.search(r"^[ ]*\t", text, re.M):
        raise Unsafe("it has carriage returns or tabs in its indentation")
    if _flow_depth(text) > MAX_DEPTH:  # PyYAML's time grows with the square of the nesting
        raise Unsafe("it nests too deeply")
    try:
        documents = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise Unsafe("it uses YAML anchors or aliases")
            tag = getattr(event, "tag", None)
            if isinstance(event, yaml.NodeEvent) and tag and tag != "!":
                raise Unsafe("it uses YAML tags")
            documents += isinstance(event, yaml.DocumentStartEvent)
        if documents != 1:
            raise Unsafe("it does not hold exactly one YAML document")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise Unsafe(f"it does not parse as YAML{where}") from None
    except RecursionError:
        raise Unsafe("it nests too deeply") from None
    if not isinstance(node, yaml.MappingNode) or node.flow_style or not isinstance(data, dict):
        raise Unsafe("its top level is not a block mapping")
    return node, data


def _get(mapping, key: str):
    for key_node, value_node in mapping.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value_node
    return None


def _block_list(node, what: str):
    if not isinstance(node, yaml.SequenceNode) or node.flow_style or not node.value:
        raise Unsafe(f"{what} is not a block list with at least one item")
    for item in node.value:
        if not isinstance(item, yaml.MappingNode) or item.flow_style:
            raise Unsafe(f"an item of {what} is not a block mapping")
    return node


def _block_mapping(node, what: str):
    if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
        raise Unsafe(f"{what} is not a block mapping with at least one entry")
    return node


def _end_line(text: str, node) -> int:
    """The 0-based line holding the last character of ``node``'s content."""
    last = node.start_mark.index
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, yaml.ScalarNode):
            end = cur.end_mark.index
            while end > cur.start_mark.index and text[end - 1] in " \n":
                end -= 1
            last = max(last, end - 1)
        elif isinstance(cur, yaml.SequenceNode):
            stack.extend(cur.value)
        elif isinstance(cur, yaml.MappingNode):
            for key_node, value_node in cur.value:
                stack += [key_node, value_node]
    return text.count("\n", 0, max(last, 0))


def _after_line(text: str, line: int, lines: list[str]) -> Edit:
    """Insert ``lines`` after the 0-based ``line`` of ``text``."""
    pos = 0
    for _ in range(line + 1):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return Edit(len(text), len(text), "\n" + "\n".join(lines) + "\n")
        pos = nxt + 1
    return Edit(pos, pos, "\n".join(lines) + "\n")


def _dash(text: str, seq) -> int:
    mark = seq.start_mark
    if text[mark.index:mark.index + 1] != "-":
        raise Unsafe("a list's first item does not start with '-'")
    return mark.column


def _replace(node, value: str) -> Edit:
    quote = node.style if node.style in ("'", '"') else ""
    return Edit(node.start_mark.index, node.end_mark.index, f"{quote}{value}{quote}")


def _apply(text: str, edits: list[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[:edit.start] + edit.text + text[edit.end:]
    return text


def _checked(text: str, edits: list[Edit], expected) -> str:
    new = _apply(text, edits)
    if new != text:
        try:
            got = yaml.safe_load(new)
        except (yaml.YAMLError, RecursionError):
            got = None
        if got != expected:
            raise Unsafe("an edit as text would change more than skillsift's entries")
    return new


def _is_skillsift(item: dict, ours: set[str]) -> bool:
    repo = str(item.get("repo", ""))
    if repo in ("local", "meta"):
        return False
    url = repo.rstrip("/").removesuffix(".git")
    hooks = item.get("hooks")
    ids = {hook.get("id") for hook in hooks if isinstance(hook, dict)} if isinstance(hooks, list) else set()
    return url == repository_url() or url.endswith("/skillsift") or bool(ids & ours)


def merge_pre_commit(text: str, *, index: bool) -> str:
    """``text`` (a ``.pre-commit-config.yaml``) with skillsift's repository entry: added at the end of
    ``repos:``, or, when there is one, its ``rev:`` set to this version's tag and its missing hooks
    added after the last.  Raises :class:`Unsafe`."""
    node, data = _compose(text)
    repos = _block_list(_get(node, "repos"), "repos")
    hooks = snippet_hooks(index=index)
    wanted = yaml.safe_load("repos:\n" + "\n".join(repo_entry_lines(2, index=index)))["repos"][0]
    expected = copy.deepcopy(data)
    position = next((i for i, item in enumerate(data["repos"])
                     if isinstance(item, dict) and _is_skillsift(item, {h.id for h in hooks})), None)
    if position is None:
        expected["repos"].append(wanted)
        dash = _dash(text, repos)
        step = max(2, repos.value[0].start_mark.column - dash)
        edit = _after_line(text, _end_line(text, repos), repo_entry_lines(dash, index=index, step=step))
        return _checked(text, [edit], expected)
    item_node, entry = repos.value[position], expected["repos"][position]
    edits = []
    rev = _get(item_node, "rev")
    if not isinstance(rev, yaml.ScalarNode):
        raise Unsafe("skillsift's entry has no rev: value")
    if rev.value != release_tag():
        edits.append(_replace(rev, release_tag()))
        entry["rev"] = release_tag()
    repo = _get(item_node, "repo")
    if isinstance(repo, yaml.ScalarNode) and "OWNER" in repo.value:
        edits.append(_replace(repo, repository_url()))
        entry["repo"] = repository_url()
    hook_list = _block_list(_get(item_node, "hooks"), "skillsift's hooks")
    have = {hook.get("id") for hook in entry["hooks"] if isinstance(hook, dict)}
    missing = [hook for hook in hooks if hook.id not in have]
    if missing:
        dash = _dash(text, hook_list)
        edits.append(_after_line(text, _end_line(text, hook_list), [line for hook in missing
                                                                     for line in hook_lines(hook, dash)]))
        entry["hooks"] += [hook for hook in wanted["hooks"] if hook["id"] not in have]
    return _checked(text, edits, expected)


_ACTION = re.compile(r"([\w.-]+/skillsift)@(\S+)")


def merge_workflow(text: str, cases: str, *, extras: str = "") -> str:
    """``text`` (a GitHub workflow) with skillsift's Action: a step using it gets this version's tag;
    without one, the ``skillsift`` job is added at the end of ``jobs:``.  Raises :class:`Unsafe`."""
    node, data = _compose(text)
    jobs = _block_mapping(_get(node, "jobs"), "jobs")
    expected = copy.deepcopy(data)
    edits = []
    for (_key, job), job_data in zip(jobs.value, expected["jobs"].values(), strict=False):
        steps = _get(job, "steps") if isinstance(job, yaml.MappingNode) else None
        if not isinstance(steps, yaml.SequenceNode):
            continue
        for step, step_data in zip(steps.value, job_data.get("steps") or [], strict=False):
            uses = _get(step, "uses") if isinstance(step, yaml.MappingNode) else None
            match = _ACTION.fullmatch(uses.value) if isinstance(uses, yaml.ScalarNode) else None
            if match is None or uses is None:
                continue
            name = action_name() if match.group(1) == "OWNER/skillsift" else match.group(1)
            value = f"{name}@{release_tag()}"
            if value != uses.value:
                edits.append(_replace(uses, value))
                step_data["uses"] = value
    if edits or any(_ACTION.fullmatch(str(step.get("uses", ""))) for job in data["jobs"].values()
                    if isinstance(job, dict) for step in job.get("steps") or [] if isinstance(step, dict)):
        return _checked(text, edits, expected)
    if "skillsift" in data["jobs"]:
        raise Unsafe("it has a skillsift job that uses no skillsift Action")
    lines = workflow_job_lines(cases, jobs.value[0][0].start_mark.column, extras=extras)
    expected["jobs"]["skillsift"] = yaml.safe_load("\n".join(workflow_job_lines(cases, 0, extras=extras)))["skillsift"]
    return _checked(text, [_after_line(text, _end_line(text, jobs), lines)], expected)

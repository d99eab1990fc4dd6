"""SK201-SK204: the frontmatter fields an agent defines, checked against that agent's own rules.

The rules are data in the agent profiles (:data:`skillsift.catalog.agents.CLAUDE_CODE_FIELD_RULES`,
from Claude Code's skills reference); an agent's rules apply to a skill when the agent is
targeted (``[validate] agents``) and reads the skill's folder (every targeted agent for a
folder none of them reads, as SK007 does).  A field valid for one agent is never "unknown"
for another: SK105 knows every targeted agent's fields.

"""

from __future__ import annotations

import re

from ..catalog.agents import BY_NAME, serves
from ..config.checks import check
from ..diagnostics import NOTE, WARNING, Diagnostic
from ..validators.parsed import parsed_skills
from ..validators.text_cache import cached, save
from ..validators.workspace import Workspace
from .frontmatter import value_kind

INVALID = check("SK201", "agent-field-invalid", WARNING, triggers=("skill", "config"),
                summary="a field an agent defines holds a value it accepts (booleans not strings, known levels, "
                        "models, hooks)",
                details="A field holds a value the agent does not accept: the string ``'true'`` for a boolean, an "
                        "effort or shell outside its levels, ``context`` other than ``fork``, ``paths`` as a "
                        "mapping, an unknown model, hooks that are not a mapping of known events to lists.")
IGNORED = check("SK202", "agent-field-ignored", WARNING, triggers=("skill", "config"),
                summary="a field that needs another (agent needs context: fork) has it, else the agent ignores it",
                details="``agent`` without ``context: fork``: the agent ignores it.")
FORK_NO_TASK = check("SK203", "fork-without-task", WARNING, triggers=("skill", "config"),
                     summary="a context: fork skill's body gives the subagent a task",
                     details="``context: fork`` whose body gives no task: the forked subagent gets no prompt.")
UNKNOWN_TOOL = check("SK204", "unknown-tool", NOTE, triggers=("skill", "config"),
                     summary="allowed-tools / disallowed-tools name tools the agent has",
                     details="``allowed-tools`` / ``disallowed-tools`` names a tool the agent does not have.")
#: Words a ``context: fork`` body needs at least to count as a task.
MIN_TASK_WORDS = 8
_TOOL = re.compile(r"^([A-Za-z_][\w.-]*)(\(.*\))?$")
_BOOL_STRINGS = {"true", "false", "yes", "no", "on", "off"}


def tool_names(value) -> list[str] | None:
    """The tool entries of an ``allowed-tools`` value (a space/comma separated string or a list), else None."""
    if isinstance(value, str):
        # split on commas and blanks outside parentheses: "Bash(git add:*) Read"
        out, depth, cur = [], 0, ""
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            if depth == 0 and (char.isspace() or char == ","):
                if cur:
                    out.append(cur)
                cur = ""
            else:
                cur += char
        if cur:
            out.append(cur)
        return out
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    return None


def _bool_problem(_rule, value) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().lower() in _BOOL_STRINGS:
        return f'is the string "{value}", not a boolean'
    return f"must be true or false, not {value_kind(value)}"


def _string_problem(_rule, value) -> str | None:
    return None if isinstance(value, str) else f"must be a string, not {value_kind(value)}"


def _choice_problem(rule, value) -> str | None:
    if isinstance(value, str) and value.strip() in rule.choices:
        return None
    shown = f'"{value}"' if isinstance(value, str) else value_kind(value)
    return f"is {shown}; it must be one of {', '.join(rule.choices)}"


def _string_or_list_problem(_rule, value) -> str | None:
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return None
    return f"must be a string or a list of strings, not {value_kind(value)}"


def _model_problem(rule, value) -> str | None:
    if isinstance(value, str) and (value.strip() in rule.choices or re.fullmatch(rule.pattern, value.strip())):
        return None
    shown = f'"{value}"' if isinstance(value, str) else value_kind(value)
    return f"is {shown}, not a model alias ({', '.join(rule.choices[:6])}) or a claude-... model id"


def _hooks_problem(rule, value) -> str | None:
    if not isinstance(value, dict):
        return f"must be a mapping of hook events to lists of hooks, not {value_kind(value)}"
    unknown = sorted(str(k) for k in value if str(k) not in rule.choices)
    if unknown:
        return f"names unknown hook event {', '.join(unknown[:3])} (events: {', '.join(rule.choices[:6])}, ...)"
    bad = sorted(str(k) for k, v in value.items() if not isinstance(v, list))
    if bad:
        return f"event {bad[0]} must hold a list of matchers with their hooks"
    return None


def _tools_problem(_rule, value) -> str | None:
    return None if tool_names(value) is not None else (
        f"must be a space-separated string or a list of tool names, not {value_kind(value)}")


# rule kind -> why a value breaks a rule of that kind (None when it is fine)
_PROBLEMS = {
    "bool": _bool_problem,
    "string": _string_problem,
    "choice": _choice_problem,
    "string-or-list": _string_or_list_problem,
    "model": _model_problem,
    "hooks": _hooks_problem,
    "tools": _tools_problem,
}


def _problem(rule, value) -> str | None:
    """Why ``value`` breaks ``rule`` (None when it is fine); tools are :func:`_unknown_tools`' business."""
    handler = _PROBLEMS.get(rule.kind)
    return handler(rule, value) if handler is not None else None


def _unknown_tools(rule, value) -> list[str]:
    names = tool_names(value) or []
    out = []
    for entry in names:
        match = _TOOL.match(entry)
        base = match.group(1) if match else entry
        if base in rule.choices or (rule.pattern and re.fullmatch(rule.pattern, base)):
            continue
        out.append(entry)
    return out


_HINTS = {
    "bool": "write it unquoted: `{field}: true` (or false)",
    "string": "write one line of text: `{field}: \"...\"`",
    "choice": "use one of the values named",
    "string-or-list": "write a string or a YAML list: `{field}: [\"src/**/*.py\"]`",
    "model": "use an alias (`model: sonnet`) or a full model id, or remove the field to use the session's model",
    "hooks": "write `hooks: {{PreToolUse: [{{matcher: Bash, hooks: [{{type: command, command: ...}}]}}]}}`",
    "tools": "write `{field}: Read Grep Bash(git status:*)` or a YAML list of tool names",
}


def body_words(body: str) -> int:
    """Words of the body outside headings and blank lines (a rough measure of an instruction)."""
    words = 0
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            words += len(stripped.split())
    return words


def check_fields(parsed, rules, agent: str) -> list[Diagnostic]:
    """SK201-SK204 of one parsed SKILL.md against one agent's ``rules``."""
    front, path = parsed.front, parsed.path
    out: list[Diagnostic] = []
    for rule in rules:
        if rule.field not in front:
            continue
        value = front[rule.field]
        line = parsed.line(rule.field)
        problem = _problem(rule, value)
        if problem:
            out.append(INVALID.report(file=path, line=line,
                                  message=f"{rule.field} {problem}; {agent} does not read it as meant",
                                  hint=_HINTS.get(rule.kind, "fix the value").format(field=rule.field)))
            continue
        if rule.kind == "tools":
            unknown = _unknown_tools(rule, value)
            if unknown:
                out.append(UNKNOWN_TOOL.report(
                    file=path, line=line,
                    message=f"{rule.field} names {', '.join(unknown[:4])}, not a tool {agent} has",
                    hint=f"tool names are case-sensitive: {', '.join(rule.choices[:8])}, ... or mcp__<server>__<tool>"))
        if rule.requires is not None:
            other, wanted = rule.requires
            if front.get(other) != wanted:
                out.append(IGNORED.report(
                    file=path, line=line,
                    message=f"{rule.field} is set but {other} is not {wanted}, so {agent} ignores it",
                    hint=f"add `{other}: {wanted}`, or remove `{rule.field}`"))
    if any(rule.field == "context" for rule in rules) and front.get("context") == "fork" and (
            body_words(parsed.body) < MIN_TASK_WORDS):
        out.append(FORK_NO_TASK.report(
            file=path, line=parsed.line("context"),
            message=f"context: fork runs the body as the subagent's task, but the body gives none "
                    f"({body_words(parsed.body)} words)",
            hint="write the task in the body (what to do, step by step, and what to return), or drop `context: fork`"))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    targeted = [BY_NAME[name] for name in ws.settings.agents if name in BY_NAME]
    with_rules = [agent for agent in targeted if agent.field_rules]
    out: list[Diagnostic] = []
    if not with_rules:
        return out
    # a rule is read only for a field the frontmatter sets (SK203's too: "context"), so a skill setting
    # none of these has no finding whichever agents read it (most set a name and a description alone)
    fields = frozenset(rule.field for agent in with_rules for rule in agent.field_rules)
    for parsed in parsed_skills(ws, paths):
        if fields.isdisjoint(parsed.front):
            continue
        # the agents that read the skill's folder; every targeted one for a folder none of them reads
        readers = [a for a in targeted if serves(a, parsed.path, ws.discovery.plugins.get(parsed.path, ""))]
        agents = [a for a in readers if a.field_rules] if readers else with_rules
        out.extend(cached(ws, "agent_fields", parsed, lambda p, agents=agents: [
            d for agent in agents for d in check_fields(p, agent.field_rules, agent.name)],
            extra=[a.name for a in agents]))
    save(ws)
    return out

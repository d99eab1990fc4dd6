"""SK205: a ``context: fork`` skill whose body holds guidelines but no task.

With ``context: fork`` Claude Code runs the skill in a subagent whose prompt is the skill's body.
Its documentation warns that this only makes sense for a skill with explicit instructions: a body
of guidelines ("use these API conventions") gives the subagent no actionable prompt, and it returns
without a meaningful result (code.claude.com/docs/en/skills, "Run skills in a subagent").  SK203
(:mod:`.agent_fields`) reports a body of almost no words; this check reads a longer body for a task.
"""

from __future__ import annotations

import re

from ..catalog.agents import BY_NAME
from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.parsed import outside_code, parsed_skills
from ..validators.workspace import Workspace
from .agent_fields import MIN_TASK_WORDS, body_words

GUIDELINES_ONLY = check("SK205", "fork-guidelines-only", WARNING, triggers=("skill", "config"),
                        summary="a context: fork skill's body states a task (steps, an imperative, $ARGUMENTS), "
                                "not only guidelines",
                        details="``context: fork`` with a body of at least 8 words (fewer is SK203) in which "
                                "nothing reads as a task: no numbered step, no ``$ARGUMENTS``, no heading such as "
                                "\"Task\", \"Steps\" or \"Instructions\", and no line that starts with a task verb "
                                "(analyze, find, review, summarize, write, run, ...; \"use\", \"prefer\", "
                                "\"avoid\" and \"follow\" are guidelines). The subagent gets the guidelines as its "
                                "prompt and nothing to do (code.claude.com/docs/en/skills, \"Run skills in a "
                                "subagent\").")
_TASK_VERBS = (
    "analyze|analyse|research|investigate|find|search|locate|summarize|summarise|review|audit|explore|generate|"
    "create|write|draft|build|implement|fix|run|execute|produce|return|report|list|identify|collect|gather|"
    "compare|evaluate|assess|check|verify|test|migrate|refactor|prepare|compile|scan|inspect|determine|trace|map|"
    "read|fetch|extract|convert|translate|update|add|remove|delete|deploy|install|document|plan|design|debug|"
    "diagnose|measure|count|answer|explain|describe|output|open|look|go|start|begin|do|make|get|give|tell|ask|"
    "propose|suggest|recommend|rank|score|triage|categorize|classify|parse|validate|lint|format|commit|push|"
    "fill|complete|resolve|investigate|study|examine|determine|calculate|estimate|monitor|clean|setup|set")
_TASK_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+|>[ \t]*)?(?:\*\*|__)?(?:first,?\s+|then,?\s+|next,?\s+|please\s+|"
                        r"your (?:task|job|goal) is\b|you (?:will|must|should)\s+)?(?:" + _TASK_VERBS + r")\b",
                        re.IGNORECASE)
_STEP = re.compile(r"^[ \t]*(?:\d{1,3}[.)]|step[ \t]+\d)\s", re.IGNORECASE)
_TASK_HEADING = re.compile(r"^[ \t]*#{1,6}[^\w\n]*(?:(?:the|your|main)\s+)?(?:tasks?|steps?|instructions?|"
                           r"workflow|process|procedure|what to do|how to (?:run|use)|usage|goal|objective|job|"
                           r"phase|mission)\b", re.IGNORECASE)
_ARGUMENTS = re.compile(r"\$ARGUMENTS\b|\$\d\b")


def has_task(body: str) -> bool:
    """True when some line outside code reads as a task (see the module's docstring)."""
    if "$" in body and _ARGUMENTS.search(body):
        return True
    for _offset, _number, line in outside_code(body):
        if _STEP.match(line) or _TASK_HEADING.match(line) or _TASK_LINE.match(line):
            return True
    return False


def check_fork(parsed) -> list[Diagnostic]:
    """SK205 of one parsed SKILL.md."""
    if parsed.front.get("context") != "fork" or body_words(parsed.body) < MIN_TASK_WORDS or has_task(parsed.body):
        return []
    return [GUIDELINES_ONLY.report(
        file=parsed.path, line=parsed.line("context"),
        message="context: fork gives the body to a subagent as its task, but the body holds guidelines and no task: "
                "the subagent has nothing to do",
        hint="state the task in the body (what to do, step by step, and what to return), or drop `context: fork` "
             "so the guidelines join the main conversation")]


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    if not any(name in BY_NAME and any(rule.field == "context" for rule in BY_NAME[name].field_rules)
               for name in ws.settings.agents):
        return []  # no targeted agent reads context: fork
    out: list[Diagnostic] = []
    for parsed in parsed_skills(ws, paths):
        out.extend(check_fork(parsed))
    return out

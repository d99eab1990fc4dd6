"""Agent against ranker, case by case and over the set (docs/judge.md, "The report").  Pure.

Per case: the ranker's first skill, the agent's choice (a listed skill, ``none``, or no choice
with its reason) and where the answer came from.  Over the cases the agent answered (a skill or
none):

* ``agent_top1``: the share of positive cases whose choice is an expected skill;
* ``ranker_top1``: the share of the same cases whose first ranked skill is an expected one;
* ``agreement``: the share of every answered case (negatives too) where the two pick the same
  skill, or both pick nothing;

each with the 95% bootstrap interval of ``skillsift eval`` (:mod:`skillsift.evaluate.intervals`),
and the paired difference agent minus ranker.  Cases with no answer are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..evaluate.intervals import interval, paired
from ..evaluate.metrics import round4
from .answer import CHOSEN, NO_CHOICE, Answer

SCHEMA_VERSION = 1
CACHED, ASKED, MISSING, NOT_ASKED, WITHHELD = "cache", "asked", "missing", "not-asked", "withheld"


@dataclass(frozen=True)
class Row:
    id: str
    query: str
    expected: tuple[str, ...]  # () for a negative case
    ranker_first: str  # "" when the ranker ranked nothing
    answer: Answer
    source: str  # cache | asked | missing | not-asked | withheld

    @property
    def agent_choice(self) -> str:
        return self.answer.choice if self.answer.status == CHOSEN else ""

    @property
    def agrees(self) -> bool:
        return self.answer.answered and self.agent_choice == self.ranker_first

    def to_dict(self) -> dict:
        return {"id": self.id, "query": self.query, "expected": list(self.expected), "ranker_first": self.ranker_first,
                "agent": self.answer.status, "agent_choice": self.agent_choice, "reason": self.answer.reason,
                "answer": self.answer.text, "source": self.source,
                "agent_right": self.agent_right, "ranker_right": self.ranker_right}

    @property
    def agent_right(self) -> bool | None:
        """For an answered positive case: the agent chose an expected skill; None otherwise."""
        if not self.expected or not self.answer.answered:
            return None
        return self.agent_choice in self.expected

    @property
    def ranker_right(self) -> bool | None:
        if not self.expected:
            return None
        return self.ranker_first in self.expected


@dataclass(frozen=True)
class Figure:
    value: float | None
    n: int
    low: float | None = None
    high: float | None = None

    def to_dict(self) -> dict:
        return {"value": self.value, "n": self.n, "ci95": None if self.low is None else
                {"low": self.low, "high": self.high}}


def figure(values: list[float]) -> Figure:
    if not values:
        return Figure(None, 0)

    iv = interval(values)
    return Figure(round4(sum(values) / len(values)), len(values), iv.low, iv.high)


@dataclass
class JudgeReport:
    agent: str
    command: str  # argv[0] of the command (its arguments stay out of reports)
    template: str
    listing_digest: str
    rows: list[Row]
    withheld: list[dict] = field(default_factory=list)  # skills kept out of the listing sent
    entries: dict = field(default_factory=dict)  # name -> its listing line, for the disagreements
    calls: int = 0  # calls made this run
    limits: list[str] = field(default_factory=list)  # what stopped calls (budget, time, CI, network)
    cache: str = ""  # where answers are kept
    mode: str = ""
    view: str = "full"

    # -- figures ---------------------------------------------------------------------------------
    def answered(self) -> list[Row]:
        return [row for row in self.rows if row.answer.answered]

    def figures(self) -> dict[str, Figure]:
        answered = self.answered()
        positive = [row for row in answered if row.expected]
        return {"agent_top1": figure([1.0 if row.agent_right else 0.0 for row in positive]),
                "ranker_top1": figure([1.0 if row.ranker_right else 0.0 for row in positive]),
                "agreement": figure([1.0 if row.agrees else 0.0 for row in answered])}

    def paired(self) -> dict | None:
        """agent_top1 minus ranker_top1 over the same cases, with its interval."""

        positive = [row for row in self.answered() if row.expected]
        if not positive:
            return None
        diff = paired({"top1": [1.0 if row.ranker_right else 0.0 for row in positive]},
                      {"top1": [1.0 if row.agent_right else 0.0 for row in positive]}).get("top1")
        return diff.to_dict() if diff is not None else None

    def disagreements(self) -> list[Row]:
        return [row for row in self.answered() if not row.agrees]

    def counts(self) -> dict[str, int]:
        out = {"cases": len(self.rows), "answered": len(self.answered()),
               "no_choice": sum(1 for r in self.rows if r.answer.status == NO_CHOICE and r.source in (CACHED, ASKED)),
               "missing": sum(1 for r in self.rows if r.source in (MISSING, NOT_ASKED)),
               "withheld_requests": sum(1 for r in self.rows if r.source == WITHHELD)}
        return out

    def entry(self, name: str) -> str:
        if not name:
            return "(nothing)"
        return self.entries.get(name, "(not in the listing sent)")

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "agent": self.agent, "command": self.command,
                "template": self.template, "listing_digest": self.listing_digest, "mode": self.mode,
                "view": self.view, "cache": self.cache, "calls": self.calls, "limits": list(self.limits),
                "counts": self.counts(),
                "figures": {name: fig.to_dict() for name, fig in self.figures().items()},
                "paired_top1": self.paired(),
                "withheld": list(self.withheld),
                "cases": [row.to_dict() for row in self.rows],
                "disagreements": [{"id": row.id, "ranker_first": row.ranker_first,
                                   "ranker_entry": self.entry(row.ranker_first),
                                   "agent_choice": row.agent_choice, "agent_entry": self.entry(row.agent_choice)}
                                  for row in self.disagreements()]}


@dataclass(frozen=True)
class JudgeFlips:
    """Cases the agent chose right on the base and not on the head (docs/judge.md, "The gate")."""

    regressed: tuple[str, ...]  # right on the base, answered wrong on the head
    fixed: tuple[str, ...]  # wrong on the base, right on the head
    unknown: tuple[str, ...]  # right on the base, no answer on the head
    base_unanswered: int = 0  # positive cases with no base answer (not compared)


def judge_flips(base: list[Row], head: list[Row]) -> JudgeFlips:
    """Compare the agent's choices case by case (by id; positive cases in both)."""
    by_id = {row.id: row for row in base}
    regressed, fixed, unknown = [], [], []
    base_unanswered = 0
    for row in head:
        before = by_id.get(row.id)
        if before is None or not row.expected:
            continue
        was = before.agent_right
        now = row.agent_right
        if was is None:
            base_unanswered += 1
            if now:
                fixed.append(row.id)
            continue
        if was and now is None:
            unknown.append(row.id)
        elif was and not now:
            regressed.append(row.id)
        elif not was and now:
            fixed.append(row.id)
    return JudgeFlips(tuple(regressed), tuple(fixed), tuple(unknown), base_unanswered)

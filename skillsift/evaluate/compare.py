"""Base against head: flips, rank changes and paired differences (pure).

Cases are matched by id.  A case *regressed* when it was found in the top k at the base
and no longer is, and was *fixed* in the other direction (the flips of ``skillsift eval
--baseline``, computed by the same function).  Every other case whose rank moved is a
rank change.  Paired differences (head minus base, with a 95% bootstrap interval) are
taken over the cases present in both runs, in the head's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .gates import Flips, compare_baseline
from .intervals import Diff, paired
from .outcomes import Outcome, Side


@dataclass(frozen=True)
class RankChange:
    """A case whose rank moved between base and head."""

    id: str
    query: str
    expected: tuple[str, ...]
    before: int | None
    after: int | None
    first_before: str = ""
    first_after: str = ""
    line: int = 0  # the case's line in the cases file (0 = unknown)

    @property
    def worse(self) -> bool:
        return _order(self.after) > _order(self.before)


def _order(rank: int | None) -> float:
    return float("inf") if rank is None else float(rank)


@dataclass(frozen=True)
class Comparison:
    base: Side
    head: Side
    flips: Flips
    regressed: tuple[RankChange, ...]
    fixed: tuple[RankChange, ...]
    moved: tuple[RankChange, ...]  # rank changes that are not flips: worse first, then better; by id
    paired: Mapping[str, Diff]
    common: int  # cases in both runs
    added: tuple[str, ...] = ()  # case ids only the head has
    removed: tuple[str, ...] = ()  # case ids only the base has

    @property
    def changed(self) -> bool:
        """True when any case's rank moved."""
        return bool(self.regressed or self.fixed or self.moved)


def _change(before: Outcome, after: Outcome, line: int) -> RankChange:
    return RankChange(id=after.id, query=after.query, expected=after.expected, before=before.rank,
                      after=after.rank, first_before=before.first, first_after=after.first, line=line)


def compare(base: Side, head: Side, lines: Mapping[str, int] | None = None) -> Comparison:
    """Pair ``head`` with ``base``; ``lines`` maps case ids to their line in the cases file.

    Raises SkillsiftError when the two were ranked in different modes or at different k
    (every flip would be an artifact of the setting), as ``skillsift eval --baseline`` does.
    """
    lines = lines or {}
    baseline = {"mode": base.mode, "k": base.k, "cases": [{"id": c.id, "hit": c.hit} for c in base.cases]}
    flips = compare_baseline(baseline, mode=head.mode, k=head.k, cases=head.cases)
    before = {c.id: c for c in base.cases}
    flipped = set(flips.regressed) | set(flips.fixed)
    changes = {c.id: _change(before[c.id], c, lines.get(c.id, 0)) for c in head.cases
               if c.id in before and (before[c.id].rank != c.rank or c.id in flipped)}
    regressed = tuple(changes[i] for i in flips.regressed)
    fixed = tuple(changes[i] for i in flips.fixed)
    rest = [ch for i, ch in changes.items() if i not in flipped]
    moved = tuple(sorted(rest, key=lambda ch: (not ch.worse, ch.id)))
    common = [c.id for c in head.cases if c.id in before]
    diffs: dict[str, Diff] = {}
    if common:
        diffs = paired(base.series(common), head.series(common))
    head_ids = {c.id for c in head.cases}
    return Comparison(
        base=base, head=head, flips=flips, regressed=regressed, fixed=fixed, moved=moved, paired=diffs,
        common=len(common),
        added=tuple(sorted(head_ids - set(before))),
        removed=tuple(sorted(set(before) - head_ids)),
    )

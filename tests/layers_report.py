"""The import structure in numbers: ``python -m tests.layers_report`` (from the repository root).

Every import of the package is read with ``ast`` (deferred ones and those under ``if TYPE_CHECKING:``
too) and each module is placed in its layer by the table of :mod:`tests.test_layers`; the report
counts the imports that run up a layer and lists every cycle (a strongly connected group), between
modules and between the units of the table.  ``tests/test_layers.py`` fails on either; this prints
them all at once.  Exit code 1 when there is one.
"""

from __future__ import annotations

import sys

from tests.test_layers import LAYERS, _all_edges, _unit


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one node (or a node importing itself), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                out.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(out)


def report() -> tuple[list[str], bool]:
    """(the lines to print, whether the structure holds: no upward import and no cycle)."""
    edges = _all_edges()
    upward = sorted((m, t) for m, targets in edges.items() for t in targets if _unit(t)[1] > _unit(m)[1])
    units: dict[str, set[str]] = {}
    for module, targets in edges.items():
        units.setdefault(_unit(module)[0], set())
        for target in targets:
            a, b = _unit(module)[0], _unit(target)[0]
            if a != b:
                units[a].add(b)
    module_cycles = cycles({m: set(t) for m, t in edges.items()})
    unit_cycles = cycles(units)
    lines = [f"modules: {len(edges)}, imports between them: {sum(len(t) for t in edges.values())}",
             f"units: {len(units)}, imports between units: {sum(len(t) for t in units.values())}",
             f"upward imports: {len(upward)}"] + [f"  {m} -> {t}" for m, t in upward]
    lines += [f"module cycles: {len(module_cycles)}"] + [f"  {' '.join(c)}" for c in module_cycles]
    lines += [f"unit cycles: {len(unit_cycles)}"] + [f"  {' '.join(c)}" for c in unit_cycles]
    lines += ["layers, top to bottom:"] + [f"  {rank} {layer}: {', '.join(names)}" for layer, rank, names, _ in LAYERS]
    return lines, not (upward or module_cycles or unit_cycles)


def main() -> int:
    lines, ok = report()
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

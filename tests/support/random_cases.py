"""Seeded random cases files, valid or with mistakes of every kind the strict parse reports (YAML errors,
bytes that are not UTF-8, tags, merge keys, duplicate keys, wrong kinds, ranges, duplicates, typed
scalars): the inputs of the parse's differential tests and of the parsed-files cache's."""

from __future__ import annotations

import random

NAMES = ("deploy", "refund-flow", "pdf", "Été", "a b", "x\u2028y", "", "007", "yes", "null")


def _scalar(rng) -> str:
    return rng.choice(["plain words", '"quoted \\ud800 text"', "'single'", "12", "true", "~", "null", "0x10",
                       "[a, b]", "{id: x}", "!!str tagged", "&a anchored", "*a", "Été 🚀", '"tab\\tend"'])


def random_cases_file(rng: random.Random) -> bytes:
    """A cases file: valid, or with mistakes at a rate of its own (every kind of problem)."""
    bad = rng.choice([0.0, 0.0, 0.05, 0.3])

    def odd() -> bool:
        return rng.random() < bad

    lines = ["version: " + (rng.choice(["2", "x", ""]) if odd() else "1")]
    lines.append(rng.choice(["k: 99", "k: no", "extra: 1", "<<: {a: 1}", "version: 1"]) if odd() else
                 rng.choice(["", "k: 3"]))
    lines.append("cases:")
    ids = [f"c{i}" for i in range(rng.randrange(0, 30))]
    for case_id in ids:
        if odd() and rng.random() < 0.2:
            lines.append(f"- {_scalar(rng)}")
            continue
        lines.append(f"- id: {rng.choice(['c0', '', _scalar(rng)]) if odd() else case_id}")
        lines.append(f"  query: {rng.choice([_scalar(rng), '']) if odd() else 'find a pdf tool ' + case_id}")
        if rng.random() < 0.7:
            lines.append("  expect:")
            for name in rng.sample(NAMES[:4], rng.randrange(0, 4)):
                if odd():
                    name = rng.choice(NAMES) or "~"
                if rng.random() < 0.3:
                    lines.append(f"  - id: {name}")
                    lines.append(f"    grade: {rng.choice(['0', '9', 'x']) if odd() else rng.choice(['1', '3'])}")
                else:
                    lines.append(f"  - {name}")
        if rng.random() < 0.2:
            lines.append(f"  avoid: [{', '.join(rng.choice(NAMES[4:]) or 'z' for _ in range(rng.randrange(0, 3)))}]")
        if rng.random() < 0.2:
            lines.append(f"  role: {_scalar(rng) if odd() else rng.choice(['dev', 'ops'])}")
        if rng.random() < 0.2:
            lines.append(f"  tags: [{rng.choice(['a', 'b, c', ''])}]")
        if odd() and rng.random() < 0.2:
            lines.append(rng.choice(["  query: again", "  unknown: 1", "  id: twice"]))
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if odd():
        data = rng.choice([data[: len(data) // 2] + b"\xff\xfe" + data[len(data) // 2:],
                           data.replace(b"cases:", b"cases: [", 1), b"\x00" + data])
    elif rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    return data

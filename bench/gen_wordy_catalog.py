"""A catalog whose descriptions are made of distinct words, for measuring memory against catalog size.

Usage: python bench/gen_wordy_catalog.py DIR MEGABYTES SKILLS

Writes ``DIR/.claude/skills/sNNNNN/SKILL.md`` for SKILLS skills whose descriptions hold about
MEGABYTES of words that never repeat (fixed seed: the same bytes every time).  Then, e.g.
``/usr/bin/time -v skillsift search "deploy the app" --root DIR`` (docs/bounded-input.md, "Catalog size").
"""

from __future__ import annotations

import os
import random
import sys


def main(root: str, total_mb: float, n: int) -> None:
    rng = random.Random(7)
    per = int(total_mb * 1e6 / n)
    counter = 0
    for i in range(n):
        folder = os.path.join(root, ".claude", "skills", f"s{i:05d}")
        os.makedirs(folder, exist_ok=True)
        words, size = [], 0
        while size < per:
            word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) + str(counter)
            counter += 1
            words.append(word)
            size += len(word) + 1
        with open(os.path.join(folder, "SKILL.md"), "w", encoding="utf-8") as fh:
            fh.write(f"---\nname: s{i:05d}\ndescription: {' '.join(words)}\n---\nbody\n")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))

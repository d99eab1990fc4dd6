"""The known requests' BM25 index built once (what a one-shot ``search --mode hybrid`` or ``eval`` with known
requests pays), against the build it replaced.

Usage: python bench/bench_request_lexicon_build.py [--corpus ../shared/corpora] [--requests 20000] [--rounds 9]
                                                   [--root PROJECT]

The requests are real text: the lines of 5 to 30 words of the corpus's SKILL.md bodies (sorted paths, each text
once, the first ``--requests``), each under the skill of the file it came from; or, with ``--root``, the known
requests of that project as a search reads them (its examples files and the skills' frontmatter ``examples``).
Each round builds :class:`~skillsift.ranker.request_lexicon.RequestLexicon` and the old build
(tests/support/request_lexicon_reference.py), in alternating order, each with the tokenizer's word caches
emptied first (a one-shot process starts with them empty), timed in CPU time.  Prints the medians and their
ratio, after checking that the two built the same postings.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from harness import CORPORA


def corpus_requests(corpus: Path, count: int) -> tuple[list[int], list[str], int]:
    """``(owner, texts, n_skills)``: body lines of the corpus's SKILL.md files, each under its file's number."""
    owner, texts, seen = [], [], set()
    files = sorted(corpus.rglob("SKILL.md"))
    for n, path in enumerate(files):
        body = path.read_text(encoding="utf-8", errors="replace").split("---", 2)[-1]
        for line in body.splitlines():
            line = line.strip(" #*->`|")
            if 5 <= len(line.split()) <= 30 and line not in seen and len(texts) < count:
                seen.add(line)
                owner.append(n)
                texts.append(line)
    return owner, texts, len(files)


def project_requests(root: Path) -> tuple[list[int], list[str], int]:
    """``(owner, texts, n_skills)``: the project's known requests, ordered as the ranker keeps them."""
    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config
    from skillsift.ranker.known import known_requests

    config = load_config(str(root))
    catalog = load_catalog(str(root), config)
    place = {s.name: i for i, s in enumerate(catalog.skills)}
    pairs = sorted((place[r.skill], r.text) for r in known_requests(catalog, config, skip_bad=True).requests
                   if r.skill in place)
    return [o for o, _ in pairs], [t for _, t in pairs], len(catalog.skills)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--root", type=Path, help="a project whose known requests to use instead")
    args = parser.parse_args(argv)
    if args.root is None and not args.corpus.is_dir():
        print(f"the skill corpora are absent ({args.corpus}); nothing to measure", file=sys.stderr)
        return 2
    from skillsift.ranker import tokenize
    from skillsift.ranker.request_lexicon import RequestLexicon
    from tests.support.request_lexicon_reference import ReferencePostings

    owner, texts, n_skills = project_requests(args.root) if args.root else corpus_requests(args.corpus, args.requests)
    builds = {"numpy (now)": RequestLexicon, "Counter (before)": ReferencePostings}
    cpu: dict[str, list[float]] = {name: [] for name in builds}
    built = {}
    for r in range(args.rounds):
        for name in (list(builds) if r % 2 == 0 else list(builds)[::-1]):
            tokenize._terms.clear()
            tokenize._stems.clear()
            started = time.process_time()
            built[name] = builds[name](owner, texts, n_skills)
            cpu[name].append(time.process_time() - started)
    now, before = built.values()
    same = list(now.vocab.items()) == list(before.vocab.items()) and all(
        getattr(now, a).tobytes() == getattr(before, a).tobytes() for a in ("post_skill", "post_tf", "starts", "norm"))
    if not same:
        print("the two builds differ", file=sys.stderr)
        return 1
    print(f"{len(texts)} known requests of {len({*owner})} skills ({n_skills} in the catalog), {len(now.vocab)} terms, "
          f"{len(now.post_tf)} postings; {args.rounds} rounds, alternating")
    for name in builds:
        print(f"{name:17s} CPU median {statistics.median(cpu[name]) * 1e3:7.1f} ms "
              f"(min {min(cpu[name]) * 1e3:.1f}, max {max(cpu[name]) * 1e3:.1f})")
    ratio = statistics.median(cpu["numpy (now)"]) / statistics.median(cpu["Counter (before)"])
    print(f"now / before: x{ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Cost of the bounded JSON reader against the plain parser it wraps, on the documents it reads.

Usage: python bench/bench_json.py [--repeat 30] [--rows 2000] [--json]

Documents (generated, deterministic): an index manifest of ``--rows`` items (what hybrid
``search``, ``status`` and ``validate`` read each run), a provider response of 64 vectors of
384 floats (one ``index`` batch), 2,000 query-log lines (``mine``).  For each, the best of
``--repeat`` timings of ``skillsift.jsonio.read_json`` and of ``json.loads`` on the same
text, and their ratio: the price of the limits (the bracket scan, the number hooks).
"""

from __future__ import annotations

import argparse
import json
import random
import time

import harness  # noqa: F401  (the checkout's skillsift on the path)

from skillsift.jsonio import read_json


def manifest(rows: int) -> str:
    items = [{"id": f"skill-{i:05d}", "kind": "skill", "domain": "", "item_digest": "sha256:" + f"{i:064x}",
              "text_digest": "sha256:" + f"{i * 7:064x}", "row": i} for i in range(rows)]
    return json.dumps({"schema_version": 1, "doc_template_version": 1, "provider": "local@x", "model": "m",
                       "dims": 384, "dtype": "float32", "normalized": True, "fields": ["name", "description"],
                       "index_body": False, "body_chars": 1200, "vectors_digest": "sha256:" + "0" * 64,
                       "items": items}, indent=2)


def response(rng: random.Random) -> str:
    return json.dumps({"data": [{"index": i, "embedding": [rng.uniform(-1, 1) for _ in range(384)]}
                                for i in range(64)]})


def log_lines(rng: random.Random) -> list[str]:
    return [json.dumps({"event": "query", "session": f"s{i % 50}", "query": f"deploy service {rng.random():.6f}",
                        "ranking": "lexical", "results": [f"skill-{j}" for j in range(5)],
                        "ts": "2026-01-01T00:00:00Z"}) for i in range(2000)]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(12)
    docs = {"manifest": manifest(args.rows), "provider response": response(rng)}
    lines = log_lines(rng)
    out = {}
    for name, text in docs.items():
        data = text.encode("utf-8")
        bounded = best(lambda data=data, name=name: read_json(data, source=name, max_bytes=256 << 20), args.repeat)
        plain = best(lambda data=data: json.loads(data), args.repeat)
        out[name] = {"bytes": len(data), "bounded_ms": bounded * 1e3, "plain_ms": plain * 1e3,
                     "ratio": bounded / plain}
    bounded = best(lambda: [read_json(line, source="line", max_bytes=65536) for line in lines], args.repeat)
    plain = best(lambda: [json.loads(line) for line in lines], args.repeat)
    out["query log (2,000 lines)"] = {"bytes": sum(len(x) for x in lines), "bounded_ms": bounded * 1e3,
                                      "plain_ms": plain * 1e3, "ratio": bounded / plain}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{'document':<26} {'bytes':>9} {'bounded':>9} {'json.loads':>11} {'ratio':>6}")
    for name, row in out.items():
        print(f"{name:<26} {row['bytes']:>9} {row['bounded_ms']:>7.2f}ms {row['plain_ms']:>9.2f}ms "
              f"{row['ratio']:>6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

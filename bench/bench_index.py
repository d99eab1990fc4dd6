"""`skillsift index --rebuild` with the local model against raw onnxruntime, in one run.

Usage: python bench/bench_index.py [--skills 400] [--rounds 2] [--corpus ../shared/corpora] [--json]
                                   [--examples 4000]

A temporary repository holds the first ``--skills`` SKILL.md of the corpus (sorted paths).
Each round runs, in fresh processes and alternating (A B A B, so machine load hits both):

* **command**: ``skillsift index --rebuild`` (catalog, plan, embedding, writing the index);
* **floor**: raw onnxruntime on the same texts with the same model file, tokenizer and
  session options: texts sorted by token count, batches of at most 64 texts and 1,024
  padded tokens, mean pooling.  Nothing of skillsift runs in it but reading the texts.

``--examples N`` adds an examples file of N known requests (``[search] examples``): short
requests made of the skills' own description words (fixed rule), spread round-robin over
the skills; the command embeds them as one row each, and the floor gets the same texts.

Reported per process: CPU time (user + system) and peak RSS, from ``wait4``; the figure
that matters is the ratio command / floor of the same round (median over the rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import CORPORA, ROOT

_FLOOR = r"""
import json, sys
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
from skillsift.embed import local
texts = json.load(open(sys.argv[1], encoding="utf-8"))
tok = Tokenizer.from_file(str(local.TOKENIZER_FILE))
tok.enable_truncation(max_length=local.MAX_TOKENS)
tok.no_padding()
options = ort.SessionOptions()
options.intra_op_num_threads = 2
options.inter_op_num_threads = 1
options.add_session_config_entry("session.intra_op.allow_spinning", "1")
session = ort.InferenceSession(str(local.locate_model()), sess_options=options, providers=["CPUExecutionProvider"])
enc = tok.encode_batch(texts)
order = sorted(range(len(enc)), key=lambda i: len(enc[i].ids))
out = np.zeros((len(texts), 384), np.float32)
batch = []
def run(batch):
    width = len(enc[batch[-1]].ids)
    ids = np.zeros((len(batch), width), np.int64)
    mask = np.zeros_like(ids)
    for r, i in enumerate(batch):
        n = len(enc[i].ids)
        ids[r, :n] = enc[i].ids
        mask[r, :n] = 1
    hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    v = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
    out[batch] = v / np.linalg.norm(v, axis=1, keepdims=True)
for i in order:
    if batch and (len(batch) >= 64 or (len(batch) + 1) * len(enc[i].ids) > 1024):
        run(batch)
        batch = []
    batch.append(i)
if batch:
    run(batch)
"""


def measured(argv, cwd, env) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of one child process."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def make_repo(corpus: Path, count: int, where: Path, examples: int = 0) -> None:
    paths = sorted(corpus.rglob("SKILL.md"))[:count]
    for n, path in enumerate(paths):
        folder = where / ".claude" / "skills" / f"s{n:05d}"
        folder.mkdir(parents=True)
        shutil.copyfile(path, folder / "SKILL.md")
    known = '\nexamples = ["search-examples.yaml"]' if examples else ""
    (where / "skillsift.toml").write_text(f'[search]\nmode = "hybrid"{known}\n\n[embeddings]\nprovider = "local"\n',
                                          encoding="utf-8")
    if examples:
        write_examples(where, examples)


def write_examples(repo: Path, count: int) -> None:
    """``count`` known requests: words of each skill's description, a window moved per request."""
    import json as _json

    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config

    skills = [s for s in load_catalog(repo, load_config(repo)).skills if len(s.description.split()) >= 6]
    lines = ["version: 1", "cases:"]
    for i in range(count):
        skill = skills[i % len(skills)]
        words = skill.description.split()
        start = (i // len(skills)) % max(1, len(words) - 5)
        text = " ".join(words[start:start + 6]) + f" (request {i})"
        lines += [f"  - id: k{i}", f"    query: {_json.dumps(text)}", f"    expect: [{_json.dumps(skill.name)}]"]
    (repo / "search-examples.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def texts_of(repo: Path) -> list[str]:
    from skillsift.catalog.embedtext import embedded_text
    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config
    from skillsift.evaluate.examples import known_requests

    config = load_config(repo)
    catalog = load_catalog(repo, config)
    search = config.search
    texts = [embedded_text(s, search.fields, search.index_body, search.body_chars) for s in catalog.skills]
    texts += [r.text for r in known_requests(catalog, config).requests]
    return [t for t in texts if t]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--examples", type=int, default=0, help="known requests in an examples file (0 = none)")
    args = parser.parse_args(argv)
    from skillsift.embed.local import local_model_available

    ok, reason = local_model_available()
    if not ok:
        print(f"local model unavailable: {reason}", file=sys.stderr)
        return 2
    if not args.corpus.is_dir():
        print(f"the skill corpora are absent ({args.corpus}); nothing to measure", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rows = []
    with tempfile.TemporaryDirectory(prefix="skillsift-bench-index-") as tmp:
        repo = Path(tmp) / "repo"
        make_repo(args.corpus, args.skills, repo, args.examples)
        texts = texts_of(repo)
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        command = [sys.executable, "-m", "skillsift", "index", "--rebuild"]
        floor = [sys.executable, "-c", _FLOOR, str(texts_file)]
        for _ in range(args.rounds):
            shutil.rmtree(repo / ".skillsift", ignore_errors=True)
            cmd_cpu, cmd_rss = measured(command, repo, env)
            floor_cpu, floor_rss = measured(floor, repo, env)
            rows.append({"command_cpu_s": cmd_cpu, "command_rss_mb": cmd_rss,
                         "floor_cpu_s": floor_cpu, "floor_rss_mb": floor_rss, "ratio": cmd_cpu / floor_cpu})
    figures = {
        "texts": len(texts),
        "examples": args.examples,
        "rounds": rows,
        "cpu_ratio_median": statistics.median(r["ratio"] for r in rows),
        "command_peak_rss_mb": max(r["command_rss_mb"] for r in rows),
        "floor_peak_rss_mb": max(r["floor_rss_mb"] for r in rows),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"index --rebuild, local model, {len(texts)} texts ({args.examples} of them known requests), "
          f"{len(rows)} rounds (command, floor alternating)")
    for n, r in enumerate(rows, 1):
        print(f"  round {n}: command {r['command_cpu_s']:.2f} s CPU / floor {r['floor_cpu_s']:.2f} s CPU"
              f" = {r['ratio']:.2f}x; peak RSS {r['command_rss_mb']:.0f} MB (floor {r['floor_rss_mb']:.0f} MB)")
    print(f"CPU ratio to raw onnxruntime (median): {figures['cpu_ratio_median']:.2f}x (goal <= 1.25x)")
    print(f"peak RSS: {figures['command_peak_rss_mb']:.0f} MB, "
          f"{figures['command_peak_rss_mb'] / figures['floor_peak_rss_mb']:.2f}x the floor's")
    return 0


if __name__ == "__main__":
    sys.exit(main())

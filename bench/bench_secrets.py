"""Secrets: coverage of a planted set, false positives on real skills, the hook's cold start.

Usage: python bench/bench_secrets.py [--part coverage,corpus,startup] [--runs 15]
                                     [--corpus ../shared/corpora] [--seed 13] [--json]

coverage
    Writes the planted set of ``tests/support/secret_samples.py`` (every built-in rule and the
    common variants, each in a description, a trigger, a keyword, the body and the name;
    YAML values JSON-quoted, so escaped) to a temporary repository with ``index_body =
    true``, then counts, per planted secret: flagged by ``validate --select AR001``,
    flagged by detect-secrets (``detect-secrets scan --all-files``, when installed),
    withheld by ``skillsift index`` against a recording OpenAI-compatible server on
    127.0.0.1, reaching that server, and -- each planted line asked as a hybrid
    ``find_skill`` query with the query log on -- reaching the server and the log.
corpus
    Findings of skillsift (AR001: raw lines and parsed values) and of detect-secrets on
    every SKILL.md of the corpus, each listed.
startup
    ``skillsift hook secrets`` on the 27 skills of examples/acme, a fresh process per run,
    as a ratio to ``python -c pass`` measured in the same run (and ``detect-secrets-hook``
    on the same files, when installed).  The hook budget is 3.5x.

Run it with ``PYTHONPATH`` naming the checkout to measure (another checkout gives the
figures before a change).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness import ACME, CORPORA

HOOK_BUDGET = 3.5


class Recorder:
    """A recording OpenAI-compatible embeddings server on 127.0.0.1 (8 dimensions)."""

    def __init__(self):
        self.bodies: list[bytes] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                owner.bodies.append(body)
                inputs = json.loads(body)["input"]
                data = [{"index": i, "embedding": _vector(t)} for i, t in enumerate(inputs)]
                payload = json.dumps({"data": data, "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()

    def sent(self) -> bytes:
        return b"\n".join(self.bodies)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _vector(text: str) -> list[float]:
    raw = hashlib.sha256(text.encode("utf-8")).digest()
    values = [v / 2**31 for v in struct.unpack("<8i", raw)]
    norm = sum(v * v for v in values) ** 0.5 or 1.0
    return [v / norm for v in values]


def _leaked(value: str, blob: bytes) -> bool:
    return value.encode() in blob or json.dumps(value)[1:-1].encode() in blob


def coverage(seed: int) -> dict:
    from tests.support.secret_samples import write_planted

    work = Path(tempfile.mkdtemp(prefix="skillsift-secrets-"))
    repo, home = work / "repo", work / "home"
    entries = write_planted(repo, seed=seed)
    for name in ("plan-release", "write-tests"):  # something the build can send
        clean = repo / ".claude" / "skills" / name / "SKILL.md"
        clean.parent.mkdir(parents=True)
        clean.write_text(f"---\nname: {name}\ndescription: {name.replace('-', 's ')} for the team.\n---\nSteps.\n",
                         encoding="utf-8")
    (repo / "skillsift.toml").write_text('[search]\nindex_body = true\nmode = "hybrid"\n', encoding="utf-8")
    server = Recorder()
    (home / ".config" / "skillsift").mkdir(parents=True)
    (home / ".config" / "skillsift" / "config.toml").write_text(
        f'[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = "{server.base_url}"\n'
        'api_key_env = "EMBED_KEY"\nallow_network = true\n[search]\nlog_queries = true\n', encoding="utf-8")
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), EMBED_KEY="k-0123456789")
    for var in ("SKILLSIFT_SEARCH_MODE", "SKILLSIFT_LOG_QUERIES", "SKILLSIFT_ALLOW_NETWORK"):
        env.pop(var, None)
    ids = [e[0] for e in entries]
    out: dict = {"planted": len(entries), "kinds": len({e[2] for e in entries})}

    run = subprocess.run([sys.executable, "-m", "skillsift", "validate", "--select", "AR001", "--format", "json"],
                         cwd=repo, env=env, capture_output=True, text=True, check=False)
    flagged = {d["file"].split("/")[-2] for d in json.loads(run.stdout)["diagnostics"]
               if d["code"] == "AR001" and d["severity"] == "error"}
    out["flagged_ar001"] = sum(i in flagged for i in ids)
    out["missed_ar001"] = sorted(i for i in ids if i not in flagged)

    if shutil.which("detect-secrets") or _has_module("detect_secrets"):
        ds = subprocess.run([sys.executable, "-m", "detect_secrets", "scan", "--all-files", "."], cwd=repo,
                            env=env, capture_output=True, text=True, check=False)
        files = json.loads(ds.stdout)["results"] if ds.returncode == 0 else {}
        ds_flagged = {name.split("/")[-2] for name in files}
        out["flagged_detect_secrets"] = sum(i in ds_flagged for i in ids)

    run = subprocess.run([sys.executable, "-m", "skillsift", "index", "--format", "json"], cwd=repo, env=env,
                         capture_output=True, text=True, check=False)
    if not run.stdout.strip().startswith("{"):
        raise SystemExit(f"skillsift index failed: {run.stderr.strip()[-2000:]}")
    doc = json.loads(run.stdout)
    withheld = {item["id"].split(" ", 1)[0] for item in doc.get("withheld", [])}
    out["withheld"] = sum(i in withheld for i in ids)
    sent = server.sent()
    out["reached_server_index"] = sum(_leaked(e[4], sent) for e in entries)
    out["shown_by_index"] = sum(e[4] in run.stdout + run.stderr for e in entries)

    code = (
        "import json, sys\n"
        "from skillsift.mcpserver.service import SkillService\n"
        "service = SkillService('.', warn=lambda m: None)\n"
        "for line in json.load(sys.stdin):\n"
        "    service.find_skill('how do I use ' + line)\n"
    )
    before = len(server.bodies)
    subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, input=json.dumps([e[3] for e in entries]),
                   capture_output=True, text=True, check=False)
    queries = b"\n".join(server.bodies[before:])
    out["queries"] = len(entries)
    out["query_reached_server"] = sum(_leaked(e[4], queries) for e in entries)
    log = repo / ".skillsift" / "local" / "search-queries.jsonl"
    text = log.read_bytes() if log.exists() else b""
    out["query_reached_log"] = sum(_leaked(e[4][:40], text) for e in entries)
    server.close()
    shutil.rmtree(work, ignore_errors=True)
    return out


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def corpus(path: Path) -> dict:
    from skillsift.catalog.embedtext import embedded_text
    from skillsift.catalog.load import parse_skill
    from skillsift.config import Config

    try:
        from skillsift.checks.secrets import skill_findings
    except ImportError:  # a checkout without the parsed-value scan
        skill_findings = None
    from skillsift.secrets.scan import scan_text

    files = sorted(path.rglob("SKILL.md"))
    s = Config().search
    found = []
    start = time.perf_counter()
    for file in files:
        text = file.read_text(encoding="utf-8", errors="replace")
        rel = file.relative_to(path).as_posix()
        if skill_findings is None:
            found += [(rel, f.line, f.kind) for f in scan_text(text)]
            continue
        skill, _problems = parse_skill(text, file.parent.name, path=rel)
        embedded = embedded_text(skill, s.fields, True, s.body_chars) if skill is not None else ""
        found += [(rel, f.line, f.kind) for f, _v in skill_findings(text, skill=skill, embedded=embedded)]
    out = {"files": len(files), "skillsift_findings": found,
           "skillsift_seconds": round(time.perf_counter() - start, 2)}
    if _has_module("detect_secrets"):
        with tempfile.TemporaryDirectory() as tmp:
            listing = Path(tmp) / "files.txt"
            listing.write_text("\n".join(str(f) for f in files), encoding="utf-8")
            start = time.perf_counter()
            code = ("import json, sys\nfrom detect_secrets import SecretsCollection\n"
                    "from detect_secrets.settings import default_settings\n"
                    "files = open(sys.argv[1]).read().split('\\n')\n"
                    "c = SecretsCollection()\n"
                    "with default_settings():\n"
                    "    [c.scan_file(f) for f in files]\n"
                    "print(json.dumps(c.json()))\n")
            ds = subprocess.run([sys.executable, "-c", code, str(listing)], capture_output=True, text=True,
                                check=False)
            results = json.loads(ds.stdout) if ds.returncode == 0 else {}
            out["detect_secrets_findings"] = sorted(
                (Path(name).relative_to(path).as_posix(), item["line_number"], item["type"])
                for name, items in results.items() for item in items)
            out["detect_secrets_seconds"] = round(time.perf_counter() - start, 2)
    return out


def _timed(argv, cwd, env=None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def startup(runs: int) -> dict:
    files = sorted(p.relative_to(ACME).as_posix() for p in ACME.glob(".claude/skills/*/SKILL.md"))
    script = Path(sys.executable).parent / "skillsift"
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "skillsift"]
    cases = {"python -c pass": [sys.executable, "-c", "pass"], "hook secrets": cmd + ["hook", "secrets", *files]}
    ds_hook = Path(sys.executable).parent / "detect-secrets-hook"
    if ds_hook.is_file():
        cases["detect-secrets-hook"] = [str(ds_hook), *files]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the warm-up leaves .pyc files
    for argv in cases.values():
        _timed(argv, ACME, env)  # warm-up: .pyc files and the file cache
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):  # interleaved, so load on the machine falls on every case alike
        for name, argv in cases.items():
            times[name].append(_timed(argv, ACME, env))
    floor = statistics.median(times["python -c pass"])
    return {name: {"median_ms": round(statistics.median(t), 1), "ratio": round(statistics.median(t) / floor, 2)}
            for name, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="coverage,corpus,startup")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    parts = set(args.part.split(","))
    report: dict = {}
    if "coverage" in parts:
        report["coverage"] = coverage(args.seed)
    if "corpus" in parts:
        if not args.corpus.is_dir():
            print(f"corpus: {args.corpus} is not a directory (pass --corpus)", file=sys.stderr)
            return 2
        report["corpus"] = corpus(args.corpus)
    if "startup" in parts:
        report["startup"] = startup(args.runs)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    if "coverage" in report:
        c = report["coverage"]
        print(f"planted set: {c['planted']} secrets of {c['kinds']} kinds (5 placements each)")
        print(f"  flagged by AR001 (validate)        {c['flagged_ar001']:>4} / {c['planted']}")
        if "flagged_detect_secrets" in c:
            print(f"  flagged by detect-secrets          {c['flagged_detect_secrets']:>4} / {c['planted']}")
        print(f"  withheld by index (AR9D3)          {c['withheld']:>4} / {c['planted']}")
        print(f"  reached the server (index)         {c['reached_server_index']:>4} / {c['planted']}")
        print(f"  printed by index (AR9D3 lines)     {c['shown_by_index']:>4} / {c['planted']}")
        print(f"  query reached the server (hybrid)  {c['query_reached_server']:>4} / {c['queries']}")
        print(f"  query reached the query log        {c['query_reached_log']:>4} / {c['queries']}")
        for skill_id in c["missed_ar001"]:
            print(f"    missed by AR001: {skill_id}")
    if "corpus" in report:
        c = report["corpus"]
        print(f"corpus: {c['files']} SKILL.md")
        print(f"  skillsift findings       {len(c['skillsift_findings']):>4}  ({c['skillsift_seconds']} s)")
        for rel, line, kind in c["skillsift_findings"]:
            print(f"    {rel}:{line} {kind}")
        if "detect_secrets_findings" in c:
            found = c["detect_secrets_findings"]
            print(f"  detect-secrets findings  {len(found):>4}  ({c['detect_secrets_seconds']} s)")
            by_type: dict[str, int] = {}
            for _rel, _line, kind in c["detect_secrets_findings"]:
                by_type[kind] = by_type.get(kind, 0) + 1
            for kind, count in sorted(by_type.items(), key=lambda item: (-item[1], item[0])):
                print(f"    {count:>4}  {kind}")
    if "startup" in report:
        print(f"cold start, {args.runs} interleaved runs (median; ratio to python -c pass; budget {HOOK_BUDGET}x)")
        for name, figures in report["startup"].items():
            print(f"  {name:<22} {figures['median_ms']:>7.1f} ms  x{figures['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`query_timeout_ms` bounds embedding the query: not loading the model, not the process's exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from skillsift.catalog.load import catalog_from_skills
from skillsift.cli import main
from skillsift.config import Config, SearchConfig
from skillsift.index.build import build_index, plan_build
from skillsift.ranker.search import Ranker
from tests.support.cli import set_user_config
from tests.support.concept_embedder import ConceptEmbedder

QUERY = "money returned for a purchase"


def write_project(root: Path, skill_writer, timeout_ms: int) -> Path:
    skill_writer(root, "issue-refund", "Reimburse a customer for a returned purchase")
    skill_writer(root, "deploy-staging", "Roll a service out to the staging cluster")
    skill_writer(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    (root / "skillsift.toml").write_text(f'[search]\nmode = "hybrid"\nquery_timeout_ms = {timeout_ms}\n',
                                         encoding="utf-8")
    return root


def cli(root: Path, *argv: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    """``skillsift ARGV --root ROOT`` in a fresh process; (result, seconds it took)."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "skillsift", *argv, "--root", str(root)], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ))
    return proc, time.monotonic() - start


class SlowEmbeddings:
    """POST /v1/embeddings on 127.0.0.1: answers at once until ``slow`` is set, then after ``delay`` s."""

    def __init__(self, dims: int = 8, delay: float = 40.0):
        self.slow = threading.Event()
        self.stop = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                texts = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))["input"]
                if owner.slow.is_set() and owner.stop.wait(delay):
                    return
                rows = [[float((hash(t) >> k) % 7) + 1.0 for k in range(dims)] for t in texts]
                body = json.dumps({"data": [{"index": i, "embedding": r} for i, r in enumerate(rows)]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_search_exits_right_after_the_lexical_fallback(tmp_path, skill_writer):
    # The endpoint answers the query after 40 s; the fallback is due after 0.3 s.  The
    # process must not then wait for the abandoned request.
    server = SlowEmbeddings()
    try:
        set_user_config(f'[embeddings]\nprovider = "openai"\nbase_url = "{server.base_url}"\nmodel = "m"\n'
                        "allow_network = true\ncache = false\n")
        root = write_project(tmp_path / "proj", skill_writer, 300)
        assert main(["index", "--root", str(root)]) == 0
        server.slow.set()
        proc, seconds = cli(root, "search", QUERY, "--format", "json")
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["ranking"], doc["degraded"]) == ("lexical", "timeout")
    assert doc["results"][0]["name"] == "issue-refund"
    assert "the query embedding timed out" in proc.stderr
    assert "did not finish within query_timeout_ms (300 ms)" in proc.stderr
    assert "hint: raise [search] query_timeout_ms" in proc.stderr
    assert seconds < 25, seconds  # the request would have held it for 40 s


class SlowToLoad(ConceptEmbedder):
    """Loading takes 1.5 s (a cold model on a busy machine); embedding a query is quick."""

    def __init__(self):
        super().__init__()
        self.loads = 0

    def load(self):
        time.sleep(1.5)
        self.loads += 1


def _index_for(skills, provider):
    return build_index(plan_build(catalog_from_skills(skills), None, provider=provider), provider).index


def test_loading_the_model_is_not_counted_against_the_query_budget(skill_writer, tmp_path):
    from skillsift.catalog.load import load_catalog

    root = write_project(tmp_path, skill_writer, 300)
    config = Config(root=str(root), search=SearchConfig(mode="hybrid", query_timeout_ms=300))
    catalog = load_catalog(str(root), config)
    provider = SlowToLoad()
    ranker = Ranker(catalog, config, index=_index_for(catalog.skills, ConceptEmbedder()), provider=provider)
    first = ranker.search(QUERY)
    assert first.degraded is None and first.ranking in ("hybrid", "vector"), first.notes
    assert first.embedded and first.embed_ms < 1500  # the call, not the load
    ranker.search("roll out to staging")
    assert provider.loads == 1


def test_prepare_loads_before_the_first_query_and_reports_why_it_cannot(skill_writer, tmp_path):
    from skillsift.catalog.load import load_catalog
    from skillsift.embed.base import ProviderUnavailable

    root = write_project(tmp_path, skill_writer, 300)
    config = Config(root=str(root), search=SearchConfig(mode="hybrid"))
    catalog = load_catalog(str(root), config)
    index = _index_for(catalog.skills, ConceptEmbedder())
    provider = SlowToLoad()
    ranker = Ranker(catalog, config, index=index, provider=provider)
    assert ranker.prepare() is None and provider.loads == 1
    assert ranker.search(QUERY).embedded and provider.loads == 1

    class Broken(ConceptEmbedder):
        def load(self):
            raise ProviderUnavailable("the model file is damaged", hint="reinstall it")

    broken = Ranker(catalog, config, index=index, provider=Broken())
    assert broken.prepare().reason == "provider_unavailable"
    result = broken.search(QUERY)
    assert (result.ranking, result.degraded) == ("lexical", "provider_unavailable")
    assert result.notes == ("the model file is damaged", "hint: reinstall it")
    assert Ranker(catalog, config, provider=provider).prepare().reason == "no_index"


def _local_model():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from skillsift.embed import local

    pytest.importorskip(local.MODEL_PACKAGE)
    return local


def test_a_cold_local_model_answers_hybrid_within_the_budget(tmp_path, skill_writer):
    # Loading the model in a fresh process takes far longer than 500 ms on a busy machine;
    # one query takes a few tens of milliseconds.
    _local_model()
    root = write_project(tmp_path / "proj", skill_writer, 500)
    assert main(["index", "--root", str(root)]) == 0
    proc, _ = cli(root, "search", QUERY, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["degraded"] is None, proc.stderr
    assert doc["results"][0]["name"] == "issue-refund"


def test_the_mcp_server_gets_the_provider_ready_at_start(tmp_path, skill_writer, monkeypatch):
    # a cold local model: the first find_skill answers with vectors within the budget
    local = _local_model()
    from skillsift.mcpserver.service import SkillService

    root = write_project(tmp_path / "proj", skill_writer, 500)
    assert main(["index", "--root", str(root)]) == 0
    local.clear_cache()
    warnings: list[str] = []
    service = SkillService(str(root), warn=warnings.append, recheck_interval=60)
    service.refresh()
    doc = service.find_skill(QUERY)
    assert doc["degraded"] is None and doc["results"][0]["name"] == "issue-refund", warnings
    assert warnings == []
    # a provider that cannot run is reported when the server starts, before any query
    set_user_config('[embeddings]\nmodel = "no-such-model"\n')
    late: list[str] = []
    SkillService(str(root), warn=late.append).refresh()
    assert any("no model 'no-such-model'" in w for w in late), late


SLOW_COMMAND = """\
import json, os, pathlib, sys, time
flag = pathlib.Path(sys.argv[1])
texts = json.load(sys.stdin)["input"]
if flag.exists():
    flag.write_text(str(os.getpid()))
    time.sleep(60)
print(json.dumps({"vectors": [[float(len(t) % 5) + 1.0, 1.0, float(len(t.split()))] for t in texts]}))
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.mark.skipif(os.name != "posix", reason="process groups")
def test_search_exits_after_the_fallback_and_ends_the_abandoned_command(tmp_path, skill_writer):
    script = tmp_path / "slow_embed.py"
    script.write_text(SLOW_COMMAND, encoding="utf-8")
    flag = tmp_path / "slow"
    set_user_config(f'[embeddings]\nprovider = "command"\ncommand = [{json.dumps(sys.executable)}, '
                    f'{json.dumps(str(script))}, {json.dumps(str(flag))}]\ncache = false\n')
    root = write_project(tmp_path / "proj", skill_writer, 300)
    assert main(["index", "--root", str(root)]) == 0
    flag.write_text("", encoding="utf-8")
    proc, seconds = cli(root, "search", QUERY, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["degraded"] == "timeout"
    assert seconds < 25, seconds  # the program would have run for 60 s
    pid = int(flag.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the abandoned embedding program outlived skillsift"


class BoundedEmbedder(ConceptEmbedder):
    """Bounds its own call (as the local model does); records the threads it ran on."""

    def __init__(self, overrun: bool = False):
        super().__init__()
        self.overrun = overrun
        self.threads: list[str] = []
        self.limits: list[float] = []

    def embed_within(self, texts, seconds):
        self.threads.append(threading.current_thread().name)
        self.limits.append(seconds)
        if self.overrun:
            raise TimeoutError
        return self.embed(texts)


def test_a_provider_that_bounds_its_call_runs_on_the_calling_thread(skill_writer, tmp_path):
    from skillsift.catalog.load import load_catalog

    root = write_project(tmp_path, skill_writer, 300)
    config = Config(root=str(root), search=SearchConfig(mode="hybrid", query_timeout_ms=300))
    catalog = load_catalog(str(root), config)
    index = _index_for(catalog.skills, ConceptEmbedder())
    provider = BoundedEmbedder()
    result = Ranker(catalog, config, index=index, provider=provider).search(QUERY)
    assert result.degraded is None and result.embedded and result.hits[0].name == "issue-refund"
    assert provider.threads == [threading.current_thread().name] and provider.limits == [0.3]
    late = Ranker(catalog, config, index=index, provider=BoundedEmbedder(overrun=True)).search(QUERY)
    assert (late.ranking, late.degraded) == ("lexical", "timeout")
    assert late.notes[0] == "the query embedding did not finish within query_timeout_ms (300 ms)"
    assert late.hits[0].name == "issue-refund"


def test_the_local_model_falls_back_to_lexical_when_the_query_overruns_the_limit(skill_writer, tmp_path):
    local = _local_model()
    from skillsift.catalog.load import load_catalog

    root = write_project(tmp_path, skill_writer, 1)
    config = Config(root=str(root), search=SearchConfig(mode="hybrid", query_timeout_ms=1))
    catalog = load_catalog(str(root), config)
    provider = local.LocalProvider()
    index = _index_for(catalog.skills, provider)
    ranker = Ranker(catalog, config, index=index, provider=provider)
    assert ranker.prepare() is None
    long_query = " ".join(f"refund{i} purchase money returned" for i in range(120))  # 2 KB, pieces
    workers = [t for t in threading.enumerate() if t.name == "skillsift-query"]
    result = ranker.search(long_query)
    assert (result.ranking, result.degraded) == ("lexical", "timeout"), result.notes
    assert [t for t in threading.enumerate() if t.name == "skillsift-query"] == workers  # none started
    assert ranker.search(QUERY).degraded in (None, "timeout")  # the next query runs again

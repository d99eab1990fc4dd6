"""`skillsift mcp`: the tools' behaviour (reference §3.11, §7) in process, then over stdio with the SDK."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skillsift.evaluate import querylog
from skillsift.evaluate.cases import parse_cases
from skillsift.mcpserver.service import SkillService, ToolRefused
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import user_config

QUERY = "customer wants money back"


def search_json(capsys, root, query, *extra):
    code, out, err = run(capsys, "search", query, "--format", "json", "--root", root, *extra)
    assert code == 0, err
    return json.loads(out)


def log_file(root: Path) -> Path:
    return root / ".skillsift" / "local" / "search-queries.jsonl"


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(autouse=True)
def _fresh_full_warning(monkeypatch):
    monkeypatch.setattr(querylog, "_full_warned", False)


@pytest.fixture
def service_for():
    def make(root, **kwargs):
        warnings: list[str] = []
        kwargs.setdefault("recheck_interval", 0)
        service = SkillService(str(root), warn=warnings.append, **kwargs)
        service.warnings = warnings
        return service

    return make


# -- find_skill ------------------------------------------------------------------------------------


def test_find_skill_equals_search_json(cli_project, capsys, service_for):
    service = service_for(cli_project)
    for query in (QUERY, "deploy to staging", "pull request", "zebra"):
        assert service.find_skill(query) == search_json(capsys, cli_project, query)
    assert service.find_skill("deploy", limit=1) == search_json(capsys, cli_project, "deploy", "--limit", "1")


def test_find_skill_env_mode_and_degraded_fallback_warned_once(cli_project, capsys, monkeypatch, service_for):
    monkeypatch.setenv("SKILLSIFT_SEARCH_MODE", "hybrid")
    service = service_for(cli_project)
    first = service.find_skill("deploy")
    second = service.find_skill("refund")
    assert (first["ranking"], first["degraded"]) == ("lexical", "no_index")
    assert second["degraded"] == "no_index" and second["results"][0]["name"] == "refund-policy"
    assert first == search_json(capsys, cli_project, "deploy")  # the same fallback as the CLI
    degraded = [w for w in service.warnings if "no usable index" in w]
    assert degraded == ["skillsift mcp: search: no usable index, ranking lexically (run 'skillsift index')"]


def test_find_skill_hybrid_embeds_only_the_query(tmp_path, capsys, skill_writer, service_for):
    root = tmp_path / "proj"
    skill_writer(root, "issue-refund", "Reimburse a customer for a returned purchase")
    skill_writer(root, "deploy-staging", "Roll a service out to the staging cluster")
    skill_writer(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    (root / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")
    calls = tmp_path / "calls.jsonl"
    set_user_config(user_config("--log", str(calls)))
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    calls.unlink()
    service = service_for(root)
    doc = service.find_skill("money returned for a purchase")
    assert doc["ranking"] in ("hybrid", "vector") and doc["degraded"] is None
    assert doc["results"][0]["name"] == "issue-refund" and "vector_rank" in doc["results"][0]
    sent = [json.loads(line) for line in calls.read_text().splitlines()]
    assert sent == [["money returned for a purchase"]]  # the query, never a skill
    assert doc == search_json(capsys, root, "money returned for a purchase")
    # the index files go away: the ranker is re-created and falls back with the reason
    for name in ("manifest.json", "vectors.bin"):
        (root / ".skillsift" / "index" / name).unlink()
    again = service.find_skill("money returned for a purchase")
    assert (again["ranking"], again["degraded"]) == ("lexical", "no_index")


def test_find_skill_role_puts_the_role_first(tmp_path, skill_writer, service_for):
    skill_writer(tmp_path, "refund-report", "Customer refund report, refund totals per refund reason",
                 triggers=["refund report"])
    skill_writer(tmp_path, "billing-desk", "Billing questions of every kind, a refund now and then")
    (tmp_path / "skillsift.toml").write_text('[roles.billing]\nskills = ["billing-desk"]\n', encoding="utf-8")
    service = service_for(tmp_path)
    assert [r["name"] for r in service.find_skill("refund")["results"]] == ["refund-report", "billing-desk"]
    doc = service.find_skill("refund", role="billing")
    assert [(r["rank"], r["name"]) for r in doc["results"]] == [(1, "billing-desk"), (2, "refund-report")]
    assert [r["name"] for r in service.find_skill("refund", limit=1, role="billing")["results"]] == ["billing-desk"]
    with pytest.raises(ToolRefused, match='unknown role "sales"'):
        service.find_skill("refund", role="sales")


@pytest.mark.parametrize("query, limit, message", [
    ("", 5, "needs a query"), ("   ", 5, "needs a query"), ("deploy", 0, "between 1 and 20"),
    ("deploy", 21, "between 1 and 20"), ("deploy", "5", "between 1 and 20"),
])
def test_find_skill_refuses_bad_arguments(cli_project, service_for, query, limit, message):
    with pytest.raises(ToolRefused, match=message):
        service_for(cli_project).find_skill(query, limit)


def test_abstention_returns_no_skill(tmp_path, capsys, skill_writer, service_for):
    root = tmp_path / "proj"
    skill_writer(root, "issue-refund", "Reimburse a customer for a returned purchase")
    skill_writer(root, "deploy-staging", "Roll a service out to the staging cluster")
    (root / "skillsift.toml").write_text('[search]\nmode = "vector"\nvector_min_sim = 0.9\n', encoding="utf-8")
    set_user_config(user_config())
    assert run(capsys, "index", "--root", root)[0] == 0
    doc = service_for(root).find_skill("git pull request conventions")
    assert doc["abstained"] is True and doc["count"] == 0 and doc["results"] == []


def test_invalid_config_falls_back_to_lexical_with_a_warning(cli_project, service_for):
    (cli_project / "skillsift.toml").write_text('[search]\nmode = "quantum"\n', encoding="utf-8")
    service = service_for(cli_project)
    doc = service.find_skill("deploy")
    assert doc["ranking"] == "lexical" and doc["results"][0]["name"] == "deploy-staging"
    assert any("AR9D0" in w and "ranking lexically" in w for w in service.warnings)


# -- reloading -------------------------------------------------------------------------------------


def test_ranker_is_reused_until_something_changes(cli_project, skill_writer, service_for):
    service = service_for(cli_project)
    service.find_skill("deploy")
    service.find_skill("refund")
    assert service.reloads == 1
    # a new skill
    skill_writer(cli_project, "zebra-care", "Feed the zebra")
    assert service.find_skill("zebra")["results"][0]["name"] == "zebra-care"
    assert service.reloads == 2
    # an edited skill (the size changes)
    skill_writer(cli_project, "zebra-care", "Feed the zebra and the okapi")
    assert service.find_skill("okapi")["results"][0]["name"] == "zebra-care"
    assert service.reloads == 3
    # a removed skill
    (cli_project / ".claude" / "skills" / "zebra-care" / "SKILL.md").unlink()
    assert service.find_skill("zebra")["results"] == []
    # the config
    (cli_project / "skillsift.toml").write_text('[search]\ncandidates = 10\n', encoding="utf-8")
    assert service.refresh() is True
    assert service.refresh() is False
    # the index files
    index = cli_project / ".skillsift" / "index"
    index.mkdir(parents=True)
    (index / "manifest.json").write_text("{}", encoding="utf-8")
    assert service.refresh() is True
    assert service.refresh() is False


def test_changes_are_checked_at_most_once_per_interval(cli_project, skill_writer, service_for):
    now = [100.0]
    service = service_for(cli_project, recheck_interval=1.0, monotonic=lambda: now[0])
    assert service.find_skill("zebra")["results"] == []
    skill_writer(cli_project, "zebra-care", "Feed the zebra")
    now[0] += 0.5
    assert service.find_skill("zebra")["results"] == []  # within the interval: not looked at yet
    now[0] += 0.6
    assert service.find_skill("zebra")["results"][0]["name"] == "zebra-care"
    assert service.reloads == 2


def test_env_mode_change_is_a_config_change(cli_project, monkeypatch, service_for):
    service = service_for(cli_project)
    assert service.find_skill("deploy")["degraded"] is None
    monkeypatch.setenv("SKILLSIFT_SEARCH_MODE", "hybrid")
    assert service.find_skill("deploy")["degraded"] == "no_index"


# -- load_skill ------------------------------------------------------------------------------------


def test_load_skill_returns_the_skill_md(cli_project, service_for):
    text = service_for(cli_project).load_skill("refund-policy")
    assert text == (cli_project / ".claude" / "skills" / "refund-policy" / "SKILL.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [
    "../refund-policy", "..", "refund-policy/../git-workflow", "/etc/passwd", ".claude/skills/refund-policy",
    "refund-policy\\SKILL.md", "C:evil", "", "  ", "refund\x00policy",
])
def test_load_skill_refuses_paths(cli_project, service_for, name):
    with pytest.raises(ToolRefused):
        service_for(cli_project).load_skill(name)


def test_load_skill_refuses_names_outside_the_catalog(cli_project, service_for):
    with pytest.raises(ToolRefused, match='no skill named "ghost"'):
        service_for(cli_project).load_skill("ghost")


def test_load_skill_never_reads_through_a_symlink_out_of_the_repository(tmp_path, skill_writer, service_for):
    root = tmp_path / "proj"
    path = skill_writer(root, "refund-policy", "Refunds")
    service = service_for(root)
    assert "Refunds" in service.load_skill("refund-policy")
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: refund-policy\ndescription: private\n---\nprivate notes\n", encoding="utf-8")
    path.unlink()
    path.symlink_to(outside)
    with pytest.raises(ToolRefused):
        service.load_skill("refund-policy")


# -- search_skills ---------------------------------------------------------------------------------


def test_search_skills_is_lexical_even_in_hybrid_mode(cli_project, capsys, monkeypatch, service_for):
    monkeypatch.setenv("SKILLSIFT_SEARCH_MODE", "hybrid")
    service = service_for(cli_project)
    doc = service.search_skills("deploy", 5)
    assert (doc["ranking"], doc["degraded"]) == ("lexical", None)
    monkeypatch.delenv("SKILLSIFT_SEARCH_MODE")
    assert doc == search_json(capsys, cli_project, "deploy")
    listing = service.search_skills("", 2)
    assert [r["name"] for r in listing["results"]] == ["deploy-staging", "git-workflow"]
    with pytest.raises(ToolRefused):
        service.search_skills("deploy", 101)


# -- query log from the tools ----------------------------------------------------------------------


def test_tools_log_queries_and_loads_when_the_user_enables_it(cli_project, service_for, capsys):
    set_user_config("[search]\nlog_queries = true\n")
    service = service_for(cli_project, session_id="client-7")
    service.find_skill(QUERY)
    service.load_skill("refund-policy")
    service.search_skills("deploy")  # the listing is not a find_skill query
    with pytest.raises(ToolRefused):
        service.load_skill("../refund-policy")
    with pytest.raises(ToolRefused):
        service.load_skill("ghost")
    query, loaded = read_lines(log_file(cli_project))
    assert (query["event"], query["query"], query["ranking"], query["results"][0]) == (
        "query", QUERY, "lexical", "refund-policy")
    assert (loaded["event"], loaded["skill"]) == ("loaded", "refund-policy")
    assert query["session"] == loaded["session"] == querylog.hash_session("client-7")
    assert stat.S_IMODE(os.stat(log_file(cli_project)).st_mode) == 0o600
    code, out, err = run(capsys, "mine", "--root", cli_project)
    assert code == 0, err
    assert f"query: {QUERY}" in out and "- refund-policy" in out and "- mined" in out


def test_repository_config_cannot_turn_logging_on(cli_project, service_for):
    (cli_project / "skillsift.toml").write_text("[search]\nlog_queries = true\n", encoding="utf-8")
    service = service_for(cli_project)
    service.find_skill(QUERY)
    service.load_skill("refund-policy")
    service.find_skill("deploy")
    assert not log_file(cli_project).exists()
    notes = [w for w in service.warnings if "cannot start recording queries" in w]
    assert len(notes) == 1


def test_each_server_process_has_its_own_session(cli_project, service_for):
    set_user_config("[search]\nlog_queries = true\n")
    service_for(cli_project).find_skill("deploy")
    service_for(cli_project).find_skill("deploy")
    first, second = read_lines(log_file(cli_project))
    assert first["session"] != second["session"] and len(first["session"]) == 12


# -- SDK glue --------------------------------------------------------------------------------------


def test_stray_prints_in_a_tool_go_to_stderr(cli_project, capsys, service_for, monkeypatch):
    from skillsift.mcpserver.protocol import Handler

    service = service_for(cli_project)
    real = service.load_skill

    def noisy(name):
        print("stray output")
        return real(name)

    monkeypatch.setattr(service, "load_skill", noisy)
    handler = Handler(service)
    reply = handler.message({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "load_skill", "arguments": {"name": "refund-policy"}}})
    out, err = capsys.readouterr()
    assert out == "" and "stray output" in err
    assert reply["result"]["isError"] is False and "refund" in reply["result"]["content"][0]["text"]
    refused = handler.message({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                               "params": {"name": "load_skill", "arguments": {"name": "ghost"}}})
    assert refused["result"]["isError"] is True and 'no skill named "ghost"' in refused["result"]["content"][0]["text"]


def test_the_server_needs_no_mcp_sdk(cli_project):
    """The SDK made unimportable: the server still answers (its own JSON-RPC loop, docs/mcp.md)."""
    code = ("import sys\nfor name in ('mcp', 'mcp.server', 'pydantic', 'anyio'):\n    sys.modules[name] = None\n"
            "from skillsift.cli import main\nraise SystemExit(main(sys.argv[1:]))\n")
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "find_skill", "arguments": {"query": "deploy"}}},
    ]
    proc = subprocess.run([sys.executable, "-c", code, "mcp", "--root", str(cli_project)],
                          input="".join(json.dumps(m) + "\n" for m in lines).encode(), capture_output=True,
                          env=server_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    replies = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[1]["result"]["structuredContent"]["results"][0]["name"] == "deploy-staging"


def test_root_must_be_a_directory(tmp_path, capsys):
    pytest.importorskip("mcp")
    code, _out, err = run(capsys, "mcp", "--root", tmp_path / "absent")
    assert code == 1 and "is not a directory" in err


# -- over stdio with the SDK's client ---------------------------------------------------------------


def server_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSIFT_")}
    env.update(extra)
    return env


def _error(result) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def _text(result) -> str:
    return result.content[0].text


def talk(root: Path, errlog: Path, script, **env):
    """Start `skillsift mcp --root ROOT` and run ``script(session)`` against it; returns its value."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "skillsift", "mcp", "--root", str(root)],
                                   env=server_env(**env))

    async def go():
        with anyio.fail_after(90), errlog.open("w", encoding="utf-8") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write) as session:
                    session.initialized_with = await session.initialize()
                    return await script(session)

    return anyio.run(go)


def test_stdio_server_end_to_end(cli_project, tmp_path, capsys):
    set_user_config("[search]\nlog_queries = true\n")
    errlog = tmp_path / "server-stderr.txt"

    async def script(session):
        tools = await session.list_tools()
        limited = await session.call_tool("find_skill", {"query": "deploy", "limit": 1})
        found = await session.call_tool("find_skill", {"query": QUERY})
        loaded = await session.call_tool("load_skill", {"name": "refund-policy"})
        escape = await session.call_tool("load_skill", {"name": "../refund-policy"})
        absolute = await session.call_tool("load_skill", {"name": "/etc/passwd"})
        listing = await session.call_tool("search_skills", {"query": "pull request"})
        return tools, found, limited, loaded, escape, absolute, listing

    tools, found, limited, loaded, escape, absolute, listing = talk(cli_project, errlog, script)
    assert sorted(t.name for t in tools.tools) == ["find_skill", "load_skill", "search_skills"]
    assert not _error(found)
    assert json.loads(_text(found)) == search_json(capsys, cli_project, QUERY)
    assert json.loads(_text(limited)) == search_json(capsys, cli_project, "deploy", "--limit", "1")
    skill_md = cli_project / ".claude" / "skills" / "refund-policy" / "SKILL.md"
    assert not _error(loaded) and _text(loaded) == skill_md.read_text(encoding="utf-8")
    assert _error(escape) and "not a skill name" in _text(escape)
    assert _error(absolute) and "root:" not in _text(absolute)
    assert json.loads(_text(listing))["results"][0]["name"] == "git-workflow"
    # the log got the query and the load (not the refused loads), then mining labels the query
    entries = read_lines(log_file(cli_project))
    assert [(e["event"], e.get("query"), e.get("skill")) for e in entries] == [
        ("query", "deploy", None), ("query", QUERY, None), ("loaded", None, "refund-policy")]
    assert entries[0]["session"] == entries[2]["session"]
    code, out, err = run(capsys, "mine", "--root", cli_project)
    assert code == 0, err
    (case,) = parse_cases(out).cases  # "deploy" was never followed by a load
    assert (case.query, case.expect_ids, case.tags) == (QUERY, ("refund-policy",), ("mined",))
    assert "1 never followed by a load" in err
    assert "serving 3 skills" in errlog.read_text(encoding="utf-8")


def test_stdio_server_repository_logging_is_ignored_and_fallback_warned_once(cli_project, tmp_path, capsys):
    (cli_project / "skillsift.toml").write_text("[search]\nlog_queries = true\n", encoding="utf-8")
    errlog = tmp_path / "server-stderr.txt"

    async def script(session):
        first = await session.call_tool("find_skill", {"query": QUERY})
        second = await session.call_tool("find_skill", {"query": "deploy"})
        await session.call_tool("load_skill", {"name": "refund-policy"})
        return first, second

    first, second = talk(cli_project, errlog, script, SKILLSIFT_SEARCH_MODE="hybrid")
    for result in (first, second):
        doc = json.loads(_text(result))
        assert (doc["ranking"], doc["degraded"]) == ("lexical", "no_index")
    assert json.loads(_text(first))["results"] == search_json(capsys, cli_project, QUERY)["results"]
    assert not log_file(cli_project).exists()
    stderr = errlog.read_text(encoding="utf-8")
    assert stderr.count("no usable index, ranking lexically") == 1
    assert stderr.count("a repository cannot start recording queries") == 1


def test_stdout_carries_only_protocol(cli_project):
    """A raw session: every line the server writes on stdout is a JSON-RPC message."""
    pytest.importorskip("mcp")
    (cli_project / "skillsift.toml").write_text("[search]\nlog_queries = true\n", encoding="utf-8")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "find_skill", "arguments": {"query": "deploy"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "load_skill", "arguments": {"name": "../x"}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "skillsift", "mcp", "--root", str(cli_project)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=server_env(SKILLSIFT_SEARCH_MODE="hybrid"))
    try:
        replies: dict = {}
        proc.stdin.write((json.dumps(messages[0]) + "\n").encode())
        proc.stdin.flush()
        replies[1] = json.loads(proc.stdout.readline())
        for message in messages[1:]:
            proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        while 2 not in replies or 3 not in replies:
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode()
            doc = json.loads(line)  # fails on anything that is not protocol
            assert doc["jsonrpc"] == "2.0"
            if "id" in doc:
                replies[doc["id"]] = doc
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert replies[1]["result"]["serverInfo"]["name"] == "skillsift"
    found = json.loads(replies[2]["result"]["content"][0]["text"])
    assert found["degraded"] == "no_index" and found["results"][0]["name"] == "deploy-staging"
    assert replies[3]["result"]["isError"] is True
    stderr = proc.stderr.read().decode()
    assert "no usable index" in stderr and "cannot start recording queries" in stderr


# -- answers for every request (issue: surrogates, huge queries, bad arguments) -------------------


class RawServer:
    """`skillsift mcp` spoken to line by line, each reply awaited with a time limit."""

    def __init__(self, root: Path, **env):
        import queue
        import threading

        self.proc = subprocess.Popen([sys.executable, "-m", "skillsift", "mcp", "--root", str(root)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=server_env(**env))
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, message: dict) -> None:
        self.proc.stdin.write((json.dumps(message) + "\n").encode())  # ASCII: a lone surrogate is sent escaped
        self.proc.stdin.flush()

    def request(self, rid: int, method: str, params: dict, timeout: float = 60) -> dict:
        import queue

        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            try:
                doc = json.loads(self.lines.get(timeout=timeout))
            except queue.Empty:
                raise AssertionError(f"no answer to request {rid} ({method}) in {timeout} s") from None
            if doc.get("id") == rid:
                return doc

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def _error_text(reply: dict) -> str:
    if "error" in reply:
        return reply["error"]["message"]
    assert reply["result"]["isError"] is True, reply
    return reply["result"]["content"][0]["text"]


def test_every_request_gets_an_answer_even_a_lone_surrogate_or_a_huge_query(cli_project):
    pytest.importorskip("mcp")
    server = RawServer(cli_project)
    try:
        calls = [
            ("find_skill", {"query": "\ud800"}),
            ("find_skill", {"query": "deploy \udfff staging"}),
            ("find_skill", {"query": "deploy", "role": "\ud800"}),
            ("load_skill", {"name": "\ud800"}),
            ("search_skills", {"query": "\ud800"}),
            ("find_skill", {"query": "x" * 10_000_000}),
            ("search_skills", {"query": "deploy " * 3000}),
        ]
        replies = [server.request(10 + i, "tools/call", {"name": name, "arguments": args})
                   for i, (name, args) in enumerate(calls)]
        unknown = server.request(99, "tools/call", {"name": "\ud800", "arguments": {}})
        still = server.request(100, "tools/call", {"name": "find_skill", "arguments": {"query": "deploy"}})
    finally:
        server.close()
    # a lone surrogate reads as U+FFFD (as undecodable bytes do): the call is answered
    first = json.loads(replies[0]["result"]["content"][0]["text"])
    assert first["query"] == "\ufffd" and first["results"] == []
    second = json.loads(replies[1]["result"]["content"][0]["text"])
    assert second["results"][0]["name"] == "deploy-staging"
    assert 'unknown role "\ufffd"' in _error_text(replies[2])
    assert "no skill named" in _error_text(replies[3])
    assert json.loads(replies[4]["result"]["content"][0]["text"])["results"] == []
    for reply in replies[5:]:
        text = _error_text(reply)
        assert "at most 16384 characters" in text and "xxxx" not in text and "deploy deploy" not in text
    assert _error_text(unknown)
    assert json.loads(still["result"]["content"][0]["text"])["results"][0]["name"] == "deploy-staging"


def test_the_service_refuses_queries_it_cannot_answer(cli_project, service_for):
    service = service_for(cli_project)
    with pytest.raises(ToolRefused, match="not valid Unicode"):
        service.find_skill("deploy \ud800")
    with pytest.raises(ToolRefused, match="at most 16384"):
        service.find_skill("x" * 16385)
    with pytest.raises(ToolRefused, match="at most 16384"):
        service.search_skills("x" * 16385)
    assert service.find_skill("deploy " + "x" * 16377)["results"][0]["name"] == "deploy-staging"  # at the limit


def test_initialize_reports_the_version_and_schemas_state_the_bounds(cli_project, tmp_path):
    from skillsift import __version__

    async def script(session):
        return session.initialized_with, await session.list_tools()

    init, tools = talk(cli_project, tmp_path / "err.txt", script)
    info = getattr(init, "server_info", None) or init.serverInfo
    assert info.name == "skillsift" and info.version == __version__
    schemas = {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in tools.tools}
    find = schemas["find_skill"]["properties"]
    assert (find["limit"]["minimum"], find["limit"]["maximum"], find["limit"]["default"]) == (1, 20, 5)
    assert (find["query"]["minLength"], find["query"]["maxLength"]) == (1, 16384)
    assert schemas["find_skill"]["required"] == ["query"]
    listing = schemas["search_skills"]["properties"]
    assert (listing["limit"]["minimum"], listing["limit"]["maximum"], listing["limit"]["default"]) == (1, 100, 10)
    assert schemas["load_skill"]["required"] == ["name"]


def test_bad_arguments_are_answered_with_a_plain_sentence(cli_project, tmp_path):
    calls = [
        ("find_skill", {}),
        ("find_skill", {"query": "deploy", "limit": 0}),
        ("find_skill", {"query": "deploy", "limit": "many"}),
        ("find_skill", {"query": ["deploy"]}),
        ("load_skill", {}),
        ("search_skills", {"limit": 500}),
    ]

    async def script(session):
        return [await session.call_tool(name, args) for name, args in calls]

    results = talk(cli_project, tmp_path / "err.txt", script)
    texts = [_text(r) for r in results]
    assert all(_error(r) for r in results)
    assert texts == [
        "find_skill needs a query: the request in plain words, at most 16384 characters",
        "limit must be an integer between 1 and 20",
        "limit must be an integer between 1 and 20",
        "find_skill needs a query: the request in plain words, at most 16384 characters",
        "load_skill needs the name of a skill (see find_skill or search_skills)",
        "limit must be an integer between 1 and 100",
    ]
    for text in texts:
        assert "pydantic" not in text and "http" not in text and "validation error" not in text

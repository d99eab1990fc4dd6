"""`skillsift mcp` answers every line (docs/mcp.md, "Every request gets an answer") and returns structured results.

Raw lines over a real pipe to the server process, and the official MCP client for the structured results.
"""

from __future__ import annotations

import io
import json

import pytest

from skillsift.mcpserver.protocol import MAX_LINE_BYTES, TOO_LONG, read_lines
from tests.mcpserver.test_mcp import RawServer, _text, search_json, talk


class LineServer(RawServer):
    def raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_reply(self, timeout: float = 60) -> dict:
        import queue

        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no answer in {timeout} s") from None


def nested(depth: int, leaf="deploy"):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_every_line_gets_an_answer(cli_project):
    server = LineServer(cli_project)
    try:
        answers = {}
        for name, line in [
            ("not json", b"this is not json\n"),
            ("truncated", b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list"\n'),
            ("array", b"[1, 2]\n"),
            ("number", b"5\n"),
            ("no method", b'{"jsonrpc": "2.0", "id": 7}\n'),
            ("bad id", b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}\n'),
            ("deep json", b'{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"a": ' + b"[" * 100_000
             + b"]" * 100_000 + b"}}\n"),
            ("not utf-8", b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "x": "\xff\xfe"}\n'),
        ]:
            server.raw(line)
            answers[name] = server.next_reply()
        deep_query = server.request(10, "tools/call", {"name": "find_skill", "arguments": {"query": nested(200)}})
        deep_extra = server.request(11, "tools/call", {"name": "find_skill",
                                                       "arguments": {"query": "deploy", "x": nested(200)}})
        deep_params = server.request(12, "tools/call", {"name": "find_skill", "arguments": {"query": "deploy"},
                                                        "_meta": nested(200)})
        unknown = server.request(13, "resources/list", {})
        not_object = server.request(14, "tools/call", {"name": "find_skill", "arguments": [1, 2]})
        still = server.request(15, "tools/call", {"name": "find_skill", "arguments": {"query": "deploy"}})
    finally:
        server.close()
    for name in ("not json", "truncated"):
        assert answers[name]["error"]["code"] == -32700
        assert "not JSON" in answers[name]["error"]["message"]
    assert answers["not json"]["id"] is None and answers["truncated"]["id"] == 3  # its id is found all the same
    assert answers["deep json"]["error"]["code"] == -32600 and "nested too deeply" in answers["deep json"]["error"][
        "message"]
    assert answers["deep json"]["id"] == 8
    for name in ("array", "number", "no method", "bad id"):
        assert answers[name]["error"]["code"] == -32600, answers[name]
    assert answers["no method"]["id"] == 7 and answers["bad id"]["id"] is None
    assert answers["not utf-8"] == {"jsonrpc": "2.0", "id": 9, "result": {}}  # read as U+FFFD, answered
    assert deep_query["result"]["isError"] is True
    assert deep_query["result"]["content"][0]["text"].startswith("find_skill needs a query")
    for reply in (deep_extra, deep_params, still):
        assert reply["result"]["structuredContent"]["results"][0]["name"] == "deploy-staging"
    assert unknown["error"]["code"] == -32601
    assert not_object["result"]["isError"] is True and "JSON object" in not_object["result"]["content"][0]["text"]


def test_a_line_over_the_limit_is_refused_and_the_next_one_answered_promptly(cli_project):
    server = LineServer(cli_project)
    try:
        huge = b'{"jsonrpc": "2.0", "id": 20, "method": "ping", "params": {"x": "' + b"x" * (32 << 20) + b'"}}\n'
        server.raw(huge)
        refused = server.next_reply(timeout=30)
        big_but_allowed = server.request(21, "tools/call", {"name": "find_skill", "arguments": {
            "query": "deploy", "x": "y" * (8 << 20)}}, timeout=30)
        after = server.request(22, "tools/call", {"name": "find_skill", "arguments": {"query": "deploy"}},
                               timeout=10)  # quadratic reading took 13-20 s here
    finally:
        server.close()
    assert refused["id"] == 20 and refused["error"]["code"] == -32600
    assert f"{MAX_LINE_BYTES:,} bytes" in refused["error"]["message"] and "xxx" not in refused["error"]["message"]
    assert big_but_allowed["result"]["isError"] is False
    assert after["result"]["structuredContent"]["results"][0]["name"] == "deploy-staging"


class Chunks(io.RawIOBase):
    """A stream handing out fixed pieces, as a pipe does."""

    def __init__(self, pieces):
        self.pieces = list(pieces)
        self.reads = 0

    def read1(self, n=-1):
        self.reads += 1
        return self.pieces.pop(0) if self.pieces else b""


def test_the_line_reader_splits_across_chunks_and_drops_only_the_long_line():
    stream = Chunks([b"ab", b"c\nde", b"f\n" + b"x" * 10, b"x" * 10, b"x\ntail\n\nlast"])
    assert list(read_lines(stream, limit=12)) == [b"abc", b"def", TOO_LONG, b"tail", b"", b"last"]
    exact = Chunks([b"x" * 12 + b"\n", b"y" * 13 + b"\n"])
    assert list(read_lines(exact, limit=12)) == [b"x" * 12, TOO_LONG]
    # linear: one read per chunk, the long line is never kept whole
    many = Chunks([b"z" * 1000] * 500 + [b"\nok\n"])
    assert list(read_lines(many, limit=4096)) == [TOO_LONG, b"ok"] and many.reads == 502


def test_results_are_structured_with_declared_output_schemas(cli_project, tmp_path, capsys):
    async def script(session):
        tools = await session.list_tools()
        found = await session.call_tool("find_skill", {"query": "deploy"})  # the client checks the schema
        listed = await session.call_tool("search_skills", {"query": ""})
        loaded = await session.call_tool("load_skill", {"name": "refund-policy"})
        refused = await session.call_tool("load_skill", {"name": "ghost"})
        bad = await session.call_tool("find_skill", {"query": "deploy", "limit": 0})
        return tools, found, listed, loaded, refused, bad

    tools, found, listed, loaded, refused, bad = talk(cli_project, tmp_path / "err.txt", script)
    schemas = {t.name: t.output_schema if "output_schema" in type(t).model_fields else t.outputSchema
               for t in tools.tools}
    assert schemas["find_skill"]["properties"]["ranking"] == {"enum": ["lexical", "hybrid", "vector"]}
    assert schemas["search_skills"] == schemas["find_skill"]
    assert schemas["load_skill"]["required"] == ["name", "text"]

    def structured(result):
        if hasattr(type(result), "structured_content") or "structured_content" in type(result).model_fields:
            return result.structured_content  # SDK 2.x
        return result.structuredContent  # SDK 1.x

    assert structured(found) == json.loads(_text(found)) == search_json(capsys, cli_project, "deploy")
    assert [r["name"] for r in structured(listed)["results"]][:2] == ["deploy-staging", "git-workflow"]
    skill_md = cli_project / ".claude" / "skills" / "refund-policy" / "SKILL.md"
    assert structured(loaded) == {"name": "refund-policy", "text": skill_md.read_text(encoding="utf-8")}
    assert _text(loaded) == skill_md.read_text(encoding="utf-8")
    # one error style: a tool result marked as an error, one plain sentence, nothing structured
    for result, sentence in ((refused, 'no skill named "ghost"'), (bad, "limit must be an integer between 1 and 20")):
        assert getattr(result, "is_error", getattr(result, "isError", False)) is True
        assert sentence in _text(result) and structured(result) is None


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"])
def test_protocol_versions_are_negotiated(cli_project, version):
    server = RawServer.__new__(RawServer)
    import queue
    import subprocess
    import sys
    import threading

    from tests.mcpserver.test_mcp import server_env

    server.proc = subprocess.Popen([sys.executable, "-m", "skillsift", "mcp", "--root", str(cli_project)],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=server_env())
    server.lines = queue.Queue()
    threading.Thread(target=server._read, daemon=True).start()
    try:
        reply = server.request(1, "initialize", {"protocolVersion": version, "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "0"}})
    finally:
        server.close()
    assert reply["result"]["protocolVersion"] == (version if version != "1999-01-01" else "2025-11-25")
    assert reply["result"]["capabilities"] == {"tools": {"listChanged": False}}


def _deep(depth: int, kind: str) -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("kind", ["list", "object"])
def test_a_request_nested_thousands_deep_is_answered_with_its_id_and_the_server_keeps_serving(cli_project, kind):
    """Written as the official MCP client writes a request (``id`` after ``params``), as a string id too."""
    server = LineServer(cli_project)
    try:
        replies = []
        for n, depth in enumerate((5_000, 200_000, 2_000_000)):
            rid: object = 30 + n if n != 1 else f"req-{n}"
            line = ('{"method":"tools/call","params":{"name":"find_skill","arguments":{"query":"deploy","x":'
                    + _deep(depth, kind) + '}},"jsonrpc":"2.0","id":' + json.dumps(rid) + "}\n")
            server.raw(line.encode())
            replies.append((rid, server.next_reply(timeout=20)))
        # nested in the id's place or unclosed: answered, with no id to give
        server.raw(b'{"jsonrpc":"2.0","id":' + _deep(5_000, kind).encode() + b',"method":"ping"}\n')
        no_id = server.next_reply(timeout=20)
        server.raw(b'{"jsonrpc":"2.0","id":40,"method":"ping","params":' + b"[" * 300_000 + b"\n")
        unclosed = server.next_reply(timeout=20)
        after = server.request(41, "tools/call", {"name": "find_skill", "arguments": {"query": "deploy"}}, timeout=20)
    finally:
        server.close()
    for rid, reply in replies:
        assert reply["id"] == rid and reply["error"]["code"] == -32600, reply
        assert "nested too deeply" in reply["error"]["message"]
    assert no_id["id"] is None and no_id["error"]["code"] == -32600
    assert unclosed["id"] == 40 and unclosed["error"]["code"] in (-32600, -32700)
    assert after["result"]["structuredContent"]["results"][0]["name"] == "deploy-staging"


def test_the_deepest_arguments_the_official_client_sends_are_answered_and_the_session_goes_on(cli_project, tmp_path):
    """The official MCP client refuses to write a request nested much deeper than 250 levels (its serialiser
    stops), so deeper ones are sent raw above; what it does send is answered, and the session goes on."""
    pytest.importorskip("mcp")

    async def script(session):
        extra = await session.call_tool("find_skill", {"query": "deploy", "x": nested(250)})
        as_query = await session.call_tool("find_skill", {"query": nested(250)})
        found = await session.call_tool("find_skill", {"query": "deploy"})
        return extra, as_query, found

    extra, as_query, found = talk(cli_project, tmp_path / "stderr.txt", script)
    assert json.loads(_text(extra))["results"][0]["name"] == "deploy-staging"
    assert getattr(as_query, "is_error", None) or getattr(as_query, "isError", None)
    assert _text(as_query).startswith("find_skill needs a query")
    assert json.loads(_text(found))["results"][0]["name"] == "deploy-staging"

"""Requests nested 5,000 deep in shapes the protocol tests do not send: answered quickly, the server serves on.

Raw lines over a real pipe (tests/mcpserver/test_mcp_protocol.py's LineServer): objects rather than lists,
a deep id, a deep tool name, deep arguments of every tool, then an ordinary query that must still rank.
"""

from __future__ import annotations

import json
import time

from tests.mcpserver.test_mcp_protocol import LineServer

DEPTH = 5000


def deep_object(depth: int = DEPTH, leaf=1) -> str:
    return '{"a": ' * depth + json.dumps(leaf) + "}" * depth


def deep_mixed(depth: int = DEPTH) -> str:
    return '{"a": [' * (depth // 2) + '"x"' + "]}" * (depth // 2)


def line(rid, method: str, params: str) -> bytes:
    return (f'{{"jsonrpc": "2.0", "id": {rid}, "method": {json.dumps(method)}, "params": {params}}}\n').encode()


def test_requests_nested_5000_deep_are_answered_quickly_and_the_server_serves_on(cli_project):
    server = LineServer(cli_project)
    try:
        sent = [
            ("object params", line(1, "ping", deep_object())),
            ("mixed params", line(2, "tools/list", deep_mixed())),
            ("deep id", b'{"jsonrpc": "2.0", "id": ' + deep_object().encode() + b', "method": "ping"}\n'),
            ("deep tool name", line(4, "tools/call", '{"name": ' + deep_object() + "}")),
            ("deep find_skill", line(5, "tools/call", '{"name": "find_skill", "arguments": {"query": "deploy", '
                                                      '"role": ' + deep_object() + "}}")),
            ("deep search_skills", line(6, "tools/call", '{"name": "search_skills", "arguments": {"query": '
                                                         + deep_mixed() + "}}")),
            ("deep get_skill", line(7, "tools/call", '{"name": "get_skill", "arguments": {"name": '
                                                     + deep_object() + "}}")),
        ]
        answers, spent = {}, {}
        for name, data in sent:
            start = time.monotonic()
            server.raw(data)
            answers[name] = server.next_reply(timeout=30)
            spent[name] = time.monotonic() - start
        still = server.request(9, "tools/call", {"name": "find_skill", "arguments": {"query": "deploy to staging"}})
    finally:
        server.close()
    for name, reply in answers.items():
        assert spent[name] < 10, (name, spent[name])
        assert "error" in reply or reply.get("result", {}).get("isError") is True, (name, reply)
        text = json.dumps(reply)
        assert len(text) < 4096, (name, len(text))  # a bounded answer: nothing of the deep value echoed
    assert answers["object params"]["id"] == 1 and answers["deep id"]["id"] is None
    assert still["result"]["structuredContent"]["results"][0]["name"] == "deploy-staging"

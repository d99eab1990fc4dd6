"""The MCP server object: the tools of a :class:`SkillService` registered with the official SDK.

Works with the SDK's 1.x line (``FastMCP``) and its 2.x line (``MCPServer``).  Tool
results are JSON text (the search.v1 document for ``find_skill`` and ``search_skills``,
the SKILL.md text for ``load_skill``).  Nothing here writes to standard output: while a
tool runs, stray ``print`` output is sent to stderr so that stdout carries only protocol.
"""

import contextlib
import json
import sys

from .service import LIST_MAX_LIMIT, MAX_LIMIT, SkillService, ToolRefused

SERVER_NAME = "skillsift"
INSTRUCTIONS = (
    "Skills are folders of instructions for tasks in this repository. Before starting a task, call "
    "find_skill with the request in plain words; if a result fits, call load_skill with its name and "
    "follow the SKILL.md it returns."
)
FIND_SKILL_DOC = (
    "Find the skills that fit a request, best first. Returns the search.v1 JSON document: ranking "
    "(lexical, hybrid or vector), degraded (why vectors were not used, or null), abstained (true when no "
    f"skill is a confident match) and results (name, description, score, ranks). limit: 1-{MAX_LIMIT} "
    "(default 5). role: rank the skills that role serves first."
)
LOAD_SKILL_DOC = "Return the SKILL.md text of the skill called name (a name from find_skill or search_skills)."
SEARCH_SKILLS_DOC = (
    "List skills by keyword match only (BM25F), as search.v1 JSON; a blank query lists every skill by name. "
    f"limit: 1-{LIST_MAX_LIMIT} (default 10)."
)


def server_classes():
    """(server class, ToolError class) of the installed SDK."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError
    except ImportError:
        from mcp.server.fastmcp import FastMCP
        from mcp.server.fastmcp.exceptions import ToolError
        return FastMCP, ToolError


def _call(tool_error, fn, *args):
    with contextlib.redirect_stdout(sys.stderr):
        try:
            return fn(*args)
        except ToolRefused as exc:
            raise tool_error(str(exc)) from None


def _register(server, fn, description: str) -> None:
    """Register ``fn`` as a tool returning plain text (no duplicate structured copy when the SDK can say so)."""
    try:
        server.tool(name=fn.__name__, description=description, structured_output=False)(fn)
    except TypeError:  # SDK releases before structured output
        server.tool(name=fn.__name__, description=description)(fn)


def build_server(service: SkillService):
    """An SDK server exposing ``find_skill``, ``load_skill`` and ``search_skills`` of ``service``."""
    server_class, tool_error = server_classes()
    server = server_class(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    def find_skill(query: str, limit: int = 5, role: str | None = None) -> str:
        doc = _call(tool_error, service.find_skill, query, limit, role)
        return json.dumps(doc, ensure_ascii=False)

    def load_skill(name: str) -> str:
        return _call(tool_error, service.load_skill, name)

    def search_skills(query: str = "", limit: int = 10) -> str:
        doc = _call(tool_error, service.search_skills, query, limit)
        return json.dumps(doc, ensure_ascii=False)

    _register(server, find_skill, FIND_SKILL_DOC)
    _register(server, load_skill, LOAD_SKILL_DOC)
    _register(server, search_skills, SEARCH_SKILLS_DOC)
    return server


def run_stdio(service: SkillService) -> None:
    """Serve ``service`` over stdin/stdout until the client closes the connection."""
    build_server(service).run("stdio")

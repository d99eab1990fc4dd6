"""The MCP server object: the tools of a :class:`SkillService` registered with the official SDK.

Works with the SDK's 1.x line (``FastMCP``) and its 2.x line (``MCPServer``).  Tool
results are JSON text (the search.v1 document for ``find_skill`` and ``search_skills``,
the SKILL.md text for ``load_skill``).  Nothing here writes to standard output: while a
tool runs, stray ``print`` output is sent to stderr so that stdout carries only protocol.

Every call gets an answer that can be sent: text that is not valid Unicode (a lone
surrogate) is escaped, and a bad or missing argument is answered with a plain sentence
(``ARGUMENT_SENTENCES``), never the SDK's validation text or the value sent.  The input
schemas state the bounds of ``limit`` and the query size limit (``docs/mcp.md``).
"""

import contextlib
import io
import json
import re
import sys
from typing import Annotated

from pydantic import Field

from .._version import __version__
from .service import LIST_MAX_LIMIT, MAX_LIMIT, MAX_QUERY_CHARS, SkillService, ToolRefused

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


# What a bad or missing argument is answered with (never the value the client sent).
ARGUMENT_SENTENCES = {
    ("find_skill", "query"): f"find_skill needs a query: the request in plain words, at most {MAX_QUERY_CHARS} "
                             "characters",
    ("find_skill", "limit"): f"limit must be an integer between 1 and {MAX_LIMIT}",
    ("find_skill", "role"): "role must be the name of a role (text)",
    ("load_skill", "name"): "load_skill needs the name of a skill (see find_skill or search_skills)",
    ("search_skills", "query"): f"query must be text of at most {MAX_QUERY_CHARS} characters",
    ("search_skills", "limit"): f"limit must be an integer between 1 and {LIST_MAX_LIMIT}",
}


def sendable(text: str) -> str:
    """``text`` as valid UTF-8: a lone surrogate cannot be sent, so it is written as an escape."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def argument_problem(tool: str, error) -> str:
    """A plain sentence for a pydantic ValidationError on ``tool``'s arguments."""
    fields = sorted({str(err["loc"][0]) for err in error.errors() if err.get("loc")})
    known = [ARGUMENT_SENTENCES[(tool, f)] for f in fields if (tool, f) in ARGUMENT_SENTENCES]
    if known:
        return "; ".join(known)
    return f"{tool} got an argument it does not take or cannot read: {', '.join(fields) or 'unknown'}"


def _call(tool_error, fn, *args):
    with contextlib.redirect_stdout(sys.stderr):
        try:
            return fn(*args)
        except ToolRefused as exc:
            raise tool_error(sendable(str(exc))) from None


def _register(server, fn, description: str) -> None:
    """Register ``fn`` as a tool returning plain text (no duplicate structured copy when the SDK can say so)."""
    try:
        server.tool(name=fn.__name__, description=description, structured_output=False)(fn)
    except TypeError:  # SDK releases before structured output
        server.tool(name=fn.__name__, description=description)(fn)


def _server_class(base, tool_error):
    """``base`` answering every failed call with a sentence a person reads (and that can be sent)."""

    class Server(base):
        async def call_tool(self, name, arguments, *args, **kwargs):
            from pydantic import ValidationError

            try:
                return await super().call_tool(name, arguments, *args, **kwargs)
            except tool_error as exc:
                cause = exc.__cause__
                if isinstance(cause, ValidationError):
                    raise tool_error(argument_problem(str(name), cause)) from None
                raise tool_error(sendable(str(exc))) from None

    Server.__name__ = base.__name__
    return Server


def _make(server_class):
    """The server, reporting skillsift's version in ``initialize``.

    SDK 2.x takes ``version``; 1.x keeps it on its low-level server (and may accept and
    ignore the keyword), so it is set there when still empty.
    """
    try:
        server = server_class(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", version=__version__)
    except TypeError:
        server = server_class(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")
    lowlevel = getattr(server, "_mcp_server", None)
    if lowlevel is not None and not getattr(lowlevel, "version", None):
        lowlevel.version = __version__
    return server


Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="The request in plain words.")]


def build_server(service: SkillService):
    """An SDK server exposing ``find_skill``, ``load_skill`` and ``search_skills`` of ``service``."""
    base, tool_error = server_classes()
    server = _make(_server_class(base, tool_error))

    def find_skill(query: Query,
                   limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="How many skills to return.")] = 5,
                   role: Annotated[str | None, Field(description="Rank the skills this role serves first.")] = None,
                   ) -> str:
        doc = _call(tool_error, service.find_skill, query, limit, role)
        return sendable(json.dumps(doc, ensure_ascii=False))

    def load_skill(name: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                                              description="A skill name from find_skill or search_skills.")]) -> str:
        return sendable(_call(tool_error, service.load_skill, name))

    def search_skills(query: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                                  description="Keywords; blank lists every skill by name.")] = "",
                      limit: Annotated[int, Field(ge=1, le=LIST_MAX_LIMIT,
                                                  description="How many skills to return.")] = 10) -> str:
        doc = _call(tool_error, service.search_skills, query, limit)
        return sendable(json.dumps(doc, ensure_ascii=False))

    _register(server, find_skill, FIND_SKILL_DOC)
    _register(server, load_skill, LOAD_SKILL_DOC)
    _register(server, search_skills, SEARCH_SKILLS_DOC)
    return server


_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_lone_surrogates(value):
    """``value`` (parsed JSON) with each lone surrogate replaced by U+FFFD; the same object when it holds none."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        items = [_without_lone_surrogates(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = [(_without_lone_surrogates(k), _without_lone_surrogates(v)) for k, v in value.items()]
        same = all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True))
        return value if same else dict(pairs)
    return value


def safe_line(line: bytes) -> bytes:
    """A JSON-RPC line the SDK can parse: lone surrogate escapes (``\\ud800``) become U+FFFD.

    The SDK's JSON parser rejects such a line and then answers nothing, so the client
    waits for ever; undecodable bytes it already reads as U+FFFD.  Other lines pass as they are.
    """
    if b"\\ud" not in line and b"\\uD" not in line:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    fixed = _without_lone_surrogates(message)
    if fixed is message:
        return line
    return json.dumps(fixed, ensure_ascii=False).encode("utf-8") + b"\n"


class _SafeLines(io.RawIOBase):
    """The lines of ``source`` (a binary stream) passed through :func:`safe_line`."""

    def __init__(self, source):
        self._source = source
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self._pending:
            self._pending = safe_line(self._source.readline())
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def run_stdio(service: SkillService) -> None:
    """Serve ``service`` over stdin/stdout until the client closes the connection."""
    server = build_server(service)
    original = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BufferedReader(_SafeLines(original.buffer)), encoding="utf-8",
                                 errors="replace")
    try:
        server.run("stdio")
    finally:
        sys.stdin = original

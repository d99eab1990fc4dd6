"""The MCP protocol over stdio: JSON-RPC 2.0, one message per line, answered by skillsift itself.

The server speaks the part of the Model Context Protocol its three tools need
(``initialize``, ``ping``, ``tools/list``, ``tools/call``; notifications are read and
need no answer), without the MCP SDK: importing the SDK was most of a second of start-up
(docs/mcp.md, "Start-up").  Every line gets an answer (docs/mcp.md, "Every request gets
an answer"):

* a line that is not JSON: ``-32700`` (parse error);
* a line nested deeper than the parser reads (about a thousand levels of arrays and objects):
  ``-32600``; nothing after the parser recurses, so any nesting it returns is answered;
* JSON that is not a request object (an array, a number, no ``method``): ``-32600``;
* a line longer than :data:`MAX_LINE_BYTES`: ``-32600`` with the limit; the rest of the
  line is skipped without being kept and the next line is read as usual.  Lines are
  read in chunks and searched for the line feed only in new bytes, so reading is
  linear in the input;
* each of these errors carries the request's ``id`` whenever one can be found: the line's
  top-level ``"id"`` is looked for by a bounded scan of its first and last
  :data:`ID_SCAN_BYTES` (:func:`request_id`), so a client waiting for that id gets its answer
  instead of waiting for ever; ``id`` is null only when none is found;
* an unknown method: ``-32601``; ``params`` that are not an object: ``-32602``;
* a failed tool call (a bad argument, a refused name or query): a tool result with
  ``isError: true`` and one plain sentence: one style for every tool error.

Tool results carry the JSON text and, beside it, ``structuredContent`` that the tool's
declared ``outputSchema`` describes (search.v1 for ``find_skill`` and ``search_skills``).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import traceback

from .._version import __version__
from .rpc_id import ID_SCAN_BYTES, request_id
from .service import LIST_MAX_LIMIT, MAX_LIMIT, MAX_QUERY_CHARS, ToolRefused

SERVER_NAME = "skillsift"
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")  # oldest first
MAX_LINE_BYTES = 16 << 20  # one JSON-RPC message; a longer line is refused (docs/mcp.md)
CHUNK_BYTES = 1 << 16
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603


class TooLong:
    """What the line reader yields for a line over the limit: the line's first bytes (to find its id)."""

    __slots__ = ("head",)

    def __init__(self, head: bytes = b""):
        self.head = head

    def __eq__(self, other) -> bool:
        return isinstance(other, TooLong)

    def __hash__(self) -> int:
        return hash(TooLong)


TOO_LONG = TooLong()

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


def _text(description: str, *, min_length: int = 0) -> dict:
    schema: dict = {"type": "string", "description": description}
    if min_length:
        schema["minLength"] = min_length
    schema["maxLength"] = MAX_QUERY_CHARS
    return schema


def _limit(maximum: int, default: int) -> dict:
    return {"type": "integer", "minimum": 1, "maximum": maximum, "default": default,
            "description": "How many skills to return."}


def _search_schema() -> dict:
    """The search.v1 schema shipped in skillsift/schemas, as a tool's output schema."""
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "schemas" / "search.v1.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema.pop("$schema", None)
    schema.pop("$id", None)
    return schema


LOAD_OUTPUT = {"type": "object", "additionalProperties": False, "required": ["name", "text"],
               "properties": {"name": {"type": "string", "description": "The skill's name."},
                              "text": {"type": "string", "description": "The text of its SKILL.md."}}}


def tool_list() -> list[dict]:
    """The ``tools/list`` entries: names, descriptions, input and output schemas."""
    search = _search_schema()
    return [
        {"name": "find_skill", "description": FIND_SKILL_DOC,
         "inputSchema": {"type": "object", "required": ["query"], "properties": {
             "query": _text("The request in plain words.", min_length=1),
             "limit": _limit(MAX_LIMIT, 5),
             "role": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
                      "description": "Rank the skills this role serves first."}}},
         "outputSchema": search},
        {"name": "load_skill", "description": LOAD_SKILL_DOC,
         "inputSchema": {"type": "object", "required": ["name"], "properties": {
             "name": _text("A skill name from find_skill or search_skills.", min_length=1)}},
         "outputSchema": LOAD_OUTPUT},
        {"name": "search_skills", "description": SEARCH_SKILLS_DOC,
         "inputSchema": {"type": "object", "properties": {
             "query": {**_text("Keywords; blank lists every skill by name."), "default": ""},
             "limit": _limit(LIST_MAX_LIMIT, 10)}},
         "outputSchema": search},
    ]


# -- arguments -----------------------------------------------------------------------------------


def _is_int(value, maximum: int) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return isinstance(value, int) and 1 <= value <= maximum


def _text_ok(value, *, min_length: int = 0) -> bool:
    return isinstance(value, str) and min_length <= len(value) <= MAX_QUERY_CHARS


def check_arguments(tool: str, args: dict) -> tuple[dict, str]:
    """(the arguments the tool takes, "" ) or ({}, the sentence naming every bad argument)."""
    bad: list[str] = []
    out: dict = {}
    if tool == "find_skill":
        out["query"] = args.get("query")
        if not _text_ok(out["query"], min_length=1):
            bad.append("query")
        out["limit"] = args.get("limit", 5)
        if not _is_int(out["limit"], MAX_LIMIT):
            bad.append("limit")
        out["role"] = args.get("role")
        if out["role"] is not None and not isinstance(out["role"], str):
            bad.append("role")
    elif tool == "load_skill":
        out["name"] = args.get("name")
        if not _text_ok(out["name"], min_length=1):
            bad.append("name")
    else:
        out["query"] = args.get("query", "")
        if not _text_ok(out["query"]):
            bad.append("query")
        out["limit"] = args.get("limit", 10)
        if not _is_int(out["limit"], LIST_MAX_LIMIT):
            bad.append("limit")
    if bad:
        return {}, "; ".join(ARGUMENT_SENTENCES[(tool, field)] for field in sorted(bad))
    if "limit" in out:
        out["limit"] = int(out["limit"])
    return out, ""


# -- text that can be sent -----------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _each_string(value, fix) -> object:
    """``value`` (parsed JSON) with ``fix`` applied to every string, keys included; no recursion."""
    if isinstance(value, str):
        return fix(value)
    if not isinstance(value, (list, dict)):
        return value
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = fix(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        else:
            items = list(node.items())
            node.clear()
            for key, item in items:
                if isinstance(item, str):
                    item = fix(item)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
                node[fix(key) if isinstance(key, str) else key] = item
    return value


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def without_lone_surrogates(value):
    """A lone surrogate (``"\\ud800"`` in the JSON) read as U+FFFD, as bytes that are not UTF-8 are."""
    return _each_string(value, lambda s: s if _valid(s) else _SURROGATE.sub("\ufffd", s))


def sendable(text: str) -> str:
    """``text`` as valid UTF-8: a lone surrogate cannot be sent, so it is written as an escape."""
    return text if _valid(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


def encode(message: dict) -> bytes:
    """One line of JSON (UTF-8, no ASCII escaping) for ``message``."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    if not _valid(text):
        text = json.dumps(_each_string(message, sendable), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


# -- lines ---------------------------------------------------------------------------------------


def read_lines(stream, limit: int = MAX_LINE_BYTES, chunk: int = CHUNK_BYTES):
    """The lines of the binary ``stream`` (without the line feed), :data:`TOO_LONG` for each line over
    ``limit`` bytes (its bytes are dropped as they come), in time linear in the input."""
    read = getattr(stream, "read1", None) or stream.read
    buf = bytearray()
    skipping = False
    while True:
        data = read(chunk)
        if not data:
            if buf and not skipping:
                yield bytes(buf)
            return
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                if not skipping:
                    buf += data[start:]
                    if len(buf) > limit:
                        skipping = True
                        head = bytes(buf[:ID_SCAN_BYTES])
                        buf.clear()
                        yield TooLong(head)
                break
            if skipping:
                skipping = False
            else:
                buf += data[start:end]
                line = bytes(buf) if len(buf) <= limit else TooLong(bytes(buf[:ID_SCAN_BYTES]))
                buf.clear()
                yield line
            start = end + 1


# -- messages ------------------------------------------------------------------------------------


def error(rid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _result(rid, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def tool_error(sentence: str) -> dict:
    return {"content": [{"type": "text", "text": sendable(sentence)}], "isError": True}


def _id_of(rid):
    """``rid`` when it can be an id (a string, an integer), else None."""
    if isinstance(rid, str):
        return sendable(rid)
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


def _valid_id(message: dict) -> bool:
    rid = message.get("id")
    return isinstance(rid, (str, int)) and not isinstance(rid, bool)


class Handler:
    """Answers parsed messages for one :class:`~skillsift.mcpserver.service.SkillService`."""

    def __init__(self, service, warn=None):
        self.service = service
        self.warn = warn or (lambda message: print(message, file=sys.stderr, flush=True))
        self._tools: list[dict] | None = None

    def line(self, raw) -> dict | None:
        """The answer to one input line (None for a notification or a blank line)."""
        if isinstance(raw, TooLong):
            return error(_id_of(request_id(raw.head.decode("utf-8", "replace"))), INVALID_REQUEST,
                         f"the message is longer than {MAX_LINE_BYTES:,} bytes, the most skillsift mcp reads on "
                         "one line; it was not read")
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return None
        try:
            message = json.loads(text)
        except RecursionError:
            return error(_id_of(request_id(text)), INVALID_REQUEST,
                         "the message is nested too deeply to read (arrays and objects inside each other)")
        except ValueError as exc:
            return error(_id_of(request_id(text)), PARSE_ERROR,
                         f"the line is not JSON ({exc.msg} at character {exc.pos + 1})"
                         if isinstance(exc, json.JSONDecodeError) else "the line is not JSON")
        return self.message(without_lone_surrogates(message))

    def message(self, message) -> dict | None:
        if not isinstance(message, dict):
            what = "a batch (an array)" if isinstance(message, list) else f"a JSON {type(message).__name__}"
            return error(None, INVALID_REQUEST, f"expected a JSON-RPC request object, got {what}")
        rid = message.get("id") if _valid_id(message) else None
        method = message.get("method")
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str) or (
                "id" in message and message["id"] is not None and not _valid_id(message)):
            if "method" not in message and ("result" in message or "error" in message):
                return None  # a reply to a request this server never sends: nothing to answer
            return error(rid, INVALID_REQUEST, 'a request needs "jsonrpc": "2.0", a "method" (text) and an "id" '
                                               "that is a string or an integer")
        if "id" not in message:
            return None  # a notification (initialized, cancelled, ...): never answered
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return error(rid, INVALID_PARAMS, f'"params" of {method} must be an object')
        if method == "initialize":
            return _result(rid, self.initialize(params))
        if method == "ping":
            return _result(rid, {})
        if method == "tools/list":
            if self._tools is None:
                self._tools = tool_list()
            return _result(rid, {"tools": self._tools})
        if method == "tools/call":
            return self.call(rid, params)
        return error(rid, METHOD_NOT_FOUND, f'method "{sendable(method)[:200]}" is not served here; skillsift mcp '
                                            "serves initialize, ping, tools/list and tools/call")

    @staticmethod
    def initialize(params: dict) -> dict:
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
        return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": SERVER_NAME, "version": __version__}, "instructions": INSTRUCTIONS}

    def call(self, rid, params: dict) -> dict:
        name = params.get("name")
        if name not in ("find_skill", "load_skill", "search_skills"):
            shown = sendable(name)[:200] if isinstance(name, str) else "(none)"
            return error(rid, INVALID_PARAMS, f'unknown tool "{shown}"; the tools are find_skill, load_skill and '
                                              "search_skills")
        args = params.get("arguments", {})
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return _result(rid, tool_error(f"{name} takes its arguments as a JSON object"))
        values, problem = check_arguments(name, args)
        if problem:
            return _result(rid, tool_error(problem))
        return _result(rid, self._run(name, values))

    def _run(self, name: str, values: dict) -> dict:
        service = self.service
        with contextlib.redirect_stdout(sys.stderr):  # stray prints never reach the protocol stream
            try:
                if name == "load_skill":
                    text = service.load_skill(values["name"])
                    structured: dict = {"name": values["name"], "text": text}
                else:
                    structured = (service.find_skill(values["query"], values["limit"], values["role"])
                                  if name == "find_skill" else service.search_skills(values["query"], values["limit"]))
                    text = json.dumps(structured, ensure_ascii=False)
            except ToolRefused as exc:
                return tool_error(str(exc))
            except Exception as exc:  # a bug must cost one answer, not the server
                self.warn("skillsift mcp: " + "".join(traceback.format_exception(exc)).rstrip())
                return tool_error(f"{name} failed inside the server ({type(exc).__name__}); the error is on its "
                                  "standard error")
        return {"content": [{"type": "text", "text": sendable(text)}], "structuredContent": structured,
                "isError": False}


def serve(service, stdin=None, stdout=None, *, warn=None) -> None:
    """Answer the lines of ``stdin`` (binary) on ``stdout`` (binary) until the client closes stdin."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    handler = Handler(service, warn)
    for raw in read_lines(stdin):
        try:
            reply = handler.line(raw)
        except RecursionError:  # kept as a last guard: an answer, never a stopped server
            reply = error(None, INVALID_REQUEST, "the message is nested too deeply to read")
        if reply is not None:
            stdout.write(encode(reply))
            stdout.flush()

"""Where configuration comes from: the files looked for, read bounded, and lines found for diagnostics.

Every config file (``skillsift.toml``, ``[tool.skillsift]`` of ``pyproject.toml``,
``.ai-rulez/config.toml``, the user file) is read by :func:`read_toml`: at most
:data:`MAX_CONFIG_BYTES`, arrays and inline tables nested at most :data:`MAX_TOML_DEPTH`
deep (a scan before the parser, which recurses per level), integers Python can convert.
Whatever stops it is an AR9D0 problem naming the file (docs/configuration.md, "Errors").
"""

from __future__ import annotations

import os
import stat
import sys
from types import ModuleType

from ..cache import regexes
from ..diagnostics import Diagnostic
from ..files import glob_magic, is_absolute, path_mode, path_str, refused_target, relative_inside, repo_glob
from .schema import document_problems
from .user_file import user_config_name
from .values import CODE

_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_key_res: list = []


def _regexes():
    if not _key_res:
        _key_res.extend([
            regexes.compile(_KEY_PART),
            regexes.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]"),
            regexes.compile(rf"^\s*({_DOTTED})\s*=\s*(.?)"),
        ])
    return _key_res


def _split_dotted(text: str) -> tuple[str, ...]:
    if not text:
        return ()
    part_re = _regexes()[0]
    parts = []
    for match in part_re.finditer(text):
        part = match.group(0)
        parts.append(part[1:-1] if part[:1] in ("'", '"') else part)
    return tuple(parts)


def _line_paths(text: str):
    """(line number, full key path, kind, first character of the value) for each header and key line."""
    _part_re, header_re, key_re = _regexes()
    current: tuple = ()
    seen_arrays: dict[tuple, int] = {}
    multiline = ""
    for number, line in enumerate(text.splitlines(), 1):
        if multiline:
            if line.count(multiline) % 2 == 1:
                multiline = ""
            continue
        header = header_re.match(line)
        if header:
            path = _split_dotted(header.group(2))
            if header.group(1) == "[[":
                index = seen_arrays.get(path, 0)
                seen_arrays[path] = index + 1
                yield number, path, "header", ""
                current = path + (index,)
            else:
                current = path
            yield number, current, "header", ""
            continue
        key = key_re.match(line)
        if key:
            yield number, current + _split_dotted(key.group(1)), "key", key.group(2)
            for delimiter in ('"""', "'''"):
                if line.count(delimiter) % 2 == 1:
                    multiline = delimiter
                    break


class _PathLines:
    """Where each key path of one TOML text is written, indexed once for every lookup.

    A file of 50,000 unknown keys is 50,000 problems; looking each up by a walk over every
    line took quadratic time.  Each map holds the first line (entries come in line order).
    """

    __slots__ = ("exact", "inline", "prefix")

    def __init__(self, text: str):
        self.exact: dict = {}
        self.inline: dict = {}  # a key whose value is an inline table or array: `weights = { ... }`
        self.prefix: dict = {}  # every leading part of every path
        for number, found, kind, first in _line_paths(text):
            self.exact.setdefault(found, number)
            if kind == "key" and first in ("{", "["):
                self.inline.setdefault(found, number)
            for size in range(1, len(found) + 1):
                self.prefix.setdefault(found[:size], number)

    def find(self, path: tuple, *, fallback: bool) -> int | None:
        target = tuple(path)
        while target:
            number = self.exact.get(target)
            if number is not None:
                return number
            # an inline table or array of tables holding the target: the first such line
            held = [self.inline[target[:size]] for size in range(len(target)) if target[:size] in self.inline]
            if held:
                return min(held)
            if not fallback:
                return None
            # a table only defined through dotted keys: `search.mode = "x"`
            number = self.prefix.get(target)
            if number is not None:
                return number
            target = target[:-1]
        return None


_path_lines_cache: dict[str, _PathLines] = {}


def _find_path_line(text: str, path: tuple, *, fallback: bool) -> int | None:
    index = _path_lines_cache.get(text)
    if index is None:
        if len(_path_lines_cache) >= 8:
            _path_lines_cache.clear()
        index = _path_lines_cache[text] = _PathLines(text)
    try:
        return index.find(path, fallback=fallback)
    except TypeError:  # a part that cannot be a key (not hashable): no line
        return None


def find_key_line(text: str, table: str, key: str) -> int | None:
    """The 1-based line where ``key`` of ``table`` is set in TOML ``text`` (``key`` "" = the table header).

    ``table`` and ``key`` are dotted (``tool.skillsift.search``, ``weights.lexical``); a key set
    inside an inline table is found on that table's line.  None when it is not written there.
    """
    return _find_path_line(text, _split_dotted(table) + _split_dotted(key), fallback=False)


# ---------------------------------------------------------------------------
# Reading the files
# ---------------------------------------------------------------------------


class Source:
    """One config file that was read: its text, its table in skillsift's shape, where that table sits.

    ``doc`` holds the tables search, embeddings, catalog, roles, secrets, validate; ``prefix`` is
    where that table starts in the file (pyproject: ``tool.skillsift``); ``index_base`` is the
    directory a repository ``index_dir`` is relative to ("" = the root, ``.ai-rulez``).
    """

    __slots__ = ("path", "display", "text", "doc", "prefix", "ai_rulez", "index_base")

    def __init__(self, path: str, display: str, text: str, doc: dict, prefix: tuple = (),
                 ai_rulez: bool = False, index_base: str = ""):
        self.path, self.display, self.text, self.doc = path, display, text, doc
        self.prefix, self.ai_rulez, self.index_base = prefix, ai_rulez, index_base


def toml_module() -> ModuleType:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    return tomllib


def _display(path: str, root: str) -> str:
    """The name a config file is shown by: relative to the root when inside it, else as given."""
    rel = relative_inside(path, root)
    return path_str(path) if rel is None else rel


MAX_CONFIG_BYTES = 1 << 20
MAX_TOML_DEPTH = 64
_TOML_TOKEN = None


def _toml_too_deep(text: str, limit: int = MAX_TOML_DEPTH) -> int | None:
    """The offset of the first ``[`` or ``{`` opening level ``limit + 1``, outside strings and comments.

    A scan, not a parse: the TOML parser recurses once per level and would exhaust the stack.
    """
    global _TOML_TOKEN
    if text.count("[") + text.count("{") <= limit:
        return None
    if _TOML_TOKEN is None:
        import re

        _TOML_TOKEN = regexes.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"'
                                 r"|'[^'\n]*'|#[^\n]*|[\[\]{}]", re.DOTALL)
    from ..jsonio import first_too_deep

    return first_too_deep(_TOML_TOKEN.finditer(text), limit)


def _parse_toml(path: str, text: str) -> dict:
    """``tomllib.loads(text)``, from the parsed-config cache when this text was parsed before
    (:mod:`skillsift.cache.toml_docs`: a warm run does not import the TOML parser)."""
    from ..cache.toml_docs import TomlCache

    return TomlCache(os.path.dirname(path) or os.curdir).loads(text, lambda t: toml_module().loads(t))


def read_toml(path: str, display: str, problems: list[Diagnostic]) -> tuple[str, dict] | None:
    """(text, parsed document), or None after adding the AR9D0 problem that stopped it.

    Bounded (docs/configuration.md, "Errors"): at most MAX_CONFIG_BYTES, at most
    MAX_TOML_DEPTH nested arrays and inline tables, integers the parser can convert.
    """
    import re

    def refuse(message: str, line: int | None = None, hint: str = "") -> None:
        problems.append(Diagnostic(code=CODE, file=display, line=line, message=message, hint=hint))

    mode = path_mode(path)
    if mode is None or not stat.S_ISREG(mode):  # Path.is_file()
        refuse(f"{display} is not a file", hint="remove it or make it a TOML file")
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            refuse(f"{display} is larger than {MAX_CONFIG_BYTES} bytes")
            return None
        text = data.decode("utf-8-sig")
    except OSError as exc:
        refuse(f"{display} cannot be read: {exc.strerror}")
        return None
    except UnicodeDecodeError:
        refuse(f"{display} is not UTF-8 text")
        return None
    deep = _toml_too_deep(text)
    if deep is not None:
        deep_line = text.count("\n", 0, deep) + 1
        refuse(f"{display} nests arrays or inline tables deeper than {MAX_TOML_DEPTH} levels (line {deep_line})",
               deep_line, "flatten that value")
        return None
    try:
        return text, _parse_toml(path, text)
    except RecursionError:  # a backstop: the scan above should have refused it
        refuse(f"{display} nests values too deeply", hint="flatten that value")
        return None
    except toml_module().TOMLDecodeError as exc:
        detail = str(exc)
        line = column = None
        where = re.search(r"\s*\(at line (\d+), column (\d+)\)", detail)
        if where:
            line, column = int(where.group(1)), int(where.group(2))
            detail = detail[: where.start()] + detail[where.end():]
        elif "(at end of document)" in detail:
            line = max(1, len(text.splitlines()))
            detail = detail.replace(" (at end of document)", "")
        at = f" (line {line})" if line else ""
        problems.append(Diagnostic(code=CODE, file=display, line=line, column=column,
                                   message=f"{display} is not valid TOML{at}: {detail.strip()}",
                                   hint="fix the TOML syntax at that line"))
        return None
    except ValueError:  # an integer too long to convert (Python's 4300-digit limit)
        long = re.search(r"\d{4000,}", text)
        long_line = text.count("\n", 0, long.start()) + 1 if long else None
        refuse(f"{display} holds an integer too long to read" + (f" (line {long_line})" if long_line else ""),
               long_line,
               "write a number within the documented bounds")
        return None


def _ai_rulez_doc(parsed: dict) -> dict | None:
    """Map an ai-rulez ``.ai-rulez/config.toml`` onto skillsift's tables (its ``[search]`` is ours)."""
    search = parsed.get("search")
    if search is None:
        return None
    if not isinstance(search, dict):
        return {"search": search}
    search = dict(search)
    doc: dict = {"search": search}
    if "embeddings" in search:
        doc["embeddings"] = search.pop("embeddings")
    return doc


def effective_doc(source: Source) -> dict:
    """The document to merge: an ai-rulez ``[search.embeddings]`` command selects the command provider."""
    embeddings = source.doc.get("embeddings")
    if source.ai_rulez and isinstance(embeddings, dict) and embeddings.get("command"):
        return {**source.doc, "embeddings": {"provider": "command", **embeddings}}
    return source.doc


def project_source(root: str | os.PathLike, config_file, problems: list[Diagnostic]) -> Source | None:
    """The project config of the resolved ``root``: ``config_file`` when given, else the first of
    skillsift.toml, pyproject.toml (naming skillsift) and .ai-rulez/config.toml; None when there is none."""
    root = os.fspath(root)
    if config_file is not None:
        path = path_str(config_file)
        display = _display(path, root)
        if path_mode(path) is None:
            problems.append(Diagnostic(code=CODE, file=display,
                                       message=f"config file {display} does not exist",
                                       hint="check the --config path"))
            return None
        candidates = [path]
    else:
        candidates = [path_str(os.path.join(root, name)) for name in ("skillsift.toml", "pyproject.toml",
                                                                       ".ai-rulez/config.toml")]
    for path in candidates:
        mode = path_mode(path)
        if mode is None:
            continue
        if not stat.S_ISREG(mode):  # a directory (or device) where a config file is looked for
            read_toml(path, _display(path, root), problems)
            return None
        display = _display(path, root)
        folder, name = os.path.split(path)  # path_str leaves no trailing "/" nor "." part
        is_pyproject = name == "pyproject.toml"
        is_ai_rulez = name == "config.toml" and os.path.basename(folder) == ".ai-rulez"
        if is_pyproject and config_file is None:
            try:  # a pyproject that never names skillsift is not read (its size and depth are not ours)
                with open(path, "rb") as handle:
                    if b"skillsift" not in handle.read(MAX_CONFIG_BYTES + 1):
                        continue
            except OSError:
                pass  # _read_toml reports it
        read = read_toml(path, display, problems)
        if read is None:
            return None
        text, parsed = read
        if is_pyproject:
            tool = parsed.get("tool", {})
            table = tool.get("skillsift") if isinstance(tool, dict) else None
            if table is None:
                if config_file is not None:
                    return Source(path, display, text, {}, ("tool", "skillsift"))
                continue
            if not isinstance(table, dict):
                line = find_key_line(text, "tool", "skillsift")
                problems.append(Diagnostic(code=CODE, file=display, line=line,
                                           message="tool.skillsift must be a table"))
                return None
            return Source(path, display, text, table, ("tool", "skillsift"))
        if is_ai_rulez:
            doc = _ai_rulez_doc(parsed)
            if doc is None and config_file is None:
                continue
            # ai-rulez resolves index_dir against the config directory
            base = relative_inside(folder or os.curdir, root) or ""
            return Source(path, display, text, doc or {}, (), ai_rulez=True,
                           index_base="" if base == "." else base)
        return Source(path, display, text, parsed)
    return None


def user_source(root: str | os.PathLike, env, user_config_path, problems: list[Diagnostic]) -> Source | None:
    """The user config (``user_config_path``, else :func:`user_config_name`) when it exists, else None."""
    root = os.fspath(root)
    path = path_str(user_config_path) if user_config_path is not None else user_config_name(env)
    if path is None or path_mode(path) is None:
        return None
    rel = relative_inside(path, root) if is_absolute(path) else None
    display = path if rel is None else rel
    read = read_toml(path, display, problems)
    if read is None:
        return None
    text, parsed = read
    return Source(path, display, text, parsed)


def source_diagnostics(source: Source, problems) -> list[Diagnostic]:
    """The one adapter from schema problems (key path inside the document, message) to AR9D0 diagnostics.

    Each gets the source's file and the line where that key (or the nearest table holding it)
    is written.
    """
    return [Diagnostic(code=CODE, file=source.display, message=message,
                       line=_find_path_line(source.text, source.prefix + path, fallback=True))
            for path, message in problems]


def source_problems(source: Source, tables: tuple[str, ...]) -> list[Diagnostic]:
    """Every AR9D0 problem of one config file that was read, with its lines."""
    return source_diagnostics(source, document_problems(source.doc, tables, source.ai_rulez))


#: The keys of the project config that name files of the repository (relative to its root).
PATH_KEYS = (("validate", "cases"), ("validate", "baseline"), ("validate", "secrets_baseline"),
             ("search", "examples"))


def _named_paths(source: Source) -> list[tuple[tuple, str]]:
    """(key path, the path as written) for every string the project config gives a file key."""
    out = []
    for table, key in PATH_KEYS:
        section = source.doc.get(table)
        value = section.get(key) if isinstance(section, dict) else None
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        out += [((table, key), v) for v in values if isinstance(v, str) and v.strip() and "\x00" not in v]
    return out


def link_problems(source: Source, root: str | os.PathLike) -> list[Diagnostic]:
    """AR9D0 for every file a config key names that links take outside the repository or into ``.git/``.

    The one place where the repository-relative paths of the config are judged before any of
    them is read: ``[validate] cases``, ``baseline``, ``secrets_baseline`` and ``[search]
    examples`` (each glob expanded).  Every command loads the config first, so none of them
    parses such a file.
    """
    problems = []
    base = str(root)
    for path, value in _named_paths(source):
        clean = value.replace("\\", "/").strip()
        if glob_magic(clean):
            try:
                matches = repo_glob(clean, base)[:10_000]
            except (OSError, ValueError):
                matches = []
        else:
            matches = [clean]
        for rel in matches:
            target = refused_target(os.path.join(base, rel), base)
            if target is None:
                continue
            git = os.path.join(os.path.realpath(base), ".git")
            where = "into .git/" if os.path.commonpath([git, target]) == git else "outside the repository"
            label = ".".join(path)
            problems.append(Diagnostic(
                code=CODE, file=source.display, line=_find_path_line(source.text, source.prefix + path, fallback=True),
                message=f'{label} names "{rel}", a symbolic link {where} (to {target}); skillsift reads only '
                        f"files the repository holds: replace the link {rel} with the file itself",
                hint=f"replace the link {rel} with the file itself, or point {label} at a file of the repository"))
    return problems

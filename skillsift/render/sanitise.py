"""Repository text made safe for the place it is printed (pure; docs/github-action.md, "Repository text in the output").

A skill name, a folder name, a case id or query, a config key or value: anything a pull
request can write reaches skillsift's output.  Each sink has one function here, and every
renderer and door passes repository text through the one for its sink:

* **terminal** (:func:`visible`, :func:`plain`): C0 and C1 control characters, DEL and the
  Unicode bidirectional and line-separator characters are shown escaped (``\\x1b``,
  ``\\n``, ``\\u202e``), so no escape sequence (colours, OSC 8 links, the OSC 52 clipboard
  write) reaches a terminal, on a pipe too; :func:`json_text` writes them as ``\\u``
  escapes in JSON.
* **workflow commands** (the GitHub runner reads every line of a step's output): a line
  whose text starts with ``::`` after leading blanks is a command, and so is any line that
  holds ``##[``.  :func:`plain` escapes both (``\\::``, ``##\\[``) in text that is not meant
  to be a command; :func:`command_data` and :func:`command_property` escape the message and
  the properties of the annotations skillsift does write, as GitHub documents
  (``%25 %0D %0A``, and ``%3A %2C`` in properties).
* **Markdown** (the job summary, ``--format markdown``): :func:`md_code` writes a code span
  whose fence is longer than any run of backticks inside, so it cannot be closed from
  inside; :func:`md_text` escapes every punctuation character Markdown could read as
  syntax (no raw HTML, emphasis, image or link) and breaks the address forms GitHub would
  turn into links by itself.
* **HTML** (the ``eval --format html`` report, :func:`html_text`): ``& < > " '`` written as
  entities, so no text opens or closes an element or leaves an attribute value, and control
  characters shown escaped as on a terminal.
* **SARIF** (:func:`sarif_uri`): a location is a path relative to the repository root,
  never absolute and never through ``..``; the messages are JSON (:func:`json_text`).

``tests/render/test_summary_property.py`` renders the job summary for random hostile text and
parses it with GitHub's cmark-gfm: the elements must be those of a summary of plain names.
"""

from __future__ import annotations

import posixpath
import re

from .json_indent import indented

__all__ = ["visible", "plain", "plain_lines", "command_data", "command_property", "md_text", "md_code",
           "html_text", "sarif_uri", "json_text", "json_writer", "xml_lines", "for_stdout"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# C0, DEL, C1; the bidirectional embeddings, overrides and isolates; line and paragraph separators
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_UNSAFE_IN_LINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                              "\u2066-\u2069\ufeff]")
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_COMMAND_START = re.compile(r"\A([ \t]*)::")


def _escape(match: re.Match) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``text`` on one line with every control character shown escaped (terminal safe)."""
    return _UNSAFE.sub(_escape, str(text))


def _guard(line: str) -> str:
    """A line that the runner cannot read as a workflow command."""
    line = line.replace("##[", "##\\[")
    return _COMMAND_START.sub(lambda m: m.group(1) + "\\::", line, count=1)


def plain(text: object) -> str:
    """One field or line for a terminal or a step's log: no control character, no workflow command.

    Most text has nothing to escape: printable (every character :data:`_UNSAFE` escapes is in a
    category ``str.isprintable`` refuses: control, format, line or paragraph separator), no
    ``##[`` and no ``::`` after its leading blanks; it is returned as it is, with no regex run.
    """
    text = str(text)
    if text.isprintable() and "##[" not in text and not text.lstrip(" \t").startswith("::"):
        return text
    return _guard(visible(text))


def plain_lines(text: str) -> str:
    """Text of several lines (skillsift's own line breaks kept) made safe line by line.

    CR LF and a lone CR become LF; every other control character is shown escaped and each
    line is guarded as :func:`plain` does.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\\r")
    return "\n".join(_guard(_UNSAFE_IN_LINES.sub(_escape, line)) for line in text.split("\n"))


def json_text(doc) -> str:
    """``doc`` as JSON (2-space indent, final newline) with no raw control character.

    ``json`` escapes C0 itself; DEL, C1 and the bidirectional and separator characters are
    written as ``\\uXXXX`` escapes too: the same string to a JSON reader, nothing a
    terminal acts on.
    """
    # json.dumps(doc, indent=2, ensure_ascii=False), written faster, each string made safe as it is written
    return indented(doc, json_writer(), _json_safe) + "\n"


def json_writer():
    """The function that writes one string as :func:`json_text` does: quoted, escaped, made safe."""
    from json.encoder import encode_basestring

    def write(text: str) -> str:
        text = encode_basestring(text)
        if "\x7f" in text or not text.isascii():
            text = _UNSAFE_IN_JSON.sub(_json_escape, text)
        return text.replace("##[", "##\\u005b")

    return write


def _json_escape(match: re.Match) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def _json_safe(text: str) -> str:
    """JSON text with DEL, C1 and the bidirectional and separator characters as ``\\u`` escapes and ``##[``
    as ``##\\u005b`` (the same "[" to a JSON reader); they only occur inside strings, so each string is
    made safe alone (most hold none: an ASCII text without DEL is only searched for ``##[``)."""
    if "\x7f" in text or not text.isascii():
        text = _UNSAFE_IN_JSON.sub(_json_escape, text)
    return text.replace("##[", "##\\u005b")


def xml_lines(text: str) -> str:
    """XML text (JUnit) printed on a step's log: ``##[`` and a line that starts with ``::``
    written with character references, the same characters to an XML reader."""
    text = text.replace("##[", "##&#91;")
    return "\n".join(_COMMAND_START.sub(lambda m: m.group(1) + "&#58;:", line, count=1)
                     for line in text.split("\n"))


def for_stdout(text: str, fmt: str) -> str:
    """A whole report made safe for a terminal and a step's log, by its format."""
    if fmt in ("json", "sarif"):
        return text  # written by json_text
    if fmt == "junit":
        return xml_lines(text)
    return plain_lines(text)


# -- workflow commands ----------------------------------------------------------------------------


def command_data(text: object) -> str:
    """The message of a workflow command: ``%``, CR and LF percent-encoded (GitHub's rules),
    other control characters shown escaped, ``##[`` guarded."""
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _UNSAFE.sub(_escape, text).replace("##[", "##\\[")


def command_property(text: object) -> str:
    """A property value (``file``, ``title``) of a workflow command: also ``:`` and ``,``."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


# -- Markdown -------------------------------------------------------------------------------------

# the punctuation CommonMark or GitHub reads as inline syntax anywhere in a line (a backslash
# makes each literal); ``(`` and ``!`` start nothing once ``[`` is escaped
_MD_PUNCT = re.compile(r"([\\`*_\[\]|~$])")
_SCHEME = re.compile(r"(?<=[A-Za-z0-9]):(?=//)")  # http://, https://, ftp:// autolinks
_WWW = re.compile(r"(?i)(?<![a-z0-9])(www)\.")  # www. autolinks
_LINE_START = re.compile(r"\A(?:([-+])(?= |\Z)|(#)|(\d{1,9})([.)])(?= |\Z))")  # a list or heading when first
_BACKTICKS = re.compile(r"`+")
_SPACES = re.compile(r"\s+")


def _one_line(text: object) -> str:
    return _SPACES.sub(" ", visible(text).replace("\\n", " ").replace("\\r", " ").replace("\\t", " ")).strip()


def md_text(text: object) -> str:
    """Repository text as literal Markdown text (also inside a table cell), on one line.

    Every syntax character is backslash-escaped and ``<``, ``>``, ``&`` are written as
    entities, so nothing renders as HTML, emphasis, a heading, an image or a link; an
    ``@`` follows a zero-width word joiner so no e-mail address becomes a link
    either.  An empty text is one space (a table cell keeps its place).
    """
    text = _one_line(text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_PUNCT.sub(r"\\\1", text)
    text = _SCHEME.sub(r"\\:", _WWW.sub(r"\1\\.", text)).replace("@", "\u2060@")
    text = _LINE_START.sub(lambda m: "\\" + (m.group(1) or m.group(2)) if m.group(1) or m.group(2)
                           else m.group(3) + "\\" + m.group(4), text)
    return text or " "


def md_code(text: object) -> str:
    """Repository text as one inline code span that nothing inside can close.

    The fence is one backtick longer than the longest run of backticks in the text, with a
    space inside each end when the text starts or ends with a backtick or a space; ``|`` is
    escaped for table cells (GitHub reads ``\\|`` inside a code span in a table as ``|``).
    """
    text = _one_line(text).replace("|", "\\|")
    if not text:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest or text[0] == " " or text[-1] == " " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# -- HTML -----------------------------------------------------------------------------------------


def html_text(text: object) -> str:
    """Repository text as HTML text or a quoted attribute value: entities for ``& < > " '``, control
    characters shown escaped (:func:`visible`)."""
    from html import escape

    return escape(visible(text), quote=True)


# -- SARIF ----------------------------------------------------------------------------------------


def sarif_uri(path: str) -> str | None:
    """``path`` as a SARIF ``%SRCROOT%``-relative URI, or None when it is not inside the root.

    Absolute paths, drive letters and paths that climb out with ``..`` have no relative
    form; the result then carries no location (its message still names the file).
    """
    from urllib.parse import quote

    text = str(path).replace("\\", "/")
    if not text or text.startswith("/") or re.match(r"\A[A-Za-z]:", text) or _UNSAFE.search(text):
        return None
    norm = posixpath.normpath(text)
    if norm == "." or norm == ".." or norm.startswith("../"):
        return None
    return quote(norm, safe="/")

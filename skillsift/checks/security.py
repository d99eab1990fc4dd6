"""SK401-SK407: what in a skill can turn an agent against its user.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePosixPath

from ..bytesets import SetGate, byte_set
from ..config.checks import STRICT, check
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..validators.names import invisible, mixed_script
from ..validators.parsed import FOLDING, caseless_words, marks, memoised, parsed_skills, utf8
from ..validators.text_cache import cached, save
from ..validators.workspace import Workspace
from .agent_fields import tool_names
from .body import fences

INJECTION = check("SK401", "prompt-injection", WARNING,
                  summary="no phrase tells the agent to override its instructions (\"ignore all previous "
                          "instructions\")",
                  details="Prompt-injection phrases (\"ignore all previous instructions\", \"do not tell the user\", "
                          "...) in the description or the body, outside code and quotes (where a security skill "
                          "shows them as examples).")
PIPE_SHELL = check("SK402", "remote-script-piped", WARNING, triggers=("skill", "skill-file"),
                   files="SKILL.md and the skill's files", preset=STRICT,
                   summary="no remote script is piped into a shell (curl ... | sh)",
                   details="A remote script piped into a shell (``curl ... | sh``, ``wget -O- ... | bash``, ``iwr "
                           "... | iex``) in SKILL.md or a file of its folder: whatever the server sends runs.")
UNPINNED = check("SK403", "unpinned-package-run", NOTE, triggers=("skill", "skill-file"),
                 files="SKILL.md and the skill's files", preset=STRICT,
                 summary="packages run with npx / pipx run / uvx are pinned to a version",
                 details="A package run unpinned (``npx pkg``, ``pipx run pkg``, ``uvx pkg`` with no version): each"
                         " run may fetch different code.")
BASH_ANY = check("SK404", "bash-unrestricted", WARNING,
                 summary="allowed-tools grants Bash only with command patterns",
                 details="``allowed-tools`` grants ``Bash`` with no command pattern: any shell command runs without"
                         " a prompt while the skill is active (write ``Bash(git status:*)``).")
SIDE_EFFECT = check("SK405", "side-effect-auto-invoked", NOTE, preset=STRICT,
                    summary="a deploy/delete/publish skill sets disable-model-invocation: true",
                    details="A skill whose name says it deploys, deletes or publishes, which the model may invoke "
                            "on its own: Claude Code's docs advise ``disable-model-invocation: true`` for skills "
                            "with side effects (code.claude.com/docs/en/skills, \"Control who invokes a skill\").")
INVISIBLE = check("SK406", "invisible-characters", ERROR,
                  summary="name and description hold no invisible characters (zero-width, bidi controls, tag "
                          "characters)",
                  details="An invisible character in the name or description: zero-width characters, bidi controls,"
                          " Unicode tag characters (hidden text a model reads and a reviewer does not see).")
MIXED = check("SK407", "mixed-script-name", WARNING,
              summary="the name does not mix Latin letters with Cyrillic or Greek look-alikes",
              details="A name mixing Latin letters with Cyrillic or Greek look-alikes.")
_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|rules|messages)\b|"
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify)\s+the\s+user\b|"
    r"\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b|"
    r"\byou\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken)\b|"
    r"\b(?:reveal|print|output)\s+(?:your\s+|the\s+)?system\s+prompt\b",
    re.IGNORECASE)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|'[^'\n]{8,}'|`[^`\n]*`")
_PIPE = re.compile(r"\b(?:curl|wget)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
                   r"\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]{0,300}\|\s*(?:iex|Invoke-Expression)\b",
                   re.IGNORECASE)
_NPX = re.compile(r"(?<![\w-])(?:npx|pnpm\s+dlx|bunx)\s+(?:(?:-y|--yes|-p|--package(?:=\S+)?)\s+)*"
                  r"((?:@[\w.-]+/)?[A-Za-z0-9][\w.-]*)(@\S+)?")
_PIPX = re.compile(r"(?<![\w-])(?:pipx\s+run|uvx)\s+(?:--\S+\s+)*([A-Za-z0-9][\w.\[\]-]*)((?:==|@)\S+)?")
# literal words every match holds, looked for with `in` (C speed) before any regex runs
_RUN_WORDS = ("npx", "dlx", "bunx", "pipx", "uvx")
_PIPE_WORDS = ("curl", "wget", "iwr", "irm", "invoke-")
#: What a PowerShell download (``iwr``, ``irm``, ``Invoke-``) is piped into for SK402: without one in a text
#: (nor a character IGNORECASE matches to one of their letters, see :func:`_shell_words`), those words' lines
#: (``irm`` is in every "confirm") are not read, and the text is not lowered for them.
_PIPED_INTO = ("iex", "invoke-expression")
_POWERSHELL = frozenset(("iwr", "irm", "invoke-"))
_VERBS = ("ignore", "disregard", "forget", "override")
_OBJECTS = ("instruction", "prompt", "rules", "messages")
_USER = ("tell the user", "inform the user", "alert the user", "notify the user", "telling the user",
         "informing the user", "notifying the user", "alerting the user")


_LINE_WORDS = (*_VERBS, "the user", "you are now", "system prompt")
#: Every word the scans look for: which of them a text holds is found in one pass.
_WORDS = tuple(dict.fromkeys((*_LINE_WORDS, *_OBJECTS, *_USER, *_PIPE_WORDS, *_RUN_WORDS, *_PIPED_INTO)))
#: The substring tests serve the first 64 KiB a process scans, one RE2 set pass per text after
#: that (about 4x faster on a large catalog; :mod:`skillsift.bytesets`): a hook over a few small
#: files does not import RE2.
WORD_SETS = SetGate()


def words_held(lowered: str | bytes) -> frozenset[str]:
    """The words of ``_WORDS`` that ``lowered`` (a text, or UTF-8 bytes) holds.

    Past the first 64 KiB, one RE2 set pass over the UTF-8 bytes of ``lowered``: the words are
    ASCII, and an ASCII string is in a text exactly when its bytes are in the text's UTF-8 bytes
    (every byte of a longer character's encoding is 0x80 or above).
    """
    by_set = WORD_SETS.count(len(lowered))
    if isinstance(lowered, bytes):
        if not by_set:
            return frozenset(word for word in _WORDS if word.encode("ascii") in lowered)
        return frozenset(_WORDS[n] for n in _word_set().Match(lowered) or ())
    if not by_set:
        return frozenset(word for word in _WORDS if word in lowered)
    return frozenset(_WORDS[n] for n in _word_set().Match(lowered.encode("utf-8", "surrogatepass")) or ())


@lru_cache(maxsize=1)
def _word_set():
    """``_WORDS`` compiled into one RE2 set, entry ``n`` being ``_WORDS[n]``."""
    return byte_set([re.escape(word).encode("ascii") for word in _WORDS])


def _may_inject(held: frozenset[str]) -> bool:
    """Whether a text holding the words ``held`` holds those an injection phrase needs (a cheap look
    before the regex)."""
    return bool(held) and ((not held.isdisjoint(_VERBS) and not held.isdisjoint(_OBJECTS))
                           or ("the user" in held and not held.isdisjoint(_USER))
                           or "you are now" in held or "system prompt" in held)


def _shell_words(held: frozenset[str], folding=None) -> tuple[list[str], list[str]]:
    """The words whose lines SK402 (a download piped into a shell) and SK403 (a package run) read in a text
    holding the words ``held``: a PowerShell download's only with what it is piped into (:data:`_PIPED_INTO`),
    or when the text may hold that with a letter the regex folds, such as the dotless i of "ıex", which its
    lowercase keeps (``folding``: the text, or the marks it holds, asked by :func:`_folds`; None: it may)."""
    pipe_words = [w for w in _PIPE_WORDS if w in held]
    if pipe_words and held.isdisjoint(_PIPED_INTO) and folding is not None and not _folds(folding):
        pipe_words = [w for w in pipe_words if w not in _POWERSHELL]
    return pipe_words, [w for w in _RUN_WORDS if w in held]


_NOT_WORD = re.compile(r"[^a-z0-9]+")
_SIDE_EFFECT_WORDS = frozenset({"deploy", "delete", "destroy", "publish", "rollback", "purge", "wipe",
                                "teardown", "drop", "uninstall"})
TEXT_SUFFIXES = (".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".ps1", ".rb", ".md", ".txt",
                 ".yaml", ".yml", ".json", ".toml", "Makefile", "Dockerfile")


def injections(text: str, first_line: int, lowered: str | None = None, held: frozenset[str] | None = None):
    """(file line, phrase) of each prompt-injection phrase of ``text`` outside code and quotes.

    Only the lines holding one of the words a phrase needs are read (found with ``str.find``
    in the lowercased text), so a long body without them costs one pass in C.
    """
    lowered = text.lower() if lowered is None else lowered
    held = words_held(lowered) if held is None else held
    return _injections(text, lowered, held, first_line, text)


def _injections(source, lowered, held: frozenset[str], first_line: int, text: str):
    """:func:`injections` of ``text`` read in ``source`` (``text``, or its UTF-8 bytes) and its lowercase
    ``lowered`` (see :func:`_read`)."""
    if not _may_inject(held):  # most skills hold none of the words
        return
    inside = None
    for number, line in _lines_with(source, lowered, [w for w in _LINE_WORDS if w in held]):
        if not _may_say(line):
            continue
        bare = _QUOTED.sub(" ", line)
        match = _INJECTION.search(bare)
        if match is None:
            continue
        if inside is None:
            inside = fences(text)[0]
        if not inside[number]:
            yield first_line + number, match.group(0)


#: Every character IGNORECASE matches to an ASCII letter besides its two cases, with that letter.
_CASE_FOLDS = tuple((odd, letter) for letter, odds in FOLDING.items() for odd in odds)


def _may_say(line: str) -> bool:
    """Whether ``line`` holds the words of one of :data:`_INJECTION`'s phrases, a word of each of its parts,
    in its lowercase with :data:`_CASE_FOLDS` made plain (each character the regex matches to a letter of a
    word is that letter there): a line that does not cannot match, and is not searched.

    The lines read hold a verb, "the user", "you are now" or "system prompt" (:data:`_LINE_WORDS`); most of
    them say nothing of instructions or of telling the user (on the corpus of real skills, 48 of 918 lines
    are searched), and the regex tries each of its phrases at every character of a line it searches.
    """
    text = _caseless(line)
    # "(do not|don't|never) (tell|inform|alert|notify) the user", "without (telling|...) the user"
    if "user" in text and ("tell" in text or "inform" in text or "alert" in text or "notify" in text) and (
            "not" in text or "don't" in text or "never" in text or "without" in text):
        return True
    # "you are now (in) (DAN|developer mode|jailbroken)"; "(reveal|print|output) (your|the) system prompt"
    if "now" in text and "you" in text and ("dan" in text or "developer" in text or "jailbroken" in text):
        return True
    if "system" in text and "prompt" in text and ("reveal" in text or "print" in text or "output" in text):
        return True
    return _may_override(text)


def _may_override(text: str) -> bool:
    """Whether a lowered line (:func:`_may_say`) holds the words of "(ignore|disregard|forget|override) ...
    (previous|prior|above|earlier|preceding|system) (instructions|prompts|rules|messages)"."""
    return (any(word in text for word in _OBJECTS) and any(word in text for word in _BEFORE_OBJECTS)
            and any(verb in text for verb in _VERBS))


def _caseless(line: str) -> str:
    """``line`` lowered, :data:`_CASE_FOLDS` made plain first."""
    if not line.isascii():
        for odd, letter in _CASE_FOLDS:
            if odd in line:
                line = line.replace(odd, letter)
    return line.lower()


_BEFORE_OBJECTS = ("previous", "prior", "above", "earlier", "preceding", "system")


def _read(body: str) -> tuple[str | bytes, str | bytes, frozenset[str]]:
    """(what the scans of ``body`` read, its lowercase, the words it holds).

    The UTF-8 bytes of the body (:func:`~skillsift.validators.parsed.utf8`) with their ASCII letters
    lowered stand for ``body.lower()``: ``str.lower`` of a text that is not ASCII costs about ten times
    its encoding, and the words are ASCII, while every other character lowers to no ASCII character
    (and each of its UTF-8 bytes is 0x80 or above), so a word is in ``body.lower()`` exactly when it is
    in the lowered bytes, and line for line.  A body holding one of the two exceptions, the dotted
    capital I and the Kelvin sign, is read as text.  The words come from the marks' RE2 set pass when
    it ran (:func:`~skillsift.validators.parsed.caseless_words`), so the bytes are lowered only when
    the body holds the words whose lines a scan reads (an injection's, or a command of SK402 or SK403:
    the body's ``prompt`` or ``rules`` alone costs no lowering, nor an ``irm`` without what a PowerShell
    download is piped into; the lowercase returned is then the bytes).
    """
    found = marks(body)
    if not body.isascii() and ("\u0130" in found or "\u212a" in found):
        lowered = memoised("lowered", body, str.lower)  # (SK008's)
        return body, lowered, words_held(lowered)
    data = utf8(body)
    held = caseless_words(body)
    if held is None:
        lowered = data.lower()
        return data, lowered, words_held(lowered)
    needed = _may_inject(held) or any(_shell_words(held, found))
    return data, data.lower() if needed else data, held


def _lines_with(source, lowered, words, needing=None) -> list[tuple[int, str]]:
    """(line number from 0, line) of each line of ``source`` holding one of ``words`` (found in ``lowered``),
    in order; a line longer than 4,000 characters left out.  ``source`` is a text or its UTF-8 bytes
    (whose lines are decoded), ``lowered`` its lowercase of the same kind.  With ``needing`` (a string
    of the same kind), a line of ``source`` without it is left out before it is decoded or counted
    (SK402's bar: most lines holding ``irm`` hold it in "confirm", and no bar)."""
    as_bytes = isinstance(source, bytes)
    newline = b"\n" if as_bytes else "\n"
    starts: set[int] = set()
    for word in words:
        if as_bytes:
            word = word.encode("ascii")
        at = lowered.find(word)
        while at >= 0 and len(starts) < 1000:
            starts.add(lowered.rfind(newline, 0, at) + 1)
            at = lowered.find(word, at + len(word))
    out = []
    number, counted = 0, 0
    for start in sorted(starts):
        end = source.find(newline, start)
        line = source[start:] if end < 0 else source[start:end]
        if needing is not None and needing not in line:
            continue
        if as_bytes:
            line = line.decode("utf-8", "surrogatepass")
        number += source.count(newline, counted, start)
        counted = start
        if len(line) <= 4000:
            out.append((number, line))
    return out


def shell_problems(file: str, text: str, first_line: int = 1, lowered: str | None = None,
                   held: frozenset[str] | None = None) -> list[Diagnostic]:
    """SK402 and SK403 of one text (a SKILL.md body or a file of the skill's folder); only the lines
    holding ``curl``, ``npx`` and kin are read (``held``: the words of ``words_held(lowered)``)."""
    lowered = text.lower() if lowered is None else lowered
    held = words_held(lowered) if held is None else held
    return _shell_problems(file, text, lowered, held, first_line, text)


def _folds(held) -> bool:
    """Whether ``held`` (a text, or the marks it holds) holds a character IGNORECASE matches to an ASCII letter
    besides its two cases."""
    if isinstance(held, frozenset):  # (the marks read by the RE2 set)
        return not held.isdisjoint(_FOLDING_CHARACTERS)
    if isinstance(held, str) and held.isascii():
        return False
    return any(odd in held for odd in _FOLDING_CHARACTERS)


_FOLDING_CHARACTERS = frozenset(odd for odd, _letter in _CASE_FOLDS)


def _shell_problems(file: str, source, lowered, held: frozenset[str], first_line: int,
                    folding=None) -> list[Diagnostic]:
    """:func:`shell_problems` read in ``source`` (a text or its UTF-8 bytes) and its lowercase ``lowered``
    (``folding`` as for :func:`_shell_words`)."""
    out: list[Diagnostic] = []
    pipe_words, run_words = _shell_words(held, folding)
    if not pipe_words and not run_words:  # about half the corpus's skills: no loop, no sort
        return out
    bar = b"|" if isinstance(source, bytes) else "|"
    for number, line in _lines_with(source, lowered, pipe_words, bar) if pipe_words and bar in source else ():
        hit = _PIPE.search(line)
        if hit:
            out.append(PIPE_SHELL.report(
                file=file, line=first_line + number,
                message=f"a remote script is piped into a shell ({hit.group(0)[:60]}); whatever the server sends runs",
                hint="download the script, check its checksum or signature, then run it; or install a pinned "
                     "package"))
    for number, line in _lines_with(source, lowered, run_words) if run_words else ():
        for pattern, how in ((_NPX, "@<version>"), (_PIPX, "==<version>")):
            for match in pattern.finditer(line):
                if match.group(2) or match.group(1).startswith("-"):
                    continue
                out.append(UNPINNED.report(
                    file=file, line=first_line + number,
                    message=f"{match.group(0).strip()[:50]} runs the newest {match.group(1)} each time; its code can "
                            "change under the skill",
                    hint=f"pin it: {match.group(1)}{how}"))
    return sorted(out, key=lambda d: (d.line or 0, d.code))


def check_security(parsed) -> list[Diagnostic]:
    """SK401, SK402-SK407 of one parsed SKILL.md (its own text)."""

    front, path = parsed.front, parsed.path
    out: list[Diagnostic] = []
    description = front.get("description") if isinstance(front.get("description"), str) else ""
    for _line, phrase in injections(description, parsed.line("description")):
        out.append(_injection(path, parsed.line("description"), phrase))
    body = parsed.body
    source, lowered, held = _read(body)
    for line, phrase in _injections(source, lowered, held, parsed.body_line, body):
        out.append(_injection(path, line, phrase))
    out.extend(_shell_problems(path, source, lowered, held, parsed.body_line, marks(body)))
    tools = tool_names(front.get("allowed-tools")) if "allowed-tools" in front else None
    if tools and any(t in ("Bash", "Bash(*)", "Bash(:*)", "Bash(*:*)") for t in tools):
        out.append(BASH_ANY.report(
            file=path, line=parsed.line("allowed-tools"),
            message="allowed-tools grants Bash with no command pattern: any shell command runs without asking "
                    "while this skill is active",
            hint="name the commands it needs: `allowed-tools: Bash(git status:*) Bash(npm test:*)`"))
    name = front.get("name") if isinstance(front.get("name"), str) else PurePosixPath(parsed.folder).name
    words = set(_NOT_WORD.split(name.lower()))
    if words & _SIDE_EFFECT_WORDS and front.get("disable-model-invocation") is not True:
        word = sorted(words & _SIDE_EFFECT_WORDS)[0]
        out.append(SIDE_EFFECT.report(
            file=path, line=parsed.line("name"),
            message=f'"{name}" says it {word}s, and the model may invoke it on its own (no '
                    "disable-model-invocation)",
            hint="add `disable-model-invocation: true` so only a person starts it with /" + name))
    for key in ("name", "description"):
        value = front.get(key)
        if not isinstance(value, str):
            continue
        hidden = [what for _offset, what in invisible(value)
                  if not _emoji_joiner(value, _offset, what)]
        if hidden:
            out.append(INVISIBLE.report(
                file=path, line=parsed.line(key),
                message=f"{key} holds {len(hidden)} invisible character{'s' if len(hidden) != 1 else ''} "
                        f"({', '.join(sorted(set(hidden))[:3])}): text a model reads and a reviewer does not see",
                hint=f"retype the {key} without them (an editor that shows invisible characters helps)"))
    if isinstance(front.get("name"), str) and (scripts := mixed_script(front["name"])):
        out.append(MIXED.report(
            file=path, line=parsed.line("name"),
            message=f'name "{front["name"].strip()}" mixes {" and ".join(scripts)} letters; it can pass for '
                    "another skill's name",
            hint="write the name in one script (names are usually lowercase Latin letters, digits and hyphens)"))
    return out


def _emoji_joiner(text: str, offset: int, what: str) -> bool:
    """A zero width joiner between two emoji (👩‍💻) is part of the emoji, not hidden text."""
    if what != "zero width joiner" or offset == 0 or offset + 1 >= len(text):
        return False
    return ord(text[offset - 1]) > 0x2000 and ord(text[offset + 1]) > 0x2000


def _injection(path: str, line: int, phrase: str) -> Diagnostic:
    return INJECTION.report(
        file=path, line=line,
        message=f'"{phrase[:60]}" reads as an instruction to override the agent\'s own; an agent may follow it',
        hint="reword it; when the skill shows it as an example, put it in quotes or a code block")


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    wanted = set(paths)
    skills = sorted({p if p.endswith("SKILL.md") else (ws.skill_of(p) or p) for p in paths})
    for parsed in parsed_skills(ws, skills):
        if parsed.path in wanted:
            out.extend(cached(ws, "security", parsed, check_security))
        for rel in ws.skill_folder_files(parsed.path):
            if not rel.endswith(TEXT_SUFFIXES) or (rel not in wanted and parsed.path not in wanted):
                continue
            text = ws.read_text(rel)
            if text is not None and "\0" not in text:
                out.extend(shell_problems(rel, text))
    save(ws)
    return out

"""Reading a step's log the way the GitHub runner does, so tests can check which workflow
commands a line of skillsift output would be.

The runner looks at every line: a line whose text starts with ``::`` after leading blanks is
a command (``::name props::data``, the current form), and a line that holds ``##[`` anywhere
is one too (the older ``##[name props]data`` form).  Property values and data are unescaped
as the runner does (``%25 %0D %0A %3A %2C``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_V2 = re.compile(r"\A::(?P<name>[^\s:]*)(?: (?P<props>.*?))?::(?P<data>.*)\Z")
_V1 = re.compile(r"##\[(?P<name>[^\s\]]*)(?P<props>[^\]]*)\](?P<data>.*)")


@dataclass(frozen=True)
class Command:
    name: str
    data: str
    props: dict = field(default_factory=dict)
    line: str = ""


def _unescape(text: str, *, prop: bool) -> str:
    text = text.replace("%0D", "\r").replace("%0A", "\n")
    if prop:
        text = text.replace("%3A", ":").replace("%2C", ",")
    return text.replace("%25", "%")


def commands(text: str) -> list[Command]:
    """Every workflow command the runner would find in ``text`` (stdout or stderr of a step)."""
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("::"):
            m = _V2.match(stripped)
            name = m.group("name") if m else stripped[2:].split("::", 1)[0].split(" ", 1)[0]
            props = {}
            if m and m.group("props"):
                for part in m.group("props").split(","):
                    key, _, value = part.partition("=")
                    props[key.strip()] = _unescape(value, prop=True)
            out.append(Command(name=name, data=_unescape(m.group("data"), prop=False) if m else "", props=props,
                               line=line))
            continue
        v1 = _V1.search(line)
        if v1:
            out.append(Command(name="##" + v1.group("name"), data=v1.group("data"), line=line))
    return out

"""The skill model: what skillsift knows about one SKILL.md."""

from __future__ import annotations

import zlib
from collections.abc import Callable

from ..records import field, record


class EncodedText:
    """UTF-8 bytes that stand for a skill's body until it is first read.

    The skill cache (skillsift/cache/skills.py) keeps the bodies of a catalog as one block
    of bytes; a search never reads a body, and decoding (or even checking) them all cost a
    fifth of a cold search on 2,000 skills.  ``data`` is the block, as bytes or as an object
    whose ``read()`` gives them (the cache reads its file's bodies on first use, a search never);
    ``data[start:end]`` is the text when its CRC-32
    is ``crc`` and it decodes strictly; otherwise ``fallback()`` gives the text (the cache
    reads the skill's file again), so damaged bytes never become a body.
    """

    __slots__ = ("crc", "data", "end", "fallback", "start")

    def __init__(self, data, start: int, end: int, crc: int, fallback: Callable[[], str]):
        self.data, self.start, self.end, self.crc, self.fallback = data, start, end, crc, fallback

    def value(self) -> str:
        data = self.data
        view = memoryview(data if type(data) is bytes else data.read())[self.start:self.end]
        if zlib.crc32(view) == self.crc:
            try:
                return str(view, "utf-8")
            except UnicodeDecodeError:
                pass
        return self.fallback()

    def __reduce__(self):  # a copy or a pickle carries the text, not the whole block
        return (str, (self.value(),))


class Digest:
    """The bytes of a SKILL.md (or its text) that stand for ``Skill.digest`` until it is first read.

    A cold ``validate`` reads no skill's digest (only the caches, the index and search do), and hashing a
    catalog's files was about 3% of its instructions; the value read is what parse_skill computed before.
    """

    __slots__ = ("data", "sha256")

    def __init__(self, data: bytes | str, sha256: Callable):
        self.data, self.sha256 = data, sha256  # (hashlib.sha256, or skillsift.cache.base's)

    def value(self) -> str:
        data = self.data
        return "sha256:" + self.sha256(data.encode("utf-8", "surrogatepass") if type(data) is str else data).hexdigest()

    def __reduce__(self):  # a copy or a pickle carries the digest, not the bytes
        return (str, (self.value(),))


class Stripped:
    """A text that stands for ``Skill.body`` until it is first read: ``text.strip(chars)``.

    A parsed skill's body is the text after its frontmatter, trimmed; the trimmed copy is a second
    copy of every body, and a cold ``validate`` reads none of them (its checks read the frontmatter
    block's body), so it is made on first read only (about 27 MB of the corpus's 14.7 M characters).
    """

    __slots__ = ("chars", "text")

    def __init__(self, text: str, chars: str):
        self.text, self.chars = text, chars

    def value(self) -> str:
        return self.text.strip(self.chars)

    def __reduce__(self):  # a copy or a pickle carries the trimmed text
        return (str, (self.value(),))


class _OnFirstRead:
    """A field that is always a str to its readers: a stand-in stored in its place (:class:`EncodedText` or
    :class:`Stripped` for ``Skill.body``, :class:`Digest` for ``Skill.digest``) is turned into the str by its
    ``value()`` on first read, and the str kept (docs/ranking-speed.md, "Cold search")."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, skill: Skill | None, owner: type | None = None) -> str:
        if skill is None:
            return ""  # the field's default
        value = skill.__dict__[self.name]
        if type(value) is not str:
            value = skill.__dict__[self.name] = value.value()
        return value

    def __set__(self, skill: Skill, value: str | EncodedText | Stripped | Digest) -> None:
        skill.__dict__[self.name] = value


@record(frozen=True)
class Skill:
    """One skill of the catalog.

    ``name`` is the catalog id (frontmatter ``name`` else the folder name); it is the
    key for ranking, evaluation and pinning.  ``domain`` is "" for root skills.
    ``digest`` is ``sha256:<hex>`` of the SKILL.md bytes (drift reporting only).
    ``path`` is the SKILL.md path relative to the repository root, with ``/``.
    ``frontmatter_line`` is the 1-based line of the first YAML line (0 when there is
    no frontmatter), so validators can turn YAML line numbers into file lines.
    """

    name: str
    description: str
    triggers: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    not_for: tuple[str, ...] = ()
    domain: str = ""
    body: _OnFirstRead = _OnFirstRead()
    path: str = ""
    dir_id: str = ""
    digest: _OnFirstRead = _OnFirstRead()
    frontmatter_line: int = 0
    frontmatter: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    # the plugin whose manifest names the skill's folder ("" none): Claude Code loads it as that plugin's
    plugin: str = field(default="", compare=False)


def restore(name: str, description: str, triggers: tuple[str, ...], keywords: tuple[str, ...],
            tags: tuple[str, ...], roles: tuple[str, ...], examples: tuple[str, ...], not_for: tuple[str, ...],
            domain: str, body: str | EncodedText | Stripped, path: str, dir_id: str, digest: str | Digest,
            frontmatter_line: int, frontmatter: dict, plugin: str = "") -> Skill:
    """``Skill(...)`` of these values (every field, in order), its attributes filled at once.

    The skill cache makes a skill per entry on every cold run (and a parse one per SKILL.md read), and
    ``__init__`` of a frozen dataclass sets each of its 15 fields through ``object.__setattr__``; the result
    is the same instance, field for field (tests/catalog/test_skill_cache.py holds the two equal).
    """
    skill = object.__new__(Skill)
    skill.__dict__.update(name=name, description=description, triggers=triggers, keywords=keywords, tags=tags,
                          roles=roles, examples=examples, not_for=not_for, domain=domain, body=body, path=path,
                          dir_id=dir_id, digest=digest, frontmatter_line=frontmatter_line,
                          frontmatter=frontmatter, plugin=plugin)
    return skill

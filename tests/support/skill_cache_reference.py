"""The skill cache's entry check as it was written before it was unrolled (skillsift/cache/skills.py,
``_decode_read``): the oracle tests/catalog/test_skill_cache.py holds the package's against."""

from __future__ import annotations

from functools import partial

from skillsift.cache.skills import _JOIN, _NO_SKILL, _body_from_file, _decode_diagnostics


def _all_type(kind: type, *values) -> bool:
    """Every value is exactly of ``kind`` (a bool is not an int here, as ``type(...) is`` says)."""
    return all(type(value) is kind for value in values)


def _string_lists(*values) -> bool:
    """Every value is a list of exact strs (``"".join`` raises TypeError on anything else)."""
    if not _all_type(list, *values):
        return False
    try:
        for value in values:
            _JOIN(value)
    except TypeError:
        return False
    return True


def decode_read(entry: list, rel: str, cache):
    diagnostics = _decode_diagnostics(entry[2])
    if diagnostics is None:
        return None
    if len(entry) == _NO_SKILL:
        return None if not diagnostics else (None, diagnostics)
    try:
        (_stamp, key_domain, _diagnostics, name, description, domain, dir_id, digest, triggers, keywords, tags, roles,
         examples, not_for, line, front, start, end, crc) = entry
    except ValueError:  # another length
        return None
    if name is None and type(front) is dict:  # the frontmatter's own (the type is checked below)
        name = front.get("name")
    if description is None and type(front) is dict:
        description = front.get("description")
    if not (_all_type(str, name, description, domain, dir_id, digest) and type(front) is dict
            and _all_type(int, line, start, end, crc) and 0 <= start <= end <= cache.body_bytes
            and _string_lists(triggers, keywords, tags, roles, examples, not_for)):
        return None
    reread = partial(_body_from_file, cache.read_skill, cache.root_id, rel, key_domain, digest)
    body = cache.encoded_text(cache.block, start, end, crc, reread)
    skill = cache.restore(name, description, tuple(triggers), tuple(keywords), tuple(tags), tuple(roles),
                          tuple(examples), tuple(not_for), domain, body, rel, dir_id, digest, line, front)
    return skill, diagnostics

"""``parse_skill`` makes its skill with ``restore`` (the attributes filled at once) and reads only the list
keys a frontmatter holds: the skill is the one the record's ``__init__`` made of the fields read as before
(the code it replaced, kept below word for word as the oracle), on seeded random frontmatter."""

from __future__ import annotations

import pickle
import random

from skillsift.catalog.frontmatter import YamlDocument
from skillsift.catalog.load import list_value, parse_skill, string_list
from skillsift.catalog.skill import Skill

_KEYS = ("name", "description", "triggers", "keywords", "tags", "roles", "examples", "not_for", "other")
_VALUES = (None, "", "  ", "x", " a, b ,, c ", "\u00e9t\u00e9", ["a", " b ", "", 3, None], [], ["x, y"], 0, 1.5, True,
           {"k": "v"}, ["\u3000z\u3000"], "a,\u2028b")


def _old_skill(front: dict, dir_id: str, **fields) -> Skill:
    """The skill parse_skill made before (its last lines, word for word)."""
    name = _text_value(front.get("name")) or dir_id
    description = _text_value(front.get("description")) or name
    return Skill(
        name=name,
        description=description,
        triggers=list_value(front.get("triggers")),
        keywords=list_value(front.get("keywords")),
        tags=list_value(front.get("tags")),
        roles=list_value(front.get("roles")),
        examples=string_list(front.get("examples")),
        not_for=string_list(front.get("not_for")),
        dir_id=dir_id,
        frontmatter=front,
        **fields,
    )


def _text_value(value: object) -> str:
    from skillsift.catalog.load import trim

    if isinstance(value, str) and trim(value):
        return value
    return ""


def test_the_skill_is_the_one_init_made():
    rng = random.Random(52)
    for _ in range(3_000):
        front = {key: rng.choice(_VALUES) for key in rng.sample(_KEYS, rng.randint(0, len(_KEYS)))}
        dir_id = rng.choice(("d", "", "my-skill"))
        body = rng.choice(("body", "  body \n", "", "\n"))
        text = f"---\nx: y\n---\n{body}"
        got, problems = parse_skill(text, dir_id, path="p/SKILL.md", domain="dom",
                                    yaml_reader=lambda raw, file, first_line, front=front: YamlDocument(value=front))
        assert problems == []
        made = _old_skill(front, dir_id, domain="dom", body=body.strip(), path="p/SKILL.md",
                          digest=got.digest, frontmatter_line=2)
        assert got == made and repr(got) == repr(made) and hash(got) == hash(made), front
        assert vars(got) == vars(made) and list(vars(got)) == list(vars(made)), front
        assert got.frontmatter is front
        assert pickle.loads(pickle.dumps(got)) == made


def test_a_text_without_frontmatter_gets_the_defaults():
    for text in ("plain body", "---\n: [\n---\nx", "---\nnot closed\n", "---\n---\nbody", "---\n- a\n---\n"):
        got, _problems = parse_skill(text, "dir", path="dir/SKILL.md")
        made = _old_skill(got.frontmatter, "dir", body=got.body, path="dir/SKILL.md", digest=got.digest,
                          frontmatter_line=got.frontmatter_line)
        assert got == made and vars(got) == vars(made) and list(vars(got)) == list(vars(made)), text
        assert got.name == got.description == "dir" and got.triggers == got.not_for == ()

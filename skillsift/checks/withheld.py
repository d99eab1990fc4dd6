"""AR9D3: a skill's text would be withheld from the configured embedding provider.

An index build never sends a text that looks like it holds a secret to a provider whose
text leaves the process (``openai``, ``command``); the skill then has no vector and ranks
lexically only.  This check tells beforehand which skills that would be.  The ``local``
provider runs in the process, so nothing is withheld from it (AR001 still reports the
secret).
"""

from __future__ import annotations

from ..catalog.embedtext import embedded_text
from ..config.checks import check as declare
from ..diagnostics import WARNING, Diagnostic
from ..secrets.scan import redact, scan_text, withhold
from ..validators.workspace import Workspace

CODE = declare("AR9D3", "search-text-withheld", WARNING, triggers=("skill", "config"), files="SKILL.md, the config",
               summary="a skill whose embedded text holds a secret would be withheld from the configured remote "
                       "provider")
IN_PROCESS = ("local",)


def withheld_skills(skills, *, fields, index_body: bool, body_chars: int, extra_patterns=()) -> list[tuple]:
    """(skill, kind) for each skill whose embedded text holds a secret that is not allowed."""

    texts = [(skill, embedded_text(skill, fields, index_body, body_chars)) for skill in skills]
    # the name is scanned too, embedded or not, as the build does (docs/secrets.md)
    _allowed, withheld = withhold([(i, f"{text}\n{s.name}") for i, (s, text) in enumerate(texts)], extra_patterns)
    return [(texts[i][0], kind) for i, kind in withheld]


def _line_of(text: str | None, kind: str, extra_patterns) -> tuple[int | None, int | None]:
    if not text:
        return None, None

    for finding in scan_text(text, extra_patterns):
        if finding.kind == kind and not finding.allowed:
            return finding.line, finding.column
    return None, None


def check(skills, *, provider: str, fields, index_body: bool, body_chars: int, extra_patterns=(),
          text_of=lambda _skill: None) -> list[Diagnostic]:
    """AR9D3 for each skill that an index build with ``provider`` would not send.

    ``text_of(skill)`` returns the SKILL.md text, used to point at the secret's line.
    """
    provider = (provider or "local").strip().lower()
    if provider in IN_PROCESS:
        return []
    out = []
    for skill, kind in withheld_skills(skills, fields=fields, index_body=index_body, body_chars=body_chars,
                                       extra_patterns=extra_patterns):
        line, column = _line_of(text_of(skill), kind, extra_patterns)

        shown = redact(skill.name, extra_patterns=extra_patterns)  # a secret in the name is not printed again
        out.append(CODE.report(
            file=skill.path, line=line, column=column,
            message=f'skill "{shown}" would not be embedded by the {provider} provider: its text looks '
                    f"like it holds a secret ({kind}); it would rank lexically only",
            hint="remove the secret from the skill's name, description, triggers and keywords"
                 + (" and body" if index_body else "")))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    config = ws.config
    if config is None:
        return []
    return check(list(ws.catalog.skills), provider=config.embeddings.provider, fields=config.search.fields,
                 index_body=config.search.index_body, body_chars=config.search.body_chars,
                 extra_patterns=tuple(config.secret_patterns), text_of=lambda s: ws.read_text(s.path))

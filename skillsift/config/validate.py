"""The ``[validate]`` table: what ``skillsift validate`` and the hooks check, and how strictly.

::

    [validate]
    cases = "search-cases.yaml"        # or a list; default: search-cases.yaml when it exists
    min = "top1=0.6,mrr=0.7"           # AR9D4 floors on the primary mode
    baseline = "eval-baseline.json"    # AR9D4 flips against a saved `skillsift eval --output`
    max_flips = 0                      # cases allowed to regress against the baseline
    max_rank_drops = 2                 # cases allowed to drop in rank against it (default: no limit)
    mode = "lexical"                   # mode the gates rank in (default: [search] mode)
    k = 0                              # cut-off (0 = the cases file's k)
    secrets_baseline = ".skillsift/secrets-baseline.json"
    near_duplicate_threshold = 0.9     # SK009 lexical similarity (0 turns it off)
    near_duplicate_cosine = 0.97       # SK009 cosine when an index exists (0 turns it off)
    ignore = ["SK008"]                 # codes or prefixes never reported
    agents = ["claude-code", "codex"]  # agent profiles checked (default: every profile)
    fail_on_gate_change = true         # skillsift ci: a pull request that weakens its own gate fails

    [validate.description_limits]      # SK007: characters an agent lists; 0 drops a default
    claude-code = 1536
    codex = 1024

    [validate.severity]                # error | warning | note | off
    SK007 = "error"

Parsing is pure: :func:`parse_settings` takes the table and returns the settings and
every problem (key path, message) for AR9D0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .values import MODE_WORDS, MODES

DEFAULT_CASES = "search-cases.yaml"
DEFAULT_SECRETS_BASELINE = ".skillsift/secrets-baseline.json"


# Characters of a skill's listing entry an agent keeps, from the agent profiles
# (skillsift/catalog/agents.py, docs/validate.md): Claude Code cuts description + when_to_use at
# 1,536; Codex does not load a skill whose description is over 1,024; Copilot cuts at 1,024.
def _default_limits(agents=None) -> dict:
    from ..catalog.agents import PROFILES

    out = {}
    for p in PROFILES:
        if agents is not None and p.name not in agents:
            continue
        limit = p.entry_cap or p.description_max
        if limit:
            out[p.name] = limit
    return out


def _profile_names() -> tuple[str, ...]:
    from ..catalog.agents import NAMES

    return NAMES


DEFAULT_DESCRIPTION_LIMITS = _default_limits()
DEFAULT_NEAR_DUPLICATE = 0.9
DEFAULT_NEAR_DUPLICATE_COSINE = 0.97
MAX_FLIPS_LIMIT = 100_000  # docs/configuration.md, "Numbers"
DESCRIPTION_LIMIT_MAX = 1_000_000
SEVERITIES = ("error", "warning", "note", "off")

_KEYS = {
    "cases": "string or list of strings", "min": "string", "baseline": "string", "max_flips": "integer",
    "max_rank_drops": "integer",
    "mode": "string", "k": "integer", "secrets_baseline": "string", "near_duplicate_threshold": "number",
    "near_duplicate_cosine": "number", "ignore": "list of strings", "description_limits": "table",
    "severity": "table", "agents": "list of agent names", "fail_on_gate_change": "boolean",
}


@dataclass(frozen=True)
class ValidateSettings:
    cases: tuple[str, ...] = ()  # () = search-cases.yaml when present
    cases_configured: bool = False
    minimums: dict = field(default_factory=dict)  # gate name -> floor
    min_spec: str = ""
    baseline: str = ""
    max_flips: int = 0
    max_rank_drops: int = -1  # -1 = no rank-drop gate
    mode: str = ""  # "" = the configured search mode
    k: int = 0
    secrets_baseline: str = DEFAULT_SECRETS_BASELINE
    near_duplicate_threshold: float = DEFAULT_NEAR_DUPLICATE
    near_duplicate_cosine: float = DEFAULT_NEAR_DUPLICATE_COSINE
    description_limits: dict = field(default_factory=lambda: dict(DEFAULT_DESCRIPTION_LIMITS))
    severity: dict = field(default_factory=dict)  # code -> severity or "off"
    ignore: tuple[str, ...] = ()
    agents: tuple[str, ...] = field(default_factory=lambda: _profile_names())  # [validate] agents
    fail_on_gate_change: bool = False  # skillsift ci fails when a pull request changes its own gate

    @property
    def gates_configured(self) -> bool:
        return bool(self.minimums) or bool(self.baseline)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_settings(table, known_codes=()) -> tuple[ValidateSettings, list[tuple[tuple, str]]]:
    """Read a ``[validate]`` table (None or missing = defaults).

    Returns the settings (bad values replaced by their defaults) and the problems as
    ``(key path inside [validate], message)`` in key order.
    """
    problems: list[tuple[tuple, str]] = []
    if table is None:
        return ValidateSettings(), problems
    if not isinstance(table, dict):
        return ValidateSettings(), [((), "validate must be a table")]
    out: dict = {}
    for key in table:
        if key not in _KEYS:
            problems.append(((key,), f'validate: unknown key "{key}"'))
    if "cases" in table:
        value = table["cases"]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            problems.append((("cases",), "validate.cases must be a path or a list of paths"))
        else:
            out["cases"], out["cases_configured"] = tuple(value), True
    if "min" in table:
        value = table["min"]
        if not isinstance(value, str):
            problems.append((("min",), 'validate.min must be a string such as "top1=0.6,mrr=0.7"'))
        else:
            from ..diagnostics import SkillsiftError
            from ..evaluate.gates import parse_minimums

            try:
                out["minimums"], out["min_spec"] = parse_minimums(value), value
            except SkillsiftError as exc:
                problems.append((("min",), "validate.min: " + exc.message.removeprefix("--min ")))
    for key in ("baseline", "secrets_baseline"):
        if key in table:
            value = table[key]
            if not isinstance(value, str) or not value.strip():
                problems.append(((key,), f"validate.{key} must be a path"))
            else:
                out[key] = value
    for key in ("max_flips", "max_rank_drops"):
        if key in table:
            value = table[key]
            if not _is_int(value) or value < 0:
                problems.append(((key,), f"validate.{key} must be an integer >= 0"))
            elif value > MAX_FLIPS_LIMIT:
                problems.append(((key,), f"validate.{key} must be at most {MAX_FLIPS_LIMIT}"))
            else:
                out[key] = value
    if "fail_on_gate_change" in table:
        value = table["fail_on_gate_change"]
        if not isinstance(value, bool):
            problems.append((("fail_on_gate_change",), "validate.fail_on_gate_change must be true or false"))
        else:
            out["fail_on_gate_change"] = value
    if "mode" in table:
        value = table["mode"]
        if not isinstance(value, str) or value not in MODES + ("",):
            problems.append((("mode",), f'validate.mode "{value}" must be {MODE_WORDS}'))
        else:
            out["mode"] = value
    if "k" in table:
        value = table["k"]
        if not _is_int(value) or not 0 <= value <= 100:
            problems.append((("k",), "validate.k must be between 0 and 100 (0 = the cases file's k)"))
        else:
            out["k"] = value
    for key in ("near_duplicate_threshold", "near_duplicate_cosine"):
        if key in table:
            value = table[key]
            if not _is_number(value) or not 0 <= value <= 1:
                problems.append(((key,), f"validate.{key} must be between 0 and 1 (0 turns it off)"))
            else:
                out[key] = float(value)
    if "ignore" in table:
        value = table["ignore"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append((("ignore",), "validate.ignore must be a list of codes"))
        else:
            bad = [v for v in value if known_codes and not any(c.startswith(v.strip().upper()) for c in known_codes)]
            for entry in bad:
                problems.append((("ignore",), f'validate.ignore: unknown code "{entry}"'))
            out["ignore"] = tuple(v for v in value if v not in bad)
    if "agents" in table:
        from ..catalog.agents import NAMES

        value = table["agents"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append((("agents",), f"validate.agents must be a list of agent names ({', '.join(NAMES)})"))
        else:
            bad = [v for v in value if v not in NAMES]
            for entry in bad:
                problems.append((("agents",), f'validate.agents: unknown agent "{entry}" (known: {", ".join(NAMES)})'))
            out["agents"] = tuple(dict.fromkeys(v for v in value if v not in bad))
            out["description_limits"] = _default_limits(out["agents"])
    if "description_limits" in table:
        value = table["description_limits"]
        if not isinstance(value, dict):
            problems.append((("description_limits",), "validate.description_limits must be a table of "
                                                      "agent = characters"))
        else:
            limits = dict(out.get("description_limits", DEFAULT_DESCRIPTION_LIMITS))
            for harness, limit in value.items():
                if not _is_int(limit) or limit < 0:
                    problems.append((("description_limits", harness),
                                     f"validate.description_limits.{harness} must be an integer >= 0 "
                                     "(0 drops the limit)"))
                elif limit > DESCRIPTION_LIMIT_MAX:
                    problems.append((("description_limits", harness),
                                     f"validate.description_limits.{harness} must be at most "
                                     f"{DESCRIPTION_LIMIT_MAX}"))
                elif limit == 0:
                    limits.pop(harness, None)
                else:
                    limits[harness] = limit
            out["description_limits"] = limits
    if "severity" in table:
        value = table["severity"]
        if not isinstance(value, dict):
            problems.append((("severity",), "validate.severity must be a table of CODE = severity"))
        else:
            severity = {}
            for code, level in value.items():
                if known_codes and code not in known_codes:
                    problems.append((("severity", code), f'validate.severity: unknown code "{code}"'))
                elif level not in SEVERITIES:
                    problems.append((("severity", code),
                                     f'validate.severity.{code} "{level}" must be error, warning, note or off'))
                else:
                    severity[code] = level
            out["severity"] = severity
    return ValidateSettings(**out), problems

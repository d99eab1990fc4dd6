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
    preset = "strict"                  # recommended (the default) | strict: the opt-in checks too
    fail_on_gate_change = true         # skillsift ci: a pull request that weakens its own gate fails
    judge_max_flips = 0                # skillsift ci: cases the agent chose right on the base, wrong on the head

    [validate.description_limits]      # SK007: characters an agent lists; 0 drops a default
    claude-code = 1536
    codex = 1024

    [validate.severity]                # error | warning | note | off
    SK007 = "error"

Reading is pure: :func:`skillsift.config.schema.read_settings` applies the table's rules
(:mod:`.tables`, declared once) and returns the settings and every problem (key path,
message) for AR9D0; :func:`settings_from_table` makes the settings of the checked table.
(The reader lives in ``schema.py`` because the rule tables import the defaults of
:mod:`.model`, which imports this module.)
"""

from __future__ import annotations

from ..catalog.agents import NAMES, PROFILES
from ..records import field, record
from .values import DESCRIPTION_LIMIT_MAX, MAX_FLIPS_LIMIT, SEVERITIES  # noqa: F401

DEFAULT_CASES = "search-cases.yaml"
DEFAULT_SECRETS_BASELINE = ".skillsift/secrets-baseline.json"


# Characters of a skill's listing entry an agent keeps, from the agent profiles
# (skillsift/catalog/agents.py, docs/validate.md): Claude Code cuts description + when_to_use at
# 1,536; Codex does not load a skill whose description is over 1,024; Copilot cuts at 1,024.
def _default_limits(agents=None) -> dict:
    out = {}
    for p in PROFILES:
        if agents is not None and p.name not in agents:
            continue
        limit = p.entry_cap or p.description_max
        if limit:
            out[p.name] = limit
    return out


def _profile_names() -> tuple[str, ...]:
    return NAMES


DEFAULT_DESCRIPTION_LIMITS = _default_limits()
DEFAULT_NEAR_DUPLICATE = 0.9
DEFAULT_NEAR_DUPLICATE_COSINE = 0.97


@record(frozen=True)
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
    preset: str = "recommended"  # [validate] preset: "recommended" | "strict" (docs/validate.md, "Presets")
    judge_max_flips: int = -1  # skillsift ci: agent choices right on the base, wrong on the head (-1 = no gate)

    @property
    def gates_configured(self) -> bool:
        return bool(self.minimums) or bool(self.baseline)


def settings_from_table(table: dict) -> ValidateSettings:
    """The settings of a ``[validate]`` table whose bad values were dropped."""
    out: dict = {key: table[key] for key in ("baseline", "secrets_baseline", "max_flips", "max_rank_drops",
                                              "mode", "k", "fail_on_gate_change", "preset", "judge_max_flips")
                       if key in table}
    if "cases" in table:
        out["cases"], out["cases_configured"] = tuple(table["cases"]), True
    if "min" in table:
        from .minimums import parse_minimums

        out["minimums"], out["min_spec"] = parse_minimums(table["min"]), table["min"]
    for key in ("near_duplicate_threshold", "near_duplicate_cosine"):
        if key in table:
            out[key] = float(table[key])
    if "ignore" in table:
        out["ignore"] = tuple(table["ignore"])
    if "agents" in table:
        out["agents"] = tuple(dict.fromkeys(table["agents"]))
        out["description_limits"] = _default_limits(out["agents"])
    if "description_limits" in table:
        limits = dict(out.get("description_limits", DEFAULT_DESCRIPTION_LIMITS))
        for harness, limit in table["description_limits"].items():
            if limit == 0:
                limits.pop(harness, None)
            else:
                limits[harness] = limit
        out["description_limits"] = limits
    if "severity" in table:
        out["severity"] = dict(table["severity"])
    return ValidateSettings(**out)

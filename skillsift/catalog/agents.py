"""Agent profiles: how each coding agent finds, loads and lists skills, as data.

One :class:`AgentProfile` per agent.  The checks (SK007, SK011, SK105), ``skillsift list
--agent`` and ``--agent`` on ``search``/``eval``/``mcp`` read these tables; nothing here does
I/O.  docs/validate.md renders the same table and cites where each number comes from.

Characters stand for tokens at 4 characters a token where an agent states its listing
budget as a share of the context window (Claude Code: 1% of the window, 8,000 characters
at 200,000 tokens).
"""

from __future__ import annotations

from functools import lru_cache

from ..records import record

# Where the skills of [[sources]] are mounted, inside .skillsift/local (docs/sources.md).
SOURCES_MOUNT = ".skillsift/local/sources"


def source_name(path: str) -> str:
    """The ``[[sources]]`` entry a skill at ``path`` (relative, ``/``) comes from; "" for the repository's own."""
    if not path.startswith(SOURCES_MOUNT + "/"):
        return ""
    return path[len(SOURCES_MOUNT) + 1:].split("/", 1)[0]

#: Frontmatter fields of the Agent Skills specification (agentskills.io/specification).
SPEC_FIELDS = ("name", "description", "license", "allowed-tools", "metadata", "compatibility")
#: Fields skillsift itself reads (docs/checks-skills.md, "SK101-SK108 — the Agent Skills specification").
SKILLSIFT_FIELDS = ("triggers", "keywords", "tags", "roles", "examples", "not_for")
#: Characters per token used to turn a token budget into characters.
CHARS_PER_TOKEN = 4
#: How deep below a skills root a SKILL.md is looked for (Codex's scan depth).
SCAN_DEPTH = 6
#: Folders read per skills root at most (Codex's limit).
MAX_DIRS_PER_ROOT = 2000
#: The manifests that name skills folders (skillsift/catalog/manifests.py): a Claude Code plugin or
#: marketplace (``.claude-plugin/marketplace.json``, ``.claude-plugin/plugin.json``) and a Gemini CLI
#: extension (``gemini-extension.json``, whose ``skills/`` it bundles).
CLAUDE_PLUGIN, GEMINI_EXTENSION = ".claude-plugin", "gemini-extension.json"


@record(frozen=True)
class FieldRule:
    """What an agent accepts in one frontmatter field (SK201-SK204, docs/checks-skills.md, "Agent fields").

    ``kind``: ``bool`` (true or false, not the string "true"), ``string``, ``choice`` (one of
    ``choices``), ``string-or-list`` (a string or a list of strings, not a mapping), ``model``
    (an alias of ``choices`` or an id matching ``pattern``), ``hooks`` (a mapping of the events
    in ``choices`` to lists), ``tools`` (a string or list of the tool names in ``choices``, each
    bare or with a pattern in parentheses; names matching ``pattern`` too).  ``requires``: a
    (field, value) this field only works with.
    """

    field: str
    kind: str
    choices: tuple[str, ...] = ()
    pattern: str = ""
    requires: tuple[str, str] | None = None


#: Claude Code's skill frontmatter (code.claude.com/docs/en/skills, "Frontmatter reference").
CLAUDE_CODE_TOOLS = (
    "Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "ExitPlanMode", "Glob", "Grep", "KillShell", "LS",
    "MultiEdit", "NotebookEdit", "NotebookRead", "Read", "Skill", "SlashCommand", "Task", "TodoWrite", "WebFetch",
    "WebSearch", "Write",
)
CLAUDE_CODE_HOOK_EVENTS = (
    "Notification", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "PreCompact", "PreToolUse",
    "SessionEnd", "SessionStart", "Stop", "SubagentStart", "SubagentStop", "UserPromptSubmit",
)
CLAUDE_CODE_FIELD_RULES = (
    FieldRule("when_to_use", "string"),
    FieldRule("argument-hint", "string"),
    FieldRule("arguments", "string-or-list"),
    FieldRule("disable-model-invocation", "bool"),
    FieldRule("user-invocable", "bool"),
    FieldRule("allowed-tools", "tools", CLAUDE_CODE_TOOLS, pattern=r"mcp__[\w.-]+"),
    FieldRule("disallowed-tools", "tools", CLAUDE_CODE_TOOLS, pattern=r"mcp__[\w.-]+"),
    FieldRule("model", "model", ("default", "inherit", "sonnet", "opus", "haiku", "opusplan", "sonnet[1m]",
                                 "opus[1m]"), pattern=r"claude-[a-z0-9][a-z0-9.\-]*(?:\[1m\])?"),
    FieldRule("effort", "choice", ("low", "medium", "high", "xhigh", "max")),
    FieldRule("context", "choice", ("fork",)),
    FieldRule("agent", "string", requires=("context", "fork")),
    FieldRule("hooks", "hooks", CLAUDE_CODE_HOOK_EVENTS),
    FieldRule("paths", "string-or-list"),
    FieldRule("shell", "choice", ("bash", "powershell")),
)


@record(frozen=True)
class AgentProfile:
    """What one agent reads.

    ``folders``: skills roots relative to a project root; ``nested``: the agent also reads
    them in subfolders (monorepo packages).  ``entry_fields``: the fields whose text forms a
    skill's listing entry; ``entry_cap``: characters of that text kept (None: not cut).
    ``budget_share``: share of the context window (in tokens) the whole listing may use,
    ``context_window``: the window assumed when none is given (None: unknown),
    ``budget_when_unknown``: the budget in characters without a known window (None: no
    documented budget).  ``name_max`` / ``description_max``: longer means the skill is not
    loaded at all.  ``hide_field``: a boolean field that, when true, keeps the skill out of
    the model's listing.  ``order``: "usage" when the agent drops descriptions from the
    least-used skills first (skillsift stands in name order, see docs/validate.md).
    """

    name: str
    label: str
    folders: tuple[str, ...]
    nested: bool
    fields: tuple[str, ...]
    entry_fields: tuple[str, ...] = ("description",)
    entry_cap: int | None = None
    budget_share: float | None = None
    context_window: int | None = None
    budget_when_unknown: int | None = None
    name_max: int | None = None
    description_max: int | None = None
    hide_field: str = ""
    order: str = "name"
    depth: int = SCAN_DEPTH
    max_dirs: int = MAX_DIRS_PER_ROOT
    source: str = ""
    field_rules: tuple[FieldRule, ...] = ()
    manifests: tuple[str, ...] = ()  # the manifests whose skills folders it loads (CLAUDE_PLUGIN, GEMINI_EXTENSION)

    def budget_chars(self, context_window: int | None = None) -> int | None:
        """Characters the whole listing may use (None when the agent documents no budget)."""
        window = context_window or self.context_window
        if self.budget_share is not None and window:
            return int(window * self.budget_share * CHARS_PER_TOKEN)
        return self.budget_when_unknown

    @property
    def reads(self) -> frozenset[str]:
        return frozenset(self.fields)


PROFILES: tuple[AgentProfile, ...] = (
    AgentProfile(
        name="claude-code", label="Claude Code",
        folders=(".claude/skills", "skills", "plugins/*/skills", "plugins/*/SKILL.md"), nested=True,
        manifests=(CLAUDE_PLUGIN,),
        fields=(*SPEC_FIELDS, *(rule.field for rule in CLAUDE_CODE_FIELD_RULES if rule.field not in SPEC_FIELDS)),
        entry_fields=("description", "when_to_use"), entry_cap=1536,
        budget_share=0.01, context_window=200_000, hide_field="disable-model-invocation", order="usage",
        source="code.claude.com/docs/en/skills", field_rules=CLAUDE_CODE_FIELD_RULES,
    ),
    AgentProfile(
        name="codex", label="Codex",
        folders=(".codex/skills", ".agents/skills"), nested=True,
        fields=(*SPEC_FIELDS,),
        budget_share=0.02, budget_when_unknown=8000, name_max=64, description_max=1024,
        source="developers.openai.com/codex/skills",
    ),
    AgentProfile(
        name="copilot", label="GitHub Copilot",
        folders=(".github/skills", ".claude/skills", ".agents/skills"), nested=False,
        fields=(*SPEC_FIELDS,), entry_cap=1024,
        source="docs.github.com/en/copilot/concepts/agents/about-agent-skills",
    ),
    AgentProfile(
        name="cursor", label="Cursor",
        folders=(".agents/skills", ".cursor/skills"), nested=False,
        fields=(*SPEC_FIELDS,),
        source="cursor.com/docs/context/skills",
    ),
    AgentProfile(
        name="gemini-cli", label="Gemini CLI",
        folders=(".gemini/skills", ".agents/skills"), nested=False, manifests=(GEMINI_EXTENSION,),
        fields=(*SPEC_FIELDS,),
        source="geminicli.com/docs/cli/skills",
    ),
    AgentProfile(
        name="opencode", label="OpenCode",
        folders=(".opencode/skills", ".claude/skills", ".agents/skills"), nested=False,
        fields=(*SPEC_FIELDS,),
        source="opencode.ai/docs/skills",
    ),
)

BY_NAME: dict[str, AgentProfile] = {p.name: p for p in PROFILES}
NAMES: tuple[str, ...] = tuple(p.name for p in PROFILES)
#: Skills roots some agent reads in subfolders of the repository too.
NESTED_ROOTS: tuple[str, ...] = tuple(
    sorted({f for p in PROFILES if p.nested for f in p.folders if f.startswith(".")})
)


def profile(name: str) -> AgentProfile:
    """The profile of ``name`` (KeyError when unknown)."""
    return BY_NAME[name]


def known_fields(agents=NAMES) -> frozenset[str]:
    """Fields of the spec, of skillsift, and of every agent in ``agents``."""
    out = set(SPEC_FIELDS) | set(SKILLSIFT_FIELDS)
    for name in agents:
        if name in BY_NAME:
            out |= BY_NAME[name].reads
    return frozenset(out)


@lru_cache(maxsize=65536)
def layout_of(path: str) -> tuple[str, bool]:
    """(the profile folder a SKILL.md ``path`` was found under, whether it is nested in a subfolder).

    ``path`` is relative to the repository root with ``/``.  "" when it is in no agent's folder
    (a configured path, ``.ai-rulez``).
    """
    parts = path.split("/")
    for i in range(len(parts) - 1):
        pair = f"{parts[i]}/{parts[i + 1]}"
        if parts[i].startswith(".") and pair in _DOT_ROOTS:
            return pair, i > 0
    if len(parts) >= 3 and parts[0] == "plugins":
        if parts[2] == "skills":
            return "plugins/*/skills", False
        if len(parts) == 3 and parts[2] == "SKILL.md":
            return "plugins/*/SKILL.md", False
    if parts[0] == "skills":
        return "skills", False
    return "", False


def serves(agent: AgentProfile, path: str, plugin: str = "") -> bool:
    """True when ``agent`` loads a skill found at ``path`` (its folders; nested ones if it reads those).

    A skill of a ``[[sources]]`` entry (mounted under :data:`SOURCES_MOUNT`) is loaded by every agent:
    the team installs the shared skills where its agents read them (docs/sources.md).  ``plugin``:
    ``<manifest>:<plugin name>`` when a manifest names the skill's folder ("" none); an agent whose
    ``manifests`` hold that manifest loads such a skill wherever it lies."""
    if path.startswith(SOURCES_MOUNT + "/") or (plugin and plugin.split(":", 1)[0] in agent.manifests):
        return True
    layout, nested = layout_of(path)
    return bool(layout) and layout in agent.folders and (agent.nested or not nested)


_DOT_ROOTS = frozenset(f for p in PROFILES for f in p.folders if f.startswith("."))

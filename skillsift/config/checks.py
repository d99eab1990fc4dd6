"""The check registry: every check skillsift runs, with its code, a short name,
its default severity, its scope and the files that trigger it.  Importing it costs
nothing (no check module is imported here).  It sits in the config layer because the config
(``[validate.severity]``, ``select``) and the renderers read the codes; the checks themselves are in
:mod:`skillsift.validators`, which re-exports these names, and :mod:`skillsift.validators.runner` runs them.

Scope
    ``file``: the diagnostics belong to one file each; with paths, ``skillsift validate``
    keeps only those on the given files.  ``repo``: a repository-level rule; with paths,
    it runs when one of the paths is of a kind that triggers it and all its findings are
    reported.

Triggers (the kinds of path that make a check run when paths are given)
    ``skill`` a ``SKILL.md`` (also a deleted one), ``skill-file`` another file of a skill's
    folder, ``config`` the project config file,
    ``cases`` a cases file, ``index`` a file of the committed index, ``baseline`` the
    evaluation baseline, ``secrets-baseline`` the accepted-secrets file, ``any`` any
    file at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import ERROR, NOTE, WARNING


@dataclass(frozen=True)
class Check:
    """One registered check."""

    code: str
    name: str
    severity: str  # the default; [validate.severity] overrides it
    scope: str  # "file" | "repo"
    module: str  # skillsift.validators.<module> holding run(workspace)
    triggers: tuple[str, ...]
    files: str  # what triggers it, for people (docs, --list)
    summary: str  # one line: what it checks
    opt_in: bool = False  # runs only when selected (--select) or given a severity in [validate.severity]


CHECKS: tuple[Check, ...] = (
    Check("AR9D0", "search-config-invalid", ERROR, "repo", "config", ("any",),
          "skillsift.toml, pyproject.toml [tool.skillsift], .ai-rulez/config.toml, the user config",
          "the configuration parses and every key has an allowed value (including [validate])"),
    Check("AR9D1", "search-index-stale", WARNING, "repo", "index", ("skill", "config", "index"),
          "SKILL.md, the config, <index_dir>/manifest.json and vectors.bin",
          "a committed index exists, loads, was built for the configured model and text, "
          "and still matches the skills' embedded text"),
    Check("AR9D2", "search-cases-invalid", ERROR, "repo", "cases", ("cases", "skill", "config"),
          "the cases files ([validate] cases, default search-cases.yaml), SKILL.md, the config",
          "the cases file is valid and names only skills and roles that exist (every problem, with lines)"),
    Check("AR9D3", "search-text-withheld", WARNING, "file", "withheld", ("skill", "config"),
          "SKILL.md, the config",
          "a skill whose embedded text holds a secret would be withheld from the configured remote provider"),
    Check("AR9D4", "search-eval-regression", ERROR, "repo", "gates", ("cases", "skill", "config", "baseline"),
          "the cases files, SKILL.md, the config, the [validate] baseline",
          "the labelled cases pass the configured floors and regress no more cases than allowed"),
    Check("AR001", "secret-detected", ERROR, "file", "secrets", ("skill", "skill-file", "secrets-baseline"),
          "every file of a skill folder (text files up to 4 MiB)",
          "no credential sits in a skill (placeholders, allowed lines and baselined findings excepted)"),
    Check("SK001", "frontmatter-invalid", ERROR, "file", "frontmatter", ("skill",), "SKILL.md",
          "the file is UTF-8 and its frontmatter block is closed and parses to a mapping"),
    Check("SK002", "duplicate-name", ERROR, "file", "duplicates", ("skill",), "SKILL.md",
          "no two skills share a name"),
    Check("SK003", "skills-path-empty", WARNING, "repo", "catalog_paths", ("config",), "the config",
          "every configured [catalog] skills path holds a SKILL.md"),
    Check("SK004", "frontmatter-missing", ERROR, "file", "frontmatter", ("skill",), "SKILL.md",
          "SKILL.md starts with a --- frontmatter block"),
    Check("SK005", "name-missing", WARNING, "file", "frontmatter", ("skill",), "SKILL.md",
          "the frontmatter sets a name (else agents fall back to the folder name)"),
    Check("SK006", "description-missing", ERROR, "file", "frontmatter", ("skill",), "SKILL.md",
          "the frontmatter sets a description (agents choose skills by it)"),
    Check("SK007", "description-too-long", WARNING, "file", "frontmatter", ("skill", "config"), "SKILL.md",
          "the description fits every configured agent's listing limit, so no agent cuts it"),
    Check("SK008", "trigger-only-in-body", WARNING, "file", "frontmatter", ("skill",), "SKILL.md",
          'trigger phrases ("Use when ...", "Triggers: ...") in the body also appear in the description'),
    Check("SK009", "near-duplicate-description", WARNING, "file", "duplicates", ("skill", "config"),
          "SKILL.md (and the committed index, for cosine)",
          "no two skills have near-identical descriptions (lexical, and cosine when an index exists)"),
    Check("SK010", "secrets-baseline-invalid", ERROR, "repo", "secrets", ("secrets-baseline", "config"),
          "the [validate] secrets_baseline file (default .skillsift/secrets-baseline.json)",
          "the file of accepted secret findings is valid JSON of the expected shape"),
    Check("SK011", "listing-overflow", WARNING, "repo", "listing", ("skill", "config"),
          "SKILL.md, the config ([validate] agents)",
          "each agent's skill listing fits its budget, so no skill loses its description"),
    Check("SK012", "skill-not-served", NOTE, "repo", "served", ("skill", "config"), "SKILL.md, skills folders",
          "no skill in the repository is left unserved (a symlink to outside, a folder limit, a stray SKILL.md)"),
    Check("SK013", "no-skill-found", WARNING, "repo", "served", ("any",), "the skills folders",
          "at least one skill is found (the message lists the folders searched); the hooks fail on it"),
    Check("SK014", "identical-copies", NOTE, "repo", "duplicates", ("skill",), "SKILL.md",
          "byte-identical copies of one skill (several plugins, one folder per agent) are one note for the group"),
    Check("SK015", "suppression-unused", NOTE, "file", "suppress", ("skill",), "SKILL.md",
          "every inline `skillsift: ignore CODE -- reason` in a SKILL.md gives a reason and silences a finding"),
    Check("SK020", "skill-file-link", ERROR, "repo", "served", ("skill",), "SKILL.md",
          "a SKILL.md that is a link resolves to a file inside its own skill folder, not under .git (never read)"),
    Check("SK050", "source-skill-changed", ERROR, "repo", "sources", ("any",), "skillsift.lock",
          "a skill of a [[sources]] entry matches its digest in skillsift.lock; one that differs or is not locked "
          "is refused"),
    Check("SK051", "source-lock-stale", ERROR, "repo", "sources", ("any",), "skillsift.lock",
          "skillsift.lock records every [[sources]] entry as configured (run skillsift sources update)"),
    Check("SK052", "source-link", WARNING, "repo", "sources", ("any",), "skillsift.lock",
          "a source holds no symbolic link or submodule (never followed)"),
    Check("SK053", "source-not-fetched", WARNING, "repo", "sources", ("any",), "skillsift.lock",
          "every locked git source is in the cache (run skillsift sources fetch)"),
    Check("SK054", "source-name-clash", WARNING, "repo", "sources", ("any",), "skillsift.lock",
          "a source skill's name is not already served by the repository or an earlier source"),
    Check("SK101", "spec-name-format", WARNING, "file", "spec", ("skill",), "SKILL.md",
          "name is at most 64 characters, lowercase letters, digits and single inner hyphens (specification)"),
    Check("SK102", "spec-name-folder", WARNING, "file", "spec", ("skill",), "SKILL.md",
          "name equals its folder's name (specification)"),
    Check("SK103", "spec-description-length", WARNING, "file", "spec", ("skill",), "SKILL.md",
          "description is at most 1,024 characters (specification)"),
    Check("SK104", "spec-compatibility", WARNING, "file", "spec", ("skill",), "SKILL.md",
          "compatibility, when set, is a string of at most 500 characters (specification)"),
    Check("SK105", "spec-unknown-field", NOTE, "file", "spec", ("skill", "config"), "SKILL.md",
          "every field is in the specification or read by skillsift or a targeted agent"),
    Check("SK106", "spec-metadata", WARNING, "file", "spec", ("skill",), "SKILL.md",
          "metadata, when set, maps string keys to string values (specification)"),
    Check("SK107", "spec-too-many-lines", NOTE, "file", "spec", ("skill",), "SKILL.md",
          "SKILL.md stays under the recommended 500 lines (specification)"),
    Check("SK108", "spec-missing-file", WARNING, "file", "spec", ("skill",), "SKILL.md",
          "every relative link of SKILL.md points to a file that exists"),
    Check("SK201", "agent-field-invalid", WARNING, "file", "agent_fields", ("skill", "config"), "SKILL.md",
          "a field an agent defines holds a value it accepts (booleans not strings, known levels, models, hooks)"),
    Check("SK202", "agent-field-ignored", WARNING, "file", "agent_fields", ("skill", "config"), "SKILL.md",
          "a field that needs another (agent needs context: fork) has it, else the agent ignores it"),
    Check("SK203", "fork-without-task", WARNING, "file", "agent_fields", ("skill", "config"), "SKILL.md",
          "a context: fork skill's body gives the subagent a task"),
    Check("SK204", "unknown-tool", NOTE, "file", "agent_fields", ("skill", "config"), "SKILL.md",
          "allowed-tools / disallowed-tools name tools the agent has"),
    Check("SK211", "duplicate-key", ERROR, "file", "yaml_checks", ("skill",), "SKILL.md",
          "no frontmatter key is written twice (agents' JavaScript parsers reject the file)"),
    Check("SK212", "reserved-word-name", NOTE, "file", "yaml_checks", ("skill",), "SKILL.md",
          "the name holds no reserved word (claude, anthropic)"),
    Check("SK213", "description-xml-tag", WARNING, "file", "yaml_checks", ("skill",), "SKILL.md",
          "the description holds no XML tag"),
    Check("SK214", "compatibility-empty", WARNING, "file", "yaml_checks", ("skill",), "SKILL.md",
          "compatibility, when set, is not empty"),
    Check("SK215", "license-not-string", WARNING, "file", "yaml_checks", ("skill",), "SKILL.md",
          "license, when set, is a string"),
    Check("SK301", "body-over-token-budget", NOTE, "file", "body", ("skill",), "SKILL.md",
          "the body fits the ~5,000 tokens Claude Code keeps of a skill after compaction (characters / 4)"),
    Check("SK302", "body-empty", WARNING, "file", "body", ("skill",), "SKILL.md",
          "the body holds instructions"),
    Check("SK303", "template-scaffold", WARNING, "file", "body", ("skill",), "SKILL.md",
          "no template placeholder ([TODO: ...], a TODO description) is left in the body or description"),
    Check("SK304", "argument-in-code", WARNING, "file", "body", ("skill",), "SKILL.md",
          "no $ARGUMENTS / $1 sits inside code, where Claude Code would substitute it"),
    Check("SK305", "bang-command-in-code", WARNING, "file", "body", ("skill",), "SKILL.md",
          "no !`command` sits inside code, where Claude Code still runs it"),
    Check("SK306", "unclosed-fence", WARNING, "file", "body", ("skill",), "SKILL.md",
          "every code fence is closed"),
    Check("SK311", "absolute-path", WARNING, "file", "paths", ("skill",), "SKILL.md",
          "the body names no path into one person's home folder (/Users/ana/..., C:\\Users\\ana\\...)"),
    Check("SK312", "backslash-link", WARNING, "file", "paths", ("skill",), "SKILL.md",
          "links use / (a backslash resolves on Windows only)"),
    Check("SK313", "link-leaves-skill", WARNING, "file", "paths", ("skill",), "SKILL.md",
          "relative links stay inside the skill's folder (it is installed on its own)"),
    Check("SK314", "reference-chain", NOTE, "file", "paths", ("skill",), "SKILL.md",
          "a linked reference does not link on to another (references one level deep)"),
    Check("SK315", "script-missing", WARNING, "file", "paths", ("skill",), "SKILL.md",
          "every script the body runs (python scripts/x.py, ./scripts/x) is in the skill's folder"),
    Check("SK316", "script-not-executable", WARNING, "file", "paths", ("skill", "skill-file"),
          "SKILL.md, the skill's scripts", "a script run as ./x has its executable bit"),
    Check("SK317", "env-file-in-skill", WARNING, "file", "paths", ("skill", "skill-file"),
          "files of a skill folder", "no .env file sits in a skill's folder"),
    Check("SK318", "binary-in-skill", NOTE, "file", "paths", ("skill", "skill-file"),
          "files of a skill folder", "no binary (executable, archive) sits in a skill's folder"),
    Check("SK319", "skill-file-case", ERROR, "repo", "paths", ("any",), "the skills folders",
          "a skill's file is named SKILL.md exactly (skill.md is not loaded)"),
    Check("SK320", "nested-skill", WARNING, "file", "paths", ("skill", "skill-file"),
          "files of a skill folder", "no SKILL.md sits inside another skill's folder (it is never loaded)"),
    Check("SK021", "skill-file-link-out", ERROR, "file", "skill_links", ("skill", "skill-file"),
          "the files of a skill's folder",
          "a file of a skill's folder that is a link resolves inside that folder (not dangling, not outside)"),
    Check("SK401", "prompt-injection", WARNING, "file", "security", ("skill",), "SKILL.md",
          'no phrase tells the agent to override its instructions ("ignore all previous instructions")'),
    Check("SK402", "remote-script-piped", WARNING, "file", "security", ("skill", "skill-file"),
          "SKILL.md and the skill's files", "no remote script is piped into a shell (curl ... | sh)", opt_in=True),
    Check("SK403", "unpinned-package-run", NOTE, "file", "security", ("skill", "skill-file"),
          "SKILL.md and the skill's files", "packages run with npx / pipx run / uvx are pinned to a version",
          opt_in=True),
    Check("SK404", "bash-unrestricted", WARNING, "file", "security", ("skill",), "SKILL.md",
          "allowed-tools grants Bash only with command patterns"),
    Check("SK405", "side-effect-auto-invoked", NOTE, "file", "security", ("skill",), "SKILL.md",
          "a deploy/delete/publish skill sets disable-model-invocation: true", opt_in=True),
    Check("SK406", "invisible-characters", ERROR, "file", "security", ("skill",), "SKILL.md",
          "name and description hold no invisible characters (zero-width, bidi controls, tag characters)"),
    Check("SK407", "mixed-script-name", WARNING, "file", "security", ("skill",), "SKILL.md",
          "the name does not mix Latin letters with Cyrillic or Greek look-alikes"),
)

BY_CODE: dict[str, Check] = {check.code: check for check in CHECKS}
#: Heuristic checks that run only when asked for (docs/validate.md, "SK401-SK407 — security").
OPT_IN: frozenset[str] = frozenset(check.code for check in CHECKS if check.opt_in)
CODES: tuple[str, ...] = tuple(check.code for check in CHECKS)
SEVERITY_CHOICES = (ERROR, WARNING, NOTE, "off")


def get(code: str) -> Check:
    """The registered check of ``code`` (KeyError when unknown)."""
    return BY_CODE[code]


def expand_codes(spec) -> tuple[set[str], list[str]]:
    """Codes named by ``spec`` (a comma string or an iterable of them): exact codes or prefixes.

    ``SK`` selects every SK check, ``AR9D`` the AR9D ones.  Returns (codes, unknown
    entries); matching is case-insensitive.
    """
    if spec is None:
        return set(), []
    parts = spec.split(",") if isinstance(spec, str) else [p for item in spec for p in str(item).split(",")]
    codes: set[str] = set()
    unknown: list[str] = []
    for part in parts:
        word = part.strip().upper()
        if not word:
            continue
        matched = {code for code in CODES if code.startswith(word)}
        if matched:
            codes |= matched
        else:
            unknown.append(part.strip())
    return codes, unknown

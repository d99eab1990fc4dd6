"""The click group of the ``skillsift`` console script (:func:`skillsift.cli.main` runs it).

Subcommands live in ``skillsift.commands.<name>`` and are imported only when run, so
``skillsift --version`` pays for nothing it does not use; ``skillsift --help`` lists them from
:data:`SUMMARIES` and imports none of them either.  A command module may therefore import
what its command runs at its top: only that command loads it.
"""

from __future__ import annotations

import importlib

import click

from .._version import __version__
from ..diagnostics import SkillsiftError

# command name -> (module, attribute)
COMMANDS = {
    "search": ("skillsift.commands.search_cmd", "search"),
    "eval": ("skillsift.commands.eval_cmd", "eval_command"),
    "index": ("skillsift.commands.index_cmd", "index_command"),
    "status": ("skillsift.commands.index_cmd", "status_command"),
    "validate": ("skillsift.commands.validate_cmd", "validate_command"),
    "explain": ("skillsift.commands.explain_cmd", "explain_command"),
    "list": ("skillsift.commands.list_cmd", "list_command"),
    "mine": ("skillsift.commands.mine_cmd", "mine_command"),
    "mcp": ("skillsift.commands.mcp_cmd", "mcp_command"),
    "hook": ("skillsift.commands.hook_cmd", "hook_command"),
    "ci": ("skillsift.commands.ci_cmd", "ci_command"),
    "tune": ("skillsift.commands.tune_cmd", "tune_command"),
    "judge": ("skillsift.commands.judge_cmd", "judge_command"),
    "init": ("skillsift.commands.init_cmd", "init_command"),
    "sources": ("skillsift.commands.sources_cmd", "sources_command"),
}
# command name -> the first sentence of its help, as click shortens it for the list of --help
# (tests/commands/test_group.py holds each to its command's own help)
SUMMARIES = {
    "search": "Rank the skills for QUERY (all arguments joined with one space).",
    "eval": "Rank the labelled queries of CASES (YAML) and report top1, recall@k, hit@k, MRR, nDCG.",
    "index": "Embed the served skills into the vector index ([search] index_dir, default .skillsift/index).",
    "status": "Show how the vector index stands against the served skills.",
    "validate": "Check the skills, the config, the cases, the committed index and the gates.",
    "explain": "Print the documentation of the check CODE (e.g.",
    "list": "Show each skill as AGENT lists it: full, truncated, name-only, hidden or not-loaded.",
    "mine": "Label the logged queries with the skills loaded after them; print a cases file.",
    "mcp": "Run an MCP server on stdin/stdout with the tools find_skill, load_skill and search_skills.",
    "hook": "Run one pre-commit hook: validate, secrets, frontmatter, cases, index or eval.",
    "ci": "Evaluate the head, compare it with the base, validate, and report for a pull request.",
    "tune": "Choose fusion, lexical weight, embedded fields, candidates and example_weight from CASES.",
    "judge": "Ask the agent which skill it would use for each case of CASES, and compare with the ranker.",
    "init": "Set skillsift up in a repository: skillsift.toml (the detected folders, agents and search mode), a "
            "search-cases.yaml of draft cases from the skills, the pre-commit hooks and the pull-request workflow "
            "pinned to this version, and, with --write, the index (hybrid mode), a baseline of the drafts and the "
            "flip gate that guards it.",
    "sources": "Skills from other repositories or folders ([[sources]] in the config, docs/sources.md).",
}


def _available() -> list[str]:
    import importlib.util

    names = []
    for name, (module, _attr) in COMMANDS.items():
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(_available())

    def format_commands(self, ctx, formatter):
        """The command list of ``--help`` as click writes it, each line from :data:`SUMMARIES` (no command
        module is imported)."""
        rows = [(name, SUMMARIES[name]) for name in self.list_commands(ctx)]
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _summary in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, click.Command(name, help=summary).get_short_help_str(limit))
                                    for name, summary in rows])

    def get_command(self, ctx, cmd_name):
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None
            raise
        return getattr(module, attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="skillsift")
def cli():
    """Rank, evaluate and gate the skills of AI coding agents.

    \b
    Exit codes: 0 success; 1 the command could not run (bad input, config
    or usage); 2 a gate failed or a build finished with skipped skills.
    validate and hook: 0 clean, 1 findings that fail, 2 usage or config.
    """


def main(argv=None) -> int:
    """Run the CLI and return its exit code (commands return ints or raise SkillsiftError).

    Usage errors exit 1, as every other "cannot run" case (click's own default is 2,
    which skillsift reserves for failed gates).
    """

    try:
        rv = cli.main(args=argv, prog_name="skillsift", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return 1
    except SkillsiftError as exc:
        from ..render.stderr_lines import error_lines

        for line in error_lines(exc):
            click.echo(line, err=True)
        return exc.exit_code
    return rv if isinstance(rv, int) else 0

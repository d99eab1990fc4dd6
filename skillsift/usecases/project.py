"""Open a project: resolve its config and read the skills one view ranks (docs/development.md, "Layers").

Every command that works on a repository's skills starts here: ``search``, ``eval``,
``tune``, ``list``, ``index``, ``status``, ``mine``, ``ci`` and the MCP server.  The config alone is
:func:`skillsift.skill_sources.configured.open_config`, below the checks, which open it through
validation's :class:`~skillsift.validators.workspace.Workspace`.

:func:`open_project` prints nothing.  What a person should see (a config note, a skill that
does not parse, two skills sharing a name) comes back as :class:`Message` data, and the
door shows it through its one sanitising printer.  Problems that stop the command (a root
that is not a directory, an invalid config, an unknown agent or view) raise SkillsiftError.

The search mode has one home: the ``--mode`` flag is folded into ``config.search.mode``
(flag, else ``SKILLSIFT_SEARCH_MODE``, else the config file, else lexical) and read from
there (:attr:`Project.mode`); nothing passes it on beside the config.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..catalog.agents import BY_NAME, NAMES, source_name
from ..catalog.views import load_view
from ..config import Config
from ..diagnostics import NOTE, WARNING, Diagnostic, SkillsiftError
from ..records import record
from ..skill_sources.configured import open_config

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)
if TYPE_CHECKING:
    from ..catalog.listing import View

# The catalog modules are imported by open_project, not here: the hooks that read only the config
# import this module (bench/bench_startup.py, "hook secrets").
FULL_VIEW = "full"  # skillsift/catalog/listing.py's FULL_VIEW

__all__ = ["Message", "Project", "open_project", "catalog_messages", "config_messages"]


@record(frozen=True)
class Message:
    """One line for a person: ``severity`` is ``note``, ``warning`` or "" (a line of its own); ``text``
    may hold repository text, unescaped (the printer makes it safe); ``lead`` is skillsift's own
    words before it."""

    severity: str
    text: str
    lead: str = ""


@record(frozen=True)
class Project:
    """A repository opened for one command: its resolved config, the view ranked and what to tell the user."""

    config: Config
    view: View
    messages: tuple[Message, ...] = ()

    @property
    def catalog(self):
        """The skills the view ranks (:attr:`View.catalog`)."""
        return self.view.catalog

    @property
    def sources(self) -> dict[str, str]:
        """Skill name -> the ``[[sources]]`` entry it comes from, for the skills of other repositories."""

        return {s.name: source_name(s.path) for s in self.catalog if source_name(s.path)}

    @property
    def mode(self) -> str:
        """The search mode in effect: the ``--mode`` flag, else the environment, else the config."""
        return self.config.search.mode


def config_messages(config: Config) -> tuple[Message, ...]:
    """The config's notes (a setting the repository may not make, ignored) as messages."""
    return tuple(Message(NOTE, note) for note in config.notes)


def catalog_messages(diagnostics: Iterable[Diagnostic]) -> tuple[Message, ...]:
    """Catalog findings as messages: a note stays a note, anything worse is a warning (the
    command goes on with what loaded; ``skillsift validate`` is where they fail)."""
    return tuple(Message(NOTE if d.severity == NOTE else WARNING, d.render()) for d in diagnostics)


def check_agent(agent: str | None) -> None:
    """Raise SkillsiftError for an agent name no profile has (before anything is read)."""

    if agent and agent not in BY_NAME:
        raise SkillsiftError(f'unknown agent "{agent}"', hint=f"agents are {', '.join(NAMES)}")


def open_project(root, config_file: str | None = None, *, mode: str | None = None, view: str = FULL_VIEW,
                 agent: str | None = None, context_window: int | None = None, agent_in_full: bool = True,
                 allow_exec: bool = False, config: Config | None = None, sources_as_locked: bool = False) -> Project:
    """Resolve the config of ``root`` and read the skills of ``view`` (``full`` or ``listing``).

    Full view: ``agent`` keeps only the skills that agent lists, unless ``agent_in_full`` is
    False (``eval --view all``, ``tune``: the full side ranks every skill).  Listing view:
    ``agent`` is whose listing is ranked (default: the first of ``[validate] agents``).
    ``config``: a config already resolved (the MCP server resolves it first to see whether
    anything changed); then ``config_file``, ``mode`` and ``allow_exec`` are not used and its
    notes are not repeated in :attr:`Project.messages`.
    """

    check_agent(agent)
    messages: tuple[Message, ...] = ()
    if config is None:
        config = open_config(root, config_file, mode=mode, allow_exec=allow_exec, sources_as_locked=sources_as_locked)
        messages = config_messages(config) + catalog_messages(config.source_findings)
    chosen = load_view(root, config, view, agent=agent if (view != FULL_VIEW or agent_in_full) else None,
                       context_window=context_window)
    return Project(config=config, view=chosen, messages=messages + catalog_messages(chosen.full.diagnostics))

"""``skillsift mcp``: serve the repository's skills to an agent over MCP (stdio)."""

from __future__ import annotations

import click

from ..mcpserver.protocol import serve
from ..mcpserver.service import SkillService
from ..skill_sources.configured import open_config
from ..usecases.project import check_agent
from ..words import plural
from ._common import config_option, context_window_option, root_option, say, view_option


@click.command("mcp")
@root_option
@config_option
@click.option("--agent", default=None, metavar="NAME",
              help="Serve only the skills this agent lists (listing view: whose listing find_skill ranks; "
                   "default the first of [validate] agents).")
@view_option
@context_window_option
def mcp_command(root, config_file, agent, view_name, context_window):
    """Run an MCP server on stdin/stdout with the tools find_skill, load_skill and search_skills.

    find_skill ranks as 'skillsift search' does (same config, SKILLSIFT_SEARCH_MODE
    included) and falls back to lexical ranking when the index or the embedding provider
    cannot be used; the server never builds the index.  Standard output carries only the
    protocol; messages go to standard error.  With [search] log_queries = true in the
    user config (or SKILLSIFT_LOG_QUERIES=1) queries and loads are appended to
    .skillsift/local/search-queries.jsonl for 'skillsift mine'.

    \b
    Exit codes: 0 the client closed the connection; 1 the root is not a directory or
    the config is invalid (AR9D0).
    """
    check_agent(agent)
    # the root and the whole config are checked at start as by every command (exit 1); a config
    # broken while the server runs makes it rank lexically until fixed (docs/mcp.md)
    open_config(root, config_file)
    service = SkillService(root, config_file, warn=say, agent=agent, view=view_name, context_window=context_window)
    service.refresh()
    config = service.config
    say(f"skillsift mcp: serving {plural(len(service.catalog), 'skill')} from {service.root} "
        f"(mode {config.search.mode}{service.view_words}, query log {'on' if config.search.log_queries else 'off'})")
    serve(service)
    return 0

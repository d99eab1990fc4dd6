"""The output formats of every command, in one place: name -> renderer, per family.

A family is what one ``--format`` option renders: the findings of ``skillsift validate``
and the hooks (``diagnostics``), an evaluation (``evaluation``), ``eval --why`` (``why``),
the pull-request run of ``skillsift ci`` (``ci``) and the text/JSON pairs of the other
commands (``search``, ``list``, ``index``, ``status``, ``tune``, ``judge``).  The click choices and
the hooks' ``--format`` come from the keys, in their order (the first is the default unless
the door says otherwise); every door renders through :func:`render`.

A renderer is named by a ``module:function`` string and imported on first use, so reading
the choices imports no renderer (``skillsift --help`` and a hook stay cold).  ``options``
lists the keyword arguments the function takes: :func:`render` passes those and drops the
others, so a door hands every family's options to any of its formats.
"""

from __future__ import annotations

import importlib

from ..records import record

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Renderer:
    target: str  # "module:function", the module relative to skillsift.render
    options: tuple[str, ...] = ()

    def load(self):
        module, _, function = self.target.partition(":")
        return getattr(importlib.import_module(f"skillsift.render.{module}"), function)


_DIAGNOSTICS = {
    "text": Renderer("diagnostics:render_text", ("checked",)),
    "json": Renderer("diagnostics:render_json", ("root", "checked")),
    "github": Renderer("diagnostics:render_github"),
    "sarif": Renderer("diagnostics:render_sarif"),
}
_EVALUATION = {
    "text": Renderer("evaluation:render_text", ("hybrid_hint",)),
    "json": Renderer("evaluation:render_json"),
    "junit": Renderer("evaluation_junit:render_junit"),
    "markdown": Renderer("evaluation:render_markdown"),
    "html": Renderer("evaluation_html:render_html"),
}
_WHY = {
    "text": Renderer("whynot:render_with_why_text", ("hybrid_hint",)),
    "json": Renderer("whynot:render_with_why_json"),
}
_SEARCH = {
    "text": Renderer("search:render_search_text", ("width", "explain", "min_sim")),
    "json": Renderer("search:render_search_json", ("view", "sources", "index", "examples_problem")),
}
_LIST = {
    "text": Renderer("listing:render_listing_text", ("label",)),
    "json": Renderer("listing:render_listing_json"),
}
_INDEX = {
    "text": Renderer("index:render_index_text", ("result", "written", "shown_dir", "allow_network")),
    "json": Renderer("index:render_index_json", ("result", "written")),
}
_STATUS = {
    "text": Renderer("status:render_status_text"),
    "json": Renderer("status:render_status_json"),
}
_TUNE = {
    "text": Renderer("tune:render_tune_text"),
    "json": Renderer("tune:render_tune_json"),
}
_JUDGE = {
    "text": Renderer("judge:render_judge_text"),
    "json": Renderer("judge:render_judge_json"),
}
_CI = {
    "markdown": Renderer("pull_request:render_markdown", ("max_rows",)),
    "json": Renderer("ci_json:render_ci_json"),
}

RENDERERS: dict[str, dict[str, Renderer]] = {
    "diagnostics": _DIAGNOSTICS,
    "evaluation": _EVALUATION,
    "why": _WHY,
    "ci": _CI,
    "search": _SEARCH,
    "list": _LIST,
    "index": _INDEX,
    "status": _STATUS,
    "tune": _TUNE,
    "judge": _JUDGE,
}


def names(family: str) -> tuple[str, ...]:
    """The format names of ``family``, in the order the help lists them."""
    return tuple(RENDERERS[family])


def render(family: str, name: str, value: Any, *args: Any, **options: Any) -> str:
    """``value`` (and ``args``) rendered in format ``name`` of ``family``, with the options that renderer takes."""
    renderer = RENDERERS[family].get(name)
    if renderer is None:
        raise KeyError(f"no renderer {name!r} for {family}; formats are {', '.join(names(family))}")
    return renderer.load()(value, *args, **{k: v for k, v in options.items() if k in renderer.options})

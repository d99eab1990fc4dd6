"""skillsift: keep the skills of AI coding agents findable.

Public API (imports are lazy so that ``import skillsift`` stays cheap)::

    catalog = skillsift.load_catalog(root, config=None)
    ranker = skillsift.Ranker(catalog, config=None)
    result = ranker.search("deploy to staging", limit=5)
"""

from __future__ import annotations

from ._version import __version__

#: True in the process of the ``skillsift`` command (set by :func:`skillsift.cli.main`): the
#: compiled-regex cache (:mod:`skillsift.cache.regexes`) is read and written only then, so a program
#: or a test that imports skillsift compiles its patterns as :func:`re.compile` does.
_command_line = False
#: True in a ``skillsift`` command that ends when it has answered (every one but the ``mcp`` server; set by
#: :func:`skillsift.cli.main`): the large arrays it makes are read a few times and dropped, so numpy is asked
#: for no huge pages for them (:func:`skillsift.blocks.small_pages`).
_one_shot = False

__all__ = ["__version__", "load_catalog", "load_config", "Ranker", "Catalog", "Config", "Skill", "SearchResult", "Hit"]

_LAZY = {
    "load_catalog": ("skillsift.catalog.load", "load_catalog"),
    "Catalog": ("skillsift.catalog.load", "Catalog"),
    "load_config": ("skillsift.config", "load_config"),
    "Config": ("skillsift.config", "Config"),
    "Ranker": ("skillsift.ranker.search", "Ranker"),
    "Skill": ("skillsift.catalog.skill", "Skill"),
    "SearchResult": ("skillsift.ranker.result", "SearchResult"),
    "Hit": ("skillsift.ranker.result", "Hit"),
}


def __getattr__(name: str):
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'skillsift' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value

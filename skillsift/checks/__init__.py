"""The check modules: each declares its checks (``check(...)``) and returns their diagnostics.

A module here reads a :class:`~skillsift.validators.workspace.Workspace` and reports what its
checks find (``DECL.report(...)``); :mod:`skillsift.validators` is the engine that runs them
(docs/development.md, "The check contract").  :mod:`.fixes` holds the mechanical fixes of
``skillsift validate --fix``.
"""

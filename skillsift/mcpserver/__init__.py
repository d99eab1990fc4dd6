"""The ``skillsift mcp`` server: skills served to agents over the Model Context Protocol.

:mod:`.service` holds what the tools do (no SDK needed); :mod:`.sdk` registers them with
the official ``mcp`` SDK (the optional extra ``skillsift[mcp]``).
"""

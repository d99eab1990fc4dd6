"""The ``skillsift mcp`` server: skills served to agents over the Model Context Protocol.

:mod:`.service` holds what the tools do; :mod:`.protocol` answers the JSON-RPC lines of
stdio itself (no MCP SDK needed: docs/mcp.md, "Start-up").
"""

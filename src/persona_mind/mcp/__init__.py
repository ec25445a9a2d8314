"""The MCP face: ``persona-mind mcp``, a stdio MCP server over the headless runtime.

``_server`` speaks the protocol through the official SDK, ``_tools`` maps MCP tool calls
onto the runtime's tools, ``_sdk`` checks the optional ``[mcp]`` extra is installed.
Entered only from the CLI's ``mcp`` subcommand; no product module imports it.
"""

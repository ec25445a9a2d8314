"""The MCP face: ``persona-mind mcp``, a stdio MCP server over the headless runtime.

``_server`` speaks the protocol through the official SDK, ``_tools`` maps MCP tool calls
onto the runtime's tools, ``_sdk`` checks the optional ``[mcp]`` extra is installed,
``_schemas`` and ``_outputs`` declare what a call takes and what its result holds, and
``_lines`` caps the length of a stdin line in front of the SDK's stdio transport.
Entered only from the CLI's ``mcp`` subcommand; no product module imports it.
"""

"""`judge mcp`: the MCP server over stdio (the official mcp SDK)."""

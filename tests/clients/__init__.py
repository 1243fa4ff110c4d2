"""The Python client library and the MCP server against a real ``memoryd serve``."""

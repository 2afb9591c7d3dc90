"""MCP, LSP and hook *definitions* (issue 5): loading, validation, placeholder
expansion and hook trust. Nothing here starts a process or opens a socket;
runtimes live elsewhere and consume these definitions."""

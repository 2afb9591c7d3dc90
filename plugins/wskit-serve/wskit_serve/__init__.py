"""wskit-serve: ``wsctl serve [PATH] --mcp``, a workspace's skills, rules and commands
served over MCP (stdio or streamable HTTP) with the official ``mcp`` SDK's server side.

Registered through the entry point group ``wskit``; wskit core does not depend on it.
The served content (:mod:`wskit_serve.catalog`) needs no SDK; the server
(:mod:`wskit_serve.server`) and the command are imported only when ``serve`` runs.
"""

from __future__ import annotations

import wskit

__all__ = ["ServedWorkspace", "ServeLimits", "ServeError", "wskit_register_commands"]


def __getattr__(name: str):
    """Lazy public names (the catalog module), so registering the plugin costs nothing."""
    if name in ("ServedWorkspace", "ServeLimits", "ServeError"):
        from . import catalog

        return getattr(catalog, name)
    raise AttributeError(name)


@wskit.hookimpl
def wskit_register_commands(cli):
    """Add ``wsctl serve``, imported when used."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "serve", "wskit_serve.cli:serve_cmd",
                     "Serve the skills, rules and commands of the workspace holding PATH to any agent over MCP.")

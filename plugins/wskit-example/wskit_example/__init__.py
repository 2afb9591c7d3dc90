"""wskit-example: the smallest useful wskit plugin.

It adds one resource source, the ``skills/`` folder shipped inside this
package, at built-in scope (rank 1: above wskit's own built-ins, below every
user and project source). Its skills are therefore available in every
workspace, trusted or not, and any user or project skill of the same name
shadows them.
"""

from __future__ import annotations

from pathlib import Path

import wskit

HERE = Path(__file__).resolve().parent


@wskit.hookimpl
def wskit_resource_sources(binding, profile, trust):
    """One built-in-scope source: this package's folder (skills under ``skills/``)."""
    return [
        wskit.ResourceSource(
            scope="builtin", root=str(HERE), base=str(HERE), rank=1, label="wskit-example",
        )
    ]

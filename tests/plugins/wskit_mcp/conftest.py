"""Every test here fails if it leaves a server process running."""

from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse)

"""Every test here fails if it leaves a child process running."""

from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse: no process may outlive a test)

"""Fixtures for the hook tests: a project folder and a session factory (defined in
runtime_helpers.py, shared with the providers tests); every test here fails if it
leaves a child process running."""

from tests.builtin_plugins.hooks.runtime_helpers import make_session, project  # noqa: F401  (fixtures)
from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse: no process may outlive a test)

"""wskit's built-in capabilities, each an ordinary pluggy plugin registered
through the same ``register`` call as entry-point plugins (see
:data:`wskit.plugin.manager.DEFAULT_PLUGINS`). Block one with
``WSKIT_DISABLE_PLUGINS=<name>`` or replace it with an entry point of the
same name."""


"""Model providers: the ``model`` resources of a source project and the
credential store the session runtime resolves them with (:mod:`.catalog`)."""

__all__: list[str] = []

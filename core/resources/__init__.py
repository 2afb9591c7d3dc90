"""Resource kinds' models. Each kind is a frozen subclass of :class:`wskit.models.Resource`."""

__all__: list[str] = []

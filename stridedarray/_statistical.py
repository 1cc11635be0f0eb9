"""_statistical (to be written)."""

__all__: list[str] = []

"""_searching (to be written)."""

__all__: list[str] = []

"""_elementwise (to be written)."""

__all__: list[str] = []

"""_sets (to be written)."""

__all__: list[str] = []

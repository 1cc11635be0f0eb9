"""_sorting (to be written)."""

__all__: list[str] = []

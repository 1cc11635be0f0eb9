"""_utility (to be written)."""

__all__: list[str] = []

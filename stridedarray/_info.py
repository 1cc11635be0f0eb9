"""_info (to be written)."""

__all__: list[str] = []

"""_matmul (to be written)."""

__all__: list[str] = []

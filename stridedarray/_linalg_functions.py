"""_linalg_functions (to be written)."""

__all__: list[str] = []

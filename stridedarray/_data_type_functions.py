"""_data_type_functions (to be written)."""

__all__: list[str] = []

"""What every part of the package stands on; nothing here imports a module above it.

The dtypes and their promotion (`dtypes.py`), the argument checks and their wording
(`arguments.py`), the descriptor's arithmetic and sizes (`descriptor.py`), arrays built from
NumPy memory where C declines (`construct.py`), the device (`device.py`), the quiet
floating-point state (`fpe.py`), the operators' table and wording (`operator_table.py`), and
hints for NumPy's spellings (`numpy_names.py`).
"""

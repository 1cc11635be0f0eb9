"""The standard's chapters, one module each, functions only: what `stridedarray` exports.

Creation, data type functions, element-wise functions (with their special cases and the C
callables that run their common operands), indexing (`x[key]`'s Python path in `getitem.py`,
assignment in `setitem.py`, `take` in `indexing_functions.py`), inspection (`info.py`),
linear algebra functions, manipulation, searching, sets, sorting, statistical and utility
functions, and the constants. `_common.py` holds what the chapters share: the one conversion
of an operand pair and the argument checks of arrays. The chapters test their arguments
against the C base type and build results with the C constructors: none imports the array
class (docs/dev/architecture.md).
"""

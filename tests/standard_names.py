"""The names the Array API standard 2025.12 puts in the namespace, written out by hand from
the standard's pages (https://data-apis.org/array-api/2025.12/API_specification/), so that
tests of the namespace do not take them from the code under test."""

from __future__ import annotations

ELEMENTWISE = frozenset("""abs acos acosh add asin asinh atan atan2 atanh bitwise_and
bitwise_left_shift bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil clip conj
copysign cos cosh divide equal exp expm1 floor floor_divide greater greater_equal hypot imag
isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and logical_not
logical_or logical_xor maximum minimum multiply negative nextafter not_equal positive pow real
reciprocal remainder round sign signbit sin sinh square sqrt subtract tan tanh trunc""".split())

STANDARD = ELEMENTWISE | frozenset("""
e inf nan newaxis pi
arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like
tril triu zeros zeros_like
astype can_cast finfo iinfo isdtype result_type
bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128
take take_along_axis
__array_namespace_info__ __array_api_version__
matmul matrix_transpose tensordot vecdot
broadcast_arrays broadcast_shapes broadcast_to concat expand_dims flip moveaxis permute_dims
repeat reshape roll squeeze stack tile unstack
argmax argmin count_nonzero nonzero searchsorted where
isin unique_all unique_counts unique_inverse unique_values
argsort sort
cumulative_prod cumulative_sum max mean min prod std sum var
all any diff
fft linalg
""".split())

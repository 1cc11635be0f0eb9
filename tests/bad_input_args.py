"""Rows of the bad-input table (see tests/bad_input_cases.py) for arguments checked where they
enter: integer arguments (one shared helper, `stridedarray._base.arguments.as_int`), results that
must not alias their inputs, and errors that used to pass NumPy's wording through or blame the
wrong cause. Imported by bad_input_cases.py, which owns the table.
"""

from __future__ import annotations

from bad_input_cases import row

# -- integer arguments: operator.index semantics (NumPy integers accepted), bool refused, the
# message naming the function and the argument; huge values either work or say "too large".
SI = (
    "x = sa.reshape(sa.arange(6.0), (2, 3)); v = sa.arange(4.0); "
    "c = sa.ones(4, dtype=sa.complex128)"
)
for rid, call, exc, frag in [
    (
        "int_diagonal_offset_float",
        "sa.linalg.diagonal(x, offset=1.5)",
        TypeError,
        "linalg.diagonal: offset must be an integer, got float",
    ),
    ("int_diagonal_offset_bool", "sa.linalg.diagonal(x, offset=True)", TypeError, "not a bool"),
    ("int_trace_offset_float", "sa.linalg.trace(x, offset=0.5)", TypeError, "linalg.trace: offset"),
    ("int_eye_k_float", "sa.eye(3, k=1.0)", TypeError, "eye: k must be an integer"),
    ("int_eye_rows_bool", "sa.eye(True)", TypeError, "eye: n_rows"),
    ("int_tril_k_float", "sa.tril(x, k=0.5)", TypeError, "tril: k"),
    ("int_linspace_num_float", "sa.linspace(0, 1, 5.0)", TypeError, "linspace: num"),
    ("int_linspace_num_bool", "sa.linspace(0, 1, True)", TypeError, "not a bool"),
    ("int_zeros_shape_bool", "sa.zeros((2, True))", TypeError, "shape[1]"),
    ("int_reshape_bool", "sa.reshape(v, (True, 4))", TypeError, "reshape: shape[0]"),
    ("int_broadcast_to_bool", "sa.broadcast_to(v, (True, 4))", TypeError, "broadcast_to"),
    (
        "int_broadcast_shapes_float",
        "sa.broadcast_shapes((2.0,))",
        TypeError,
        "broadcast_shapes: shapes[0][0]",
    ),
    ("int_permute_dims_float", "sa.permute_dims(x, (1.0, 0))", TypeError, "permute_dims: axes"),
    ("int_flip_axis_bool", "sa.flip(x, axis=True)", TypeError, "flip: axis"),
    ("int_expand_dims_float", "sa.expand_dims(x, axis=0.0)", TypeError, "expand_dims: axis"),
    ("int_squeeze_bool", "sa.squeeze(x, axis=False)", TypeError, "squeeze: axis"),
    ("int_moveaxis_float", "sa.moveaxis(x, 0.0, 1)", TypeError, "moveaxis: source"),
    ("int_unstack_float", "sa.unstack(x, axis=0.5)", TypeError, "unstack: axis"),
    ("int_concat_bool", "sa.concat([x, x], axis=True)", TypeError, "concat: axis"),
    ("int_stack_float", "sa.stack([x, x], axis=1.0)", TypeError, "stack: axis"),
    ("int_repeat_float", "sa.repeat(v, 2.0)", TypeError, "repeat: repeats"),
    ("int_repeat_huge", "sa.repeat(v, 2**70)", ValueError, "too large"),
    ("int_roll_shift_float", "sa.roll(x, 1.0, axis=0)", TypeError, "roll: shift"),
    ("int_tile_float", "sa.tile(v, (2.0,))", TypeError, "tile: repetitions[0]"),
    ("int_tile_huge", "sa.tile(v, (2**70,))", ValueError, "too large"),
    ("int_sum_axis_bool", "sa.sum(x, axis=True)", TypeError, "sum: axis"),
    (
        "int_cumulative_sum_axis_float",
        "sa.cumulative_sum(x, axis=1.0)",
        TypeError,
        "cumulative_sum: axis",
    ),
    ("int_sort_axis_bool", "sa.sort(x, axis=True)", TypeError, "sort: axis"),
    ("int_argmax_axis_float", "sa.argmax(x, axis=0.0)", TypeError, "axis must be an integer"),
    ("int_take_axis_bool", "sa.take(x, sa.asarray([0]), axis=False)", TypeError, "not a bool"),
    ("int_all_axis_float", "sa.all(x, axis=(0.0,))", TypeError, "all: axis[0]"),
    ("int_diff_n_float", "sa.diff(v, n=1.0)", TypeError, "diff: n must be an integer"),
    ("int_diff_n_bool", "sa.diff(v, n=True)", TypeError, "not a bool"),
    ("int_diff_n_negative", "sa.diff(v, n=-1)", ValueError, "diff: n must be >= 0"),
    ("int_tensordot_axes_float", "sa.tensordot(x, x, axes=1.0)", TypeError, "tensordot: axes"),
    ("int_vecdot_axis_bool", "sa.vecdot(x, x, axis=True)", TypeError, "vecdot: axis"),
    (
        "int_cross_axis_float",
        "sa.linalg.cross(sa.ones(3), sa.ones(3), axis=-1.0)",
        TypeError,
        "linalg.cross: axis",
    ),
    (
        "int_matrix_power_bool",
        "sa.linalg.matrix_power(sa.eye(2), True)",
        TypeError,
        "linalg.matrix_power: n",
    ),
    ("int_matrix_norm_ord_bool", "sa.linalg.matrix_norm(x, ord=True)", ValueError, "ord"),
    ("int_vector_norm_ord_str", "sa.linalg.vector_norm(x, ord='2')", TypeError, "vector_norm: ord"),
    ("int_fft_n_float", "sa.fft.fft(c, n=4.0)", TypeError, "fft.fft: n must be an integer"),
    ("int_fft_n_zero", "sa.fft.fft(c, n=0)", ValueError, "fft.fft: n must be >= 1"),
    ("int_fft_n_huge", "sa.fft.fft(c, n=2**70)", ValueError, "too large"),
    ("int_fftn_s_float", "sa.fft.fftn(c, s=(4.0,))", TypeError, "fft.fftn: s[0]"),
    ("int_fftfreq_bool", "sa.fft.fftfreq(True)", TypeError, "fft.fftfreq: n"),
    ("int_fftshift_axes_float", "sa.fft.fftshift(x, axes=0.0)", TypeError, "fft.fftshift: axes"),
]:
    row(rid, SI, call, exc, frag)
# Huge but meaningful integers work (diagonals beyond the matrix, shifts modulo the extent,
# differences beyond the length), and NumPy integers are integers.
for rid, call, check in [
    ("int_huge_tril_k", "r = sa.tril(x, k=2**70)", "assert np.array_equal(r._np, x._np)"),
    ("int_huge_eye_k", "r = sa.eye(2, k=-2**70)", "assert not r._np.any()"),
    ("int_huge_roll", "r = sa.roll(v, 2**70 + 1)", "assert r._np.tolist() == [3.0, 0, 1, 2]"),
    ("int_huge_diff_n", "r = sa.diff(v, n=2**70)", "assert r.shape == (0,)"),
    ("int_huge_diagonal", "r = sa.linalg.diagonal(x, offset=-2**70)", "assert r.shape == (0,)"),
    (
        "int_numpy_integers",
        "r = sa.expand_dims(sa.linalg.diagonal(x, offset=np.int64(1)), axis=np.int32(0))",
        "assert r._np.tolist() == [[1.0, 5.0]]",
    ),
]:
    row(rid, SI, call, None, check=check)

# -- results that are new arrays stay new: writing into them leaves the input unchanged
SA = "x = sa.asarray([1.0, 4.0, 9.0])"
row(
    "alias_diff_n0",
    SA,
    "r = sa.diff(x, n=0); r[...] = -1.0",
    None,
    check="assert x._np.tolist() == [1.0, 4.0, 9.0]",
)
row(
    "alias_diff_n0_prepend",
    SA,
    "r = sa.diff(x, n=0, prepend=sa.asarray([0.0]))",
    None,
    check="assert r._np.tolist() == [0.0, 1.0, 4.0, 9.0]",
)
row(
    "alias_matrix_power_0_writable",
    "",
    "r = sa.linalg.matrix_power(sa.ones((2, 2)), 0); r[0, 1] = 5.0",
    None,
    check="assert r._np.tolist() == [[1.0, 5.0], [0.0, 1.0]]",
)

# -- errors that used to name neither the argument nor the problem
SE = (
    "x = sa.ones(3)\nclass P:\n    def __init__(self, c): self.c = c\n"
    "    def __dlpack__(self, **kw): return self.c\n"
    "    def __dlpack_device__(self): return (1, 0)\n"
    "p = P(x.__dlpack__()); sa.from_dlpack(p)\n"
    "mv2 = memoryview(np.zeros((2, 2), np.int64))"
)
for rid, call, exc, frag in [
    ("arange_str", "sa.arange('a')", TypeError, "arange: start must be an int or a float, got str"),
    ("arange_stop_str", "sa.arange(0, 'b')", TypeError, "arange: stop"),
    ("arange_bool", "sa.arange(True)", TypeError, "arange: start"),
    ("arange_nan", "sa.arange(0, float('nan'))", ValueError, "arange: stop must be finite"),
    ("arange_inf_step", "sa.arange(0, 1, float('inf'))", ValueError, "step must be finite"),
    (
        "dlpack_device_nan",
        "x.__dlpack__(dl_device=float('nan'))",
        TypeError,
        "dl_device must be None or a (device_type, device_id) tuple",
    ),
    (
        "dlpack_device_huge_iterable",
        "x.__dlpack__(dl_device=range(2**62))",
        TypeError,
        "dl_device must be None",
    ),
    ("dlpack_device_huge_id", "x.__dlpack__(dl_device=(1, 2**70))", BufferError, "not supported"),
    ("dlpack_device_float", "x.__dlpack__(dl_device=(1.0, 0))", TypeError, "dl_device[0]"),
    ("dlpack_max_version_str", "x.__dlpack__(max_version='1.0')", TypeError, "max_version"),
    (
        "dlpack_capsule_consumed_twice",
        "sa.from_dlpack(p)",
        ValueError,
        "the capsule that P.__dlpack__() returned was consumed already (it is named "
        "'used_dltensor'",
    ),
    ("dlpack_capsule_consumed_asarray", "sa.asarray(p)", ValueError, "consumed already"),
    (
        "dlpack_not_a_capsule",
        "sa.from_dlpack(P(42))",
        ValueError,
        "from_dlpack: P.__dlpack__() returned an object of type int, not a DLPack capsule",
    ),
    (
        "dlpack_not_a_capsule_asarray",
        "sa.asarray(P([1.0]))",
        ValueError,
        "asarray: P.__dlpack__() returned an object of type list, not a DLPack capsule",
    ),
    ("shape_memoryview_2d_zeros", "sa.zeros(mv2)", TypeError, "2-d memoryview"),
    ("shape_memoryview_2d_reshape", "sa.reshape(x, mv2)", TypeError, "reshape: shape"),
    ("shape_memoryview_2d_broadcast", "sa.broadcast_to(x, mv2)", TypeError, "2-d memoryview"),
    (
        "fft_empty",
        "sa.fft.fft(sa.zeros(0, dtype=sa.complex128))",
        ValueError,
        "fft.fft: x has extent 0 along axis 0",
    ),
    (
        "fft_empty_fftn",
        "sa.fft.fftn(sa.zeros((2, 0), dtype=sa.complex128))",
        ValueError,
        "extent 0 along axis 1",
    ),
    (
        "fft_irfft_one_point",
        "sa.fft.irfft(sa.ones(1, dtype=sa.complex128))",
        ValueError,
        "2 * (1 - 1) = 0",
    ),
    ("fft_empty_rfft", "sa.fft.rfft(sa.zeros((0,)))", ValueError, "fft.rfft: x has extent 0"),
    (
        "policy_huge",
        "sa.matmul_policy(gemm_blas_min=2**63).__enter__()",
        ValueError,
        "'gemm_blas_min' must be a non-negative int (at most 2**63 - 1)",
    ),
    (
        "policy_float",
        "sa.matmul_policy(gemm_pack_min=1.5).__enter__()",
        ValueError,
        "'gemm_pack_min'",
    ),
    (
        "policy_switch",
        "sa.matmul_policy(blas_enabled=2).__enter__()",
        ValueError,
        "'blas_enabled' must be 0 or 1",
    ),
]:
    row(rid, SE, call, exc, frag)
row(
    "index_result_over_64_axes",
    "X = sa.asarray(np.arange(30.0).reshape(2, 3, 5))",
    "X[(slice(None),) * 3 + (None,) * 62]",
    IndexError,
    "number of dimensions must be within [0, 64], indexing result would have 65",
)
row(
    "dlpack_max_version_huge",
    "x = sa.ones(3)",
    "r = np.from_dlpack(x); c = x.__dlpack__(max_version=(2**70, 0))",
    None,
    check="assert r.shape == (3,)",
)
row(
    "fft_empty_zero_padded",
    "",
    "r = sa.fft.fft(sa.zeros(0, dtype=sa.complex128), n=2)",
    None,
    check="assert r.shape == (2,)",
)

# -- boolean arguments (one shared helper, `stridedarray._base.arguments.as_bool`): Python's and
# NumPy's bools only, None where the standard allows it. NumPy takes any object's truth value
# for most of them, so `copy="no"` or `keepdims="False"` silently meant True; NumPy itself
# refuses a string copy (asarray, from_dlpack), and we refuse every non-bool alike.
SB = (
    "x = sa.reshape(sa.arange(6.0), (2, 3)); v = sa.arange(4.0); "
    "b = sa.asarray([True, False]); n = np.ones(3)"
)
for rid, call, frag in [
    (
        "bool_asarray_copy_str",
        "sa.asarray(n, copy='no')",
        "asarray: copy must be True, False or None",
    ),
    (
        "bool_asarray_copy_int",
        "sa.asarray([1.0], copy=1)",
        "asarray: copy must be True, False or None",
    ),
    (
        "bool_from_dlpack_copy",
        "sa.from_dlpack(v, copy='no')",
        "from_dlpack: copy must be True, False",
    ),
    (
        "bool_astype_copy",
        "sa.astype(v, sa.float32, copy='no')",
        "astype: copy must be True or False",
    ),
    (
        "bool_astype_copy_none",
        "sa.astype(v, sa.float32, copy=None)",
        "astype: copy must be True or False",
    ),
    (
        "bool_reshape_copy",
        "sa.reshape(v, (2, 2), copy='no')",
        "reshape: copy must be True, False or None",
    ),
    (
        "bool_sum_keepdims",
        "sa.sum(v, keepdims='no')",
        "sum: keepdims must be True or False, got str",
    ),
    (
        "bool_prod_keepdims",
        "sa.prod(v, keepdims=1)",
        "prod: keepdims must be True or False, got int",
    ),
    ("bool_mean_keepdims", "sa.mean(v, keepdims='no')", "mean: keepdims"),
    ("bool_std_keepdims", "sa.std(v, keepdims='no')", "std: keepdims"),
    ("bool_var_keepdims", "sa.var(v, keepdims=[])", "var: keepdims"),
    ("bool_max_keepdims", "sa.max(v, keepdims='no')", "max: keepdims"),
    ("bool_min_keepdims", "sa.min(v, keepdims=None)", "min: keepdims must be True or False"),
    ("bool_all_keepdims", "sa.all(b, keepdims='no')", "all: keepdims"),
    ("bool_any_keepdims", "sa.any(b, keepdims=1)", "any: keepdims"),
    ("bool_argmax_keepdims", "sa.argmax(v, keepdims='no')", "argmax: keepdims"),
    ("bool_argmin_keepdims", "sa.argmin(v, keepdims=None)", "argmin: keepdims"),
    (
        "bool_count_nonzero_keepdims",
        "sa.count_nonzero(v, keepdims='no')",
        "count_nonzero: keepdims",
    ),
    (
        "bool_cumsum_include_initial",
        "sa.cumulative_sum(v, include_initial='no')",
        "include_initial",
    ),
    ("bool_cumprod_include_initial", "sa.cumulative_prod(v, include_initial=2)", "include_initial"),
    ("bool_sort_descending", "sa.sort(v, descending='no')", "sort: descending"),
    ("bool_sort_stable", "sa.sort(v, stable='no')", "sort: stable"),
    ("bool_argsort_descending", "sa.argsort(v, descending='yes')", "argsort: descending"),
    ("bool_argsort_stable", "sa.argsort(v, stable=0)", "argsort: stable"),
    ("bool_isin_invert", "sa.isin(v, v, invert='no')", "isin: invert"),
    ("bool_linspace_endpoint", "sa.linspace(0, 1, 5, endpoint='no')", "linspace: endpoint"),
    ("bool_cholesky_upper", "sa.linalg.cholesky(sa.eye(2), upper='no')", "linalg.cholesky: upper"),
    ("bool_svd_full_matrices", "sa.linalg.svd(x, full_matrices='no')", "linalg.svd: full_matrices"),
    ("bool_matrix_norm_keepdims", "sa.linalg.matrix_norm(x, keepdims='no')", "linalg.matrix_norm"),
    ("bool_vector_norm_keepdims", "sa.linalg.vector_norm(v, keepdims='no')", "linalg.vector_norm"),
]:
    row(rid, SB, call, TypeError, frag)
# NumPy's bools are bools; the enum-like strings name the function, the argument and the choices.
for rid, call, check in [
    (
        "bool_numpy_bool_accepted",
        "r = sa.sum(x, axis=0, keepdims=np.True_)",
        "assert r.shape == (1, 3)",
    ),
    (
        "bool_asarray_copy_numpy_false",
        "r = sa.asarray(n, copy=np.False_)",
        "assert np.shares_memory(r._np, n)",
    ),
]:
    row(rid, SB, call, None, check=check)
for rid, call, exc, frag in [
    (
        "choice_meshgrid_indexing",
        "sa.meshgrid(v, v, indexing='xx')",
        ValueError,
        "meshgrid: indexing must be 'xy' or 'ij'",
    ),
    (
        "choice_searchsorted_side",
        "sa.searchsorted(v, v, side='middle')",
        ValueError,
        "searchsorted: side must be 'left' or 'right'",
    ),
    (
        "choice_qr_mode",
        "sa.linalg.qr(x, mode='r')",
        ValueError,
        "linalg.qr: mode must be 'reduced' or 'complete'",
    ),
    ("choice_fft_norm", "sa.fft.fft(sa.ones(4), norm=None)", ValueError, "fft.fft: norm must be"),
    (
        "choice_matrix_norm_ord",
        "sa.linalg.matrix_norm(x, ord='frob')",
        ValueError,
        "linalg.matrix_norm: ord must be one of",
    ),
]:
    row(rid, SB, call, exc, frag)

# -- messages name the function and the argument it is about (x1 of solve, not "x"), the
# index that is out of range, and how to convert a list.
SM = "x = sa.zeros((2, 2)); v = sa.arange(3.0); b = sa.ones(2)"
for rid, call, exc, frag in [
    (
        "msg_solve_list",
        "sa.linalg.solve([[1.0, 0.0], [0.0, 1.0]], b)",
        TypeError,
        "linalg.solve: x1 must be a stridedarray.Array",
    ),
    (
        "msg_solve_int_x1",
        "sa.linalg.solve(sa.eye(2, dtype=sa.int64), b)",
        TypeError,
        "linalg.solve: x1 must have a floating-point",
    ),
    ("msg_inv_list", "sa.linalg.inv([[1.0, 0.0], [0.0, 1.0]])", TypeError, "linalg.inv: x must be"),
    ("msg_sum_list", "sa.sum([1.0, 2.0])", TypeError, "sum: x must be"),
    ("msg_mean_list", "sa.mean([1.0, 2.0])", TypeError, "mean: x must be"),
    ("msg_where_list", "sa.where([True, False], b, b)", TypeError, "where: condition must be"),
    ("msg_unique_list", "sa.unique_values([1, 2])", TypeError, "unique_values: x must be"),
    (
        "msg_take_out_of_range",
        "sa.take(v, sa.asarray([0, 5]))",
        IndexError,
        "take: index 5 (indices[1]) is out of range for axis 0 of size 3",
    ),
    (
        "msg_take_negative_out_of_range",
        "sa.take(v, sa.asarray([-4]))",
        IndexError,
        "index -4 (indices[0])",
    ),
    (
        "msg_take_along_axis_out_of_range",
        "sa.take_along_axis(x, sa.asarray([[0, 1], [3, 0]]), axis=1)",
        IndexError,
        "index 3 (indices[(1, 0)])",
    ),
    (
        "msg_take_list",
        "sa.take(v, [0, 2])",
        TypeError,
        "convert it with stridedarray.asarray(indices)",
    ),
    (
        "msg_setitem_list",
        "x[0] = [1.0, 2.0]",
        TypeError,
        "convert it with stridedarray.asarray(value)",
    ),
    ("msg_setitem_tuple", "x[0] = (1.0, 2.0)", TypeError, "x[key] = value: value must be"),
]:
    row(rid, SM, call, exc, frag)

# -- a conversion to Python of a whole array names x.tolist(), where that is the fix
SC = "v = sa.arange(3.0); m = sa.ones((1, 2))"
for rid, call, frag in [
    (
        "tolist_float_of_vector",
        "float(v)",
        "this array has shape (3,): index one element (x[i]), or take x.tolist()",
    ),
    ("tolist_int_of_matrix", "int(m)", "x.tolist()"),
    ("tolist_complex_of_vector", "complex(v)", "x.tolist()"),
    ("tolist_format_of_vector", "format(v, '.2f')", "for v in x.tolist()"),
    ("tolist_hash_of_vector", "hash(v)", "unhashable type: 'Array': arrays are mutable"),
    ("tolist_hash_of_element_view", "{v[0]: 1}", "x.tolist() or, for one element, x.item()"),
]:
    row(rid, SC, call, TypeError, frag)

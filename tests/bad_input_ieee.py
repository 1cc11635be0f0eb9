"""NaN and infinity rows of the bad-input table (see tests/bad_input_cases.py): not errors.

IEEE 754 values must propagate through every matmul route, linalg and the reductions
without an exception or a warning. Imported by bad_input_cases.py, which owns the table.
"""

from __future__ import annotations

from bad_input_cases import row

# -- NaN and infinity: not errors. They must propagate as IEEE 754 says (NaN in, NaN out in the
# affected positions; inf * 0 = NaN; +inf and -inf in one sum = NaN), on every matmul route.
# Reference: NumPy's element-wise multiply and sum in float64/complex128 (no BLAS, so no
# kernel shortcut can hide a NaN). Real dtypes must match the NaN and +-inf pattern exactly.
# Decision for complex infinities: the product (inf + 0j)(b + cj) has no single IEEE answer
# (the textbook formula gives inf + nan*j or inf + inf*j, BLAS kernels and C99 Annex G differ),
# so for complex dtypes the set of non-finite outputs must match exactly (and with NaN inputs,
# the set of outputs with a NaN part), not which part is NaN. The helpers the rows call
# (ieee_operands, ieee_matmul, ieee_same, ieee_check_matmul, ieee_stack, lapack_check) are in
# tests/base/test_bad_input.py.
# role -> (lhs shape, rhs shape, lhs layout, rhs layout); layouts: "c" C-contiguous,
# "rev" last axis reversed (negative stride: BLAS cannot read it; pack-once can), "t" the
# transpose of a C-contiguous array (BLAS's transposed operand).
IEEE_ROLES = {
    "dot": ((64,), (64,), "c", "c"),
    "dot_small": ((3,), (3,), "c", "c"),
    "dot_reversed": ((64,), (64,), "rev", "rev"),
    "gevm": ((40,), (40, 48), "c", "c"),
    "gemv": ((48, 40), (40,), "c", "c"),
    "gemm": ((40, 40), (40, 40), "c", "t"),
    "gemm_small": ((3, 3), (3, 3), "c", "c"),
    "gemm_reused_reversed": ((1, 40, 40), (5, 40, 40), "rev", "c"),
    "gemv_batched": ((5, 40, 40), (40,), "c", "rev"),
}
IEEE_FORCES = (None, "blas", "pack_blas", "generic", "reference")
IEEE_KINDS = ("nan", "inf", "inf0")


def _layout(name: str, src: str, layout: str) -> str:
    if layout == "rev":
        return f"{name} = sa.flip(sa.asarray(np.ascontiguousarray({src}[..., ::-1])), axis=-1)"
    if layout == "t":
        return f"{name} = sa.asarray(np.ascontiguousarray(np.swapaxes({src}, -1, -2))).mT"
    return f"{name} = sa.asarray({src})"


for force in IEEE_FORCES:
    for role, (s1, s2, l1, l2) in IEEE_ROLES.items():
        for dt in ("float32", "float64", "complex64", "complex128"):
            setup, call, check = [], [f"with sa.matmul_policy(force={force!r}):"], []
            for k in IEEE_KINDS:
                setup += [
                    f"an_{k}, bn_{k} = ieee_operands({s1}, {s2}, {dt!r}, {k!r})",
                    _layout(f"a_{k}", f"an_{k}", l1),
                    _layout(f"b_{k}", f"bn_{k}", l2),
                ]
                call.append(f"    r_{k} = a_{k} @ b_{k}")
                check.append(f"ieee_check_matmul(r_{k}, an_{k}, bn_{k}, {k!r})")
            row(
                f"ieee_matmul_{force or 'default'}_{role}_{dt}",
                "\n".join(setup),
                "\n".join(call),
                None,
                check="\n".join(check),
            )


# -- NaN and infinity in linalg. Products and reductions propagate by arithmetic: compared with
# NumPy's own function on the same values (NaN and +-inf pattern exact for real dtypes, the
# non-finite set for complex ones, as above). The LAPACK-backed functions: LAPACK's result
# for non-finite input is unspecified (NumPy raises "Singular matrix" or "SVD did not
# converge", or returns det 0.0 or finite eigenvalues), so the decision is that every output
# of a matrix holding a NaN or an infinity is NaN, and the other matrices of the stack are
# NumPy's result for them alone. matrix_rank cannot return NaN: it raises ValueError.
IEEE_LINALG = {  # id -> (our call on x / y, NumPy's reference on xn / yn)
    "vecdot": ("sa.vecdot(x, y)", "np.vecdot(xn, yn)"),
    "tensordot": (
        "sa.tensordot(x, y, axes=([-1], [-2]))",
        "np.tensordot(xn, yn, axes=([-1], [-2]))",
    ),
    "linalg_matmul": ("sa.linalg.matmul(x, y)", "xn @ yn"),
    # Power 2: one product, so one IEEE answer (x @ (x @ x) and (x @ x) @ x can differ in
    # where inf - inf makes a NaN, and NumPy and we associate a cube differently).
    "matrix_power": ("sa.linalg.matrix_power(x, 2)", "np.linalg.matrix_power(xn, 2)"),
    "outer": ("sa.linalg.outer(x[0, 0], y[1, 0])", "np.multiply.outer(xn[0, 0], yn[1, 0])"),
    "cross": ("sa.linalg.cross(x[..., :3], y[..., :3])", "np.cross(xn[..., :3], yn[..., :3])"),
    "trace": ("sa.linalg.trace(x)", "np.trace(xn, axis1=-2, axis2=-1)"),
    "diagonal": ("sa.linalg.diagonal(x)", "np.diagonal(xn, axis1=-2, axis2=-1)"),
    "vector_norm_2": ("sa.linalg.vector_norm(x, axis=-1)", "np.linalg.vector_norm(xn, axis=-1)"),
    "vector_norm_1": (
        "sa.linalg.vector_norm(x, axis=-1, ord=1)",
        "np.linalg.vector_norm(xn, axis=-1, ord=1)",
    ),
    "vector_norm_inf": (
        "sa.linalg.vector_norm(x, axis=-1, ord=float('inf'))",
        "np.linalg.vector_norm(xn, axis=-1, ord=np.inf)",
    ),
    "vector_norm_minf": (
        "sa.linalg.vector_norm(x, axis=-1, ord=-float('inf'))",
        "np.linalg.vector_norm(xn, axis=-1, ord=-np.inf)",
    ),
    "matrix_norm_fro": ("sa.linalg.matrix_norm(x)", "np.linalg.matrix_norm(xn)"),
    "matrix_norm_1": ("sa.linalg.matrix_norm(x, ord=1)", "np.linalg.matrix_norm(xn, ord=1)"),
    "matrix_norm_inf": (
        "sa.linalg.matrix_norm(x, ord=float('inf'))",
        "np.linalg.matrix_norm(xn, ord=np.inf)",
    ),
    "cholesky": ("sa.linalg.cholesky(x)", "np.linalg.cholesky(xn)"),
    "qr_r": ("sa.linalg.qr(x).R", "np.linalg.qr(xn).R"),
}
IEEE_LAPACK = {  # id -> (our call on x, NumPy's reference on the finite matrices m)
    "det": ("sa.linalg.det(x)", "np.linalg.det(m)"),
    "slogdet": ("tuple(sa.linalg.slogdet(x))", "tuple(np.linalg.slogdet(m))"),
    "inv": ("sa.linalg.inv(x)", "np.linalg.inv(m)"),
    "solve": ("sa.linalg.solve(x, y)", "np.linalg.solve(m, yn[keep])"),
    "solve_vector": ("sa.linalg.solve(x, y[0, 0])", "np.linalg.solve(m, yn[0, 0])"),
    "eigh": ("tuple(sa.linalg.eigh(x))", "tuple(np.linalg.eigh(m))"),
    "eigvalsh": ("sa.linalg.eigvalsh(x)", "np.linalg.eigvalsh(m)"),
    "eig_values": ("sa.linalg.eig(x)[0]", "np.linalg.eig(m)[0]"),
    "eigvals": ("sa.linalg.eigvals(x)", "np.linalg.eigvals(m)"),
    "svd": ("tuple(sa.linalg.svd(x))", "tuple(np.linalg.svd(m))"),
    "svdvals": ("sa.linalg.svdvals(x)", "np.linalg.svd(m, compute_uv=False)"),
    "pinv": ("sa.linalg.pinv(x)", "np.linalg.pinv(m, rtol=np.finfo(m.dtype).eps * 4)"),
    "matrix_norm_2": ("sa.linalg.matrix_norm(x, ord=2)", "np.linalg.matrix_norm(m, ord=2)"),
    "matrix_norm_m2": ("sa.linalg.matrix_norm(x, ord=-2)", "np.linalg.matrix_norm(m, ord=-2)"),
    "matrix_norm_nuc": (
        "sa.linalg.matrix_norm(x, ord='nuc')",
        "np.linalg.matrix_norm(m, ord='nuc')",
    ),
}
for dt in ("float32", "float64", "complex128"):
    for k in ("nan", "inf"):
        S = (
            f"xn = ieee_stack({dt!r}, {k!r}); yn = ieee_stack({dt!r}, 'nan')[::-1].copy()\n"
            "yn[0] = yn[2]; x = sa.asarray(xn); y = sa.asarray(yn)"
        )
        exact = dt != "complex128" or k == "nan"
        for name, (ours, ref) in IEEE_LINALG.items():
            if name == "cross" and dt == "complex128":
                continue  # complex cross products are covered by the real rows
            row(
                f"ieee_linalg_{name}_{dt}_{k}",
                S,
                f"r = {ours}",
                None,
                check=f"ieee_same(r, {ref}, nan_exact={exact})",
            )
        for name, (ours, ref) in IEEE_LAPACK.items():
            row(
                f"ieee_lapack_{name}_{dt}_{k}",
                S,
                f"r = {ours}",
                None,
                check=f"lapack_check(r, lambda m, keep: {ref}, xn)",
            )
        row(
            f"ieee_lapack_matrix_rank_{dt}_{k}",
            S,
            "sa.linalg.matrix_rank(x)",
            ValueError,
            "NaN or an infinity",
        )


# -- NaN and infinity in reductions, sorting and casts: no exception and no warning (a NumPy
# RuntimeWarning leaking from inside the library is noise, and an error under -W error);
# values as NumPy's.
SQ = (
    "xn = np.array([[np.inf, -np.inf, 1.0], [np.nan, 2.0, 0.0], [np.inf, 0.0, 3.0]])\n"
    "x = sa.asarray(xn)"
)
for rid, ours, ref in [
    ("sum", "sa.sum(x, axis=1)", "np.sum(xn, axis=1)"),
    ("sum_all", "sa.sum(x)", "np.sum(xn)"),
    ("prod", "sa.prod(x, axis=0)", "np.prod(xn, axis=0)"),
    ("cumulative_sum", "sa.cumulative_sum(x, axis=1)", "np.cumulative_sum(xn, axis=1)"),
    ("cumulative_prod", "sa.cumulative_prod(x, axis=0)", "np.cumulative_prod(xn, axis=0)"),
    ("mean", "sa.mean(x, axis=1)", "np.mean(xn, axis=1)"),
    ("var", "sa.var(x, axis=0)", "np.var(xn, axis=0)"),
    ("max", "sa.max(x, axis=1)", "np.max(xn, axis=1)"),
    ("min", "sa.min(x, axis=0)", "np.min(xn, axis=0)"),
    ("sort", "sa.sort(x, axis=1)", "np.sort(xn, axis=1)"),
    ("argmax", "sa.argmax(x, axis=1)", "np.argmax(xn, axis=1)"),
    ("divide", "x / sa.zeros(3)", "xn / np.zeros(3)"),
    ("multiply", "x * sa.asarray([0.0, 0.0, np.inf])", "xn * np.array([0.0, 0.0, np.inf])"),
    (
        "sum_overflow",
        "sa.sum(sa.asarray([3e38, 3e38], dtype=sa.float32))",
        "np.sum(np.array([3e38, 3e38], dtype=np.float32))",
    ),
]:
    row(
        f"ieee_{rid}",
        SQ,
        f"r = {ours}",
        None,
        check=f"with np.errstate(all='ignore'):\n    ieee_same(r, {ref})",
    )
# NaN/inf -> integer: the standard leaves the values unspecified; csrc/core/matmul/pack.c defines
# them (NaN and values that do not fit give the most negative value of the int32 or int64 they pass
# through), see tests/base/test_dtypes.py::test_astype_float_to_int_out_of_range_is_defined.
row(
    "ieee_asarray_nan_to_int",
    "xn = np.array([np.nan, np.inf, 1.0])",
    "r = sa.asarray(xn, dtype=sa.int64)",
    None,
    check="assert r._np.tolist() == [-2**63, -2**63, 1]",
)
row(
    "ieee_astype_nan_to_int",
    "x = sa.asarray([np.nan, np.inf, 1.0])",
    "r = sa.astype(x, sa.int32)",
    None,
    check="assert r._np.tolist() == [-2**31, -2**31, 1]",
    warns=True,  # NumPy's "invalid value encountered in cast" (test_numpy_users.py)
)

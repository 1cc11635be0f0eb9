"""The fft extension: differential against numpy.fft over random views, precision kept per
input dtype, dtype= on the frequency helpers, and kind/argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_DTYPES as DTYPES
from strategies import views

import stridedarray as sa
from stridedarray import fft

SETTINGS = settings(max_examples=30, deadline=None)
COMPLEX = [sa.complex64, sa.complex128]
REAL = [sa.float32, sa.float64]
# name -> (input dtypes, output precision maker)
ONE_D = {
    "fft": (COMPLEX, "c"),
    "ifft": (COMPLEX, "c"),
    "rfft": (REAL, "c"),
    "irfft": (COMPLEX, "f"),
    "hfft": (COMPLEX, "f"),
    "ihfft": (REAL, "c"),
}
N_D = {
    "fftn": (COMPLEX, "c"),
    "ifftn": (COMPLEX, "c"),
    "rfftn": (REAL, "c"),
    "irfftn": (COMPLEX, "f"),
}


def _out_dtype(in_dt, kind: str) -> np.dtype:
    single = in_dt in (sa.float32, sa.complex64)
    if kind == "c":
        return np.dtype(np.complex64 if single else np.complex128)
    return np.dtype(np.float32 if single else np.float64)


def _close(out: sa.Array, expected: np.ndarray, dt: np.dtype) -> None:
    assert out.dtype.np == dt, (out.dtype, dt)
    assert out.shape == expected.shape
    tol = 1e-3 if dt in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(np.asarray(out), expected, rtol=tol, atol=tol * 100)


@pytest.mark.parametrize("name", sorted(ONE_D))
@SETTINGS
@given(data=st.data())
def test_one_dimensional(name, data):
    dts, kind = ONE_D[name]
    p = data.draw(views(st.sampled_from(dts), max_dims=3))
    if p.ref.ndim == 0 or 0 in p.ref.shape:
        return
    axis = data.draw(st.integers(-p.ref.ndim, p.ref.ndim - 1))
    n = data.draw(st.none() | st.integers(2, 8))
    norm = data.draw(st.sampled_from(["backward", "ortho", "forward"]))
    if name in ("irfft", "hfft") and n is None and p.ref.shape[axis] < 2:
        return  # the default n = 2 * (m - 1) would be 0
    expected = getattr(np.fft, name)(p.ref, n=n, axis=axis, norm=norm)
    out = getattr(fft, name)(p.x, n=n, axis=axis, norm=norm)
    _close(out, expected, _out_dtype(p.x.dtype, kind))


@pytest.mark.parametrize("name", sorted(N_D))
@SETTINGS
@given(data=st.data())
def test_n_dimensional(name, data):
    dts, kind = N_D[name]
    p = data.draw(views(st.sampled_from(dts), max_dims=3))
    nd = p.ref.ndim
    if nd == 0 or 0 in p.ref.shape:
        return
    axes = data.draw(
        st.none() | st.lists(st.integers(0, nd - 1), unique=True, min_size=1, max_size=nd)
    )
    s = None
    if axes is not None and data.draw(st.booleans()):
        s = [data.draw(st.integers(2, 6)) for _ in axes]
    if name == "irfftn" and s is None:
        last = (axes or list(range(nd)))[-1]
        if p.ref.shape[last] < 2:
            return
    norm = data.draw(st.sampled_from(["backward", "ortho", "forward"]))
    expected = getattr(np.fft, name)(p.ref, s=s, axes=axes, norm=norm)
    out = getattr(fft, name)(p.x, s=s, axes=axes, norm=norm)
    _close(out, expected, _out_dtype(p.x.dtype, kind))


@pytest.mark.parametrize("dt", [None, sa.float32, sa.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_frequencies(dt, n):
    out = fft.fftfreq(n, d=0.5, dtype=dt)
    want = np.dtype(np.float64) if dt is None else dt.np
    _close(out, np.fft.fftfreq(n, d=0.5).astype(want), want)
    out = fft.rfftfreq(n, d=0.5, dtype=dt)
    _close(out, np.fft.rfftfreq(n, d=0.5).astype(want), want)


@SETTINGS
@given(data=st.data())
def test_shifts(data):
    p = data.draw(views())
    nd = p.ref.ndim
    if nd == 0:
        np.testing.assert_array_equal(np.asarray(fft.fftshift(p.x)), p.ref)
        return
    axes = data.draw(st.none() | st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
    np.testing.assert_array_equal(
        np.asarray(fft.fftshift(p.x, axes=axes)), np.fft.fftshift(p.ref, axes=axes)
    )
    np.testing.assert_array_equal(
        np.asarray(fft.ifftshift(p.x, axes=axes)), np.fft.ifftshift(p.ref, axes=axes)
    )


def test_bad_input():
    with pytest.raises(TypeError, match="real"):
        fft.rfft(sa.asarray([1j]))
    with pytest.raises(ValueError, match="norm"):
        fft.fft(sa.asarray([1j]), norm="none")
    with pytest.raises(TypeError, match="dtype"):
        fft.fftfreq(4, dtype=sa.int32)
    with pytest.raises(ValueError, match="fftfreq: n must be >= 1"):
        fft.fftfreq(0)


@pytest.mark.parametrize(
    "name", ["fft", "ifft", "fftn", "ifftn", "rfft", "rfftn", "ihfft", "irfft", "hfft"]
)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_real_integer_and_bool_input_as_numpy(name, data):
    """NumPy, PyTorch and JAX transform real, integer and bool input where the standard asks
    for complex (or real floating) input; we give NumPy's values and dtypes."""
    dt = data.draw(st.sampled_from([d for d in DTYPES if d.kind in "biuf"]))
    p = data.draw(views(dt, max_dims=2, broadcast=False))
    if p.ref.ndim == 0 or p.ref.size == 0 or (name in ("irfft", "hfft") and p.ref.shape[-1] < 2):
        return  # (irfft and hfft of one point have no output length)
    got = getattr(fft, name)(p.x)
    want = getattr(np.fft, name)(p.ref)
    assert got.dtype.np == want.dtype
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5 * scale)

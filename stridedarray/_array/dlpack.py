"""DLPack export of an Array: `__dlpack__` and `__dlpack_device__`; the capsule is made in C
(csrc/arraytype/dlpack.c, which `__dlpack_c_exchange_api__` shares), strides (negative
included) exported as they are. Here only the arguments are checked and worded.

Plain functions of an Array, which the class statement in `array.py` takes as its methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._arraytype import _dlpack, _dlpack_exchange_api
from .._base.arguments import as_bool, as_int

if TYPE_CHECKING:
    from .array import Array

__all__: list[str] = []

_DL_CPU = 1  # kDLCPU in DLPack's DLDeviceType

# DLPack 1.3's C exchange API: a PyCapsule named "dlpack_exchange_api" holding the table of C
# functions (export, import, allocation, stream), which consumers look up on the type.
__dlpack_c_exchange_api__ = _dlpack_exchange_api


def __dlpack__(
    self: Array,
    /,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """Export as a DLPack capsule: versioned (DLPack 1.x) when max_version allows it, else the
    legacy one.

    Strides, negative included, are exported as they are, without a copy. A read-only array
    carries DLPack's read-only flag; the legacy format has none, so a legacy consumer gets a
    copy (copy=False then raises BufferError)."""
    if stream is not None:
        raise ValueError("stream must be None for CPU arrays")
    if dl_device is not None:
        device = _int_pair(dl_device, "dl_device", "(device_type, device_id)")
        if device != (_DL_CPU, 0):
            raise BufferError(
                f"dl_device {device} is not supported; only the CPU ({_DL_CPU}, 0) is"
            )
    versioned = False
    if max_version is not None:
        versioned = _int_pair(max_version, "max_version", "(major, minor)")[0] >= 1
    return _dlpack(self, versioned, as_bool(copy, "copy", "__dlpack__", none=True))


def __dlpack_device__(self: Array) -> tuple[int, int]:
    """The DLPack device: (kDLCPU, 0)."""
    return (_DL_CPU, 0)


def _int_pair(value: Any, name: str, what: str) -> tuple[int, int]:
    """A DLPack pair argument as two ints; TypeError naming it otherwise (checked before any
    conversion, so a huge iterable or a float is refused without being walked)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(
            f"__dlpack__: {name} must be None or a {what} tuple of two ints, got "
            f"{type(value).__name__} {value!r:.40}"
        )
    return (
        as_int(value[0], f"{name}[0]", "__dlpack__"),
        as_int(value[1], f"{name}[1]", "__dlpack__"),
    )

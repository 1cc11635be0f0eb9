"""DLPack export of an Array: `__dlpack__` and `__dlpack_device__`, through NumPy's exporter
on the zero-copy view (negative strides are exported as they are).

Plain functions of an Array, which the class statement in `_array.py` takes as its methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._base.arguments import as_int

if TYPE_CHECKING:
    from .array import Array

__all__: list[str] = []

_DL_CPU = 1  # kDLCPU in DLPack's DLDeviceType


def __dlpack__(
    self: Array,
    /,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """Export as a DLPack capsule (versioned DLPack 1.0 when max_version allows it).

    NumPy's exporter is used on the zero-copy view, so strides (negative included) are
    exported as they are."""
    if stream is not None:
        raise ValueError("stream must be None for CPU arrays")
    if dl_device is not None:
        device = _int_pair(dl_device, "dl_device", "(device_type, device_id)")
        if device != (_DL_CPU, 0):
            raise BufferError(
                f"dl_device {device} is not supported; only the CPU ({_DL_CPU}, 0) is"
            )
    kw: dict[str, Any] = {}
    if max_version is not None:
        major, minor = _int_pair(max_version, "max_version", "(major, minor)")
        # Versions beyond a C int mean "any version up to this": NumPy reads a C long.
        kw["max_version"] = (min(major, 2**31 - 1), min(minor, 2**31 - 1))
    if copy is not None:
        kw["copy"] = copy
    arr = self._np
    if not arr.flags.writeable and copy is None and (max_version is None or max_version[0] < 1):
        # Legacy (unversioned) capsules have no read-only flag; NumPy refuses to export,
        # so give the consumer a private copy.
        kw["copy"] = True
    return arr.__dlpack__(**kw)


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

"""The array object's protocols that are not about layout: namespace and device, conversion
of 0-d arrays to Python scalars, and DLPack export. Array inherits them from this mixin."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._array import Array

__all__ = ["Device", "CPU_DEVICE"]

class Device:
    """The one device stridedarray computes on: host memory."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "CPU_DEVICE"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device)

    def __hash__(self) -> int:
        return hash("stridedarray.cpu")


CPU_DEVICE = Device()

_API_VERSIONS = ("2023.12", "2024.12", "2025.12")
_DL_CPU = 1  # kDLCPU in DLPack's DLDeviceType


class _ArrayProtocols:
    """Mixin for Array: namespace, device, Python scalar conversion, DLPack."""

    __slots__ = ()

    # -- namespace, device, conversion to Python scalars ---------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The stridedarray namespace; api_version may be None, "2023.12", "2024.12" or
        "2025.12"."""
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(f"api_version must be None or one of {_API_VERSIONS}, "
                             f"got {api_version!r}")
        if api_version is not None:
            # Version-dependent results (list vs tuple) read it through _info.api_version();
            # None keeps the version already requested (the latest unless one was asked for).
            from ._info import _set_api_version

            _set_api_version(api_version)
        from ._info import namespace_for

        return namespace_for(api_version)

    def to_device(self, device: Device, /, *, stream: Any = None) -> Array:
        """This array on `device` (only the CPU exists, so it returns self)."""
        if device != CPU_DEVICE:
            raise ValueError(f"device must be {CPU_DEVICE!r}, got {device!r}")
        if stream is not None:
            raise ValueError("stream must be None on the CPU device")
        return self

    def _scalar(self, what: str) -> Any:
        if self.ndim != 0:
            raise TypeError(f"only 0-d arrays can be converted to Python {what}; this array "
                            f"has shape {self._shape}")
        return self._np[()]

    def __bool__(self) -> bool:
        """Truth value of a 0-d array (complex: real or imaginary part non-zero)."""
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        """A 0-d real array as a Python int (inf -> OverflowError, NaN -> ValueError)."""
        v = self._scalar("int")
        if self._dtype.kind == "c":
            raise TypeError("int() of a complex array is not defined; take real() first")
        return int(v)

    def __index__(self) -> int:
        """A 0-d integer array as a Python int (for use as an index)."""
        if self._dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, got "
                            f"{self._dtype.name}")
        return int(self._scalar("int"))

    def __float__(self) -> float:
        """A 0-d real array as a Python float."""
        v = self._scalar("float")
        if self._dtype.kind == "c":
            raise TypeError("float() of a complex array is not defined; take real() first")
        return float(v)

    def __complex__(self) -> complex:
        """A 0-d array as a Python complex."""
        return complex(self._scalar("complex"))

    # -- DLPack ---------------------------------------------------------------------------------
    def __dlpack__(self, /, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """Export as a DLPack capsule (versioned DLPack 1.0 when max_version allows it).

        NumPy's exporter is used on the zero-copy view, so strides (negative included) are
        exported as they are."""
        if stream is not None:
            raise ValueError("stream must be None for CPU arrays")
        if dl_device is not None and tuple(dl_device) != (_DL_CPU, 0):
            raise BufferError(f"dl_device {dl_device} is not supported; only the CPU "
                              f"({_DL_CPU}, 0) is")
        kw: dict[str, Any] = {}
        if max_version is not None:
            kw["max_version"] = max_version
        if copy is not None:
            kw["copy"] = copy
        arr = self._np
        if not arr.flags.writeable and copy is None and (max_version is None
                                                          or max_version[0] < 1):
            # Legacy (unversioned) capsules have no read-only flag; NumPy refuses to export,
            # so give the consumer a private copy.
            kw["copy"] = True
        return arr.__dlpack__(**kw)

    def __dlpack_device__(self) -> tuple[int, int]:
        """The DLPack device: (kDLCPU, 0)."""
        return (_DL_CPU, 0)

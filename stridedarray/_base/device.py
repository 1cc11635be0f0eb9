"""The device: stridedarray computes on the host's memory, the one device `CPU_DEVICE`."""

from __future__ import annotations

from typing import Any

__all__ = ["Device", "CPU_DEVICE"]


class Device:
    """The one device stridedarray computes on: host memory."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "CPU_DEVICE"

    def __eq__(self, other: object) -> bool:
        # The string "cpu" names this device too, as torch spells it (to_device("cpu")).
        return isinstance(other, Device) or (isinstance(other, str) and other == "cpu")

    def __hash__(self) -> int:
        return hash("cpu")  # equal objects hash alike: "cpu" == CPU_DEVICE

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _unpickle_device, ()  # stridedarray._pickle.device


CPU_DEVICE = Device()


def _unpickle_device() -> Device:
    """The device a pickle names, itself (stridedarray._pickle.device)."""
    return CPU_DEVICE

"""Device choice: CUDA when available, else CPU."""
from __future__ import annotations

from .errors import LabError


#: the device names a person chooses from (``cuda:N`` is accepted too, on the command line)
DEVICES = ("auto", "cpu", "cuda")


class DeviceError(LabError, ValueError):
    """An unknown device name, or CUDA asked for on a machine without it."""


def check_device_name(name: str | None) -> str:
    """``name`` lower-cased if it is auto, cpu, cuda or cuda:N (checked without importing torch)."""
    text = (name or "auto").lower()
    if text in ("auto", "cpu", "cuda") or (text.startswith("cuda:") and text[5:].isdigit()):
        return text
    raise DeviceError(f"unknown device {name!r}: use auto, cpu or cuda")


def pick_device(name: str | None = "auto"):
    """``"auto"``/None: ``cuda`` when torch sees a GPU, else ``cpu``; ``"cpu"``/``"cuda"`` explicitly."""
    name = check_device_name(name)
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise DeviceError("device 'cuda' was requested but torch sees no CUDA GPU on this machine")
        return torch.device(name)
    raise DeviceError(f"unknown device {name!r}: use auto, cpu or cuda")

"""MNIST from the IDX files a user already has (nothing is ever downloaded), resized as in the paper (D.2).

``read_idx(path)`` parses one IDX file (``.gz`` or not) with numpy: the magic number (two zero bytes, the type
code 0x08 = unsigned byte, the number of dimensions), the big-endian dimensions, then the data; anything else is
an ``MnistError`` naming the file.  ``load_mnist(directory, "t10k" | "train", size=14)`` returns the images in
[0, 1], resized to ``size`` x ``size`` (area averaging when the side divides 28, else antialiased bilinear), and
the labels.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from ..errors import LabError

#: the IDX type code of unsigned bytes (the only one MNIST uses)
UBYTE = 0x08
SPLITS = ("t10k", "train")


class MnistError(LabError, ValueError):
    """A missing or malformed MNIST IDX file."""


def _open(path: Path) -> bytes:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except (OSError, EOFError) as err:  # gzip.BadGzipFile is an OSError
        raise MnistError(f"{path}: cannot read it ({err})") from None


def read_idx(path) -> np.ndarray:
    """The array stored in one IDX file of unsigned bytes (``MnistError`` when it is not one)."""
    path = Path(path)
    raw = _open(path)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise MnistError(f"{path}: not an IDX file (the magic number must start with two zero bytes)")
    if raw[2] != UBYTE:
        raise MnistError(f"{path}: IDX type 0x{raw[2]:02x}, expected 0x08 (unsigned bytes)")
    ndim = raw[3]
    if ndim not in (1, 3) or len(raw) < 4 + 4 * ndim:
        raise MnistError(f"{path}: {ndim} dimensions; MNIST files have 1 (labels) or 3 (images)")
    dims = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    body = len(raw) - 4 - 4 * ndim
    if body != int(np.prod(dims)):
        raise MnistError(f"{path}: the header announces {' x '.join(map(str, dims))} = {int(np.prod(dims))} bytes "
                         f"of data, the file has {body}")
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def find(directory, split: str, kind: str) -> Path:
    """The file ``{split}-{kind}-idx?-ubyte`` in ``directory``, gzipped or not."""
    directory = Path(directory)
    ndim = 3 if kind == "images" else 1
    for name in (f"{split}-{kind}-idx{ndim}-ubyte", f"{split}-{kind}.idx{ndim}-ubyte"):
        for candidate in (directory / name, directory / (name + ".gz")):
            if candidate.is_file():
                return candidate
    raise MnistError(f"no {split}-{kind}-idx{ndim}-ubyte[.gz] in {directory} (MNIST is never downloaded: put the "
                     f"IDX files there)")


def resize(images: np.ndarray, size: int) -> np.ndarray:
    """(N, h, w) images in [0, 1] resized to (N, size, size) with torch: area averaging when ``size`` divides
    the side, else bilinear with antialiasing."""
    import torch
    import torch.nn.functional as F

    if images.shape[1:] == (size, size):
        return images.astype(np.float64)
    x = torch.as_tensor(images, dtype=torch.float64)[:, None]
    if images.shape[1] % size == 0 and images.shape[2] % size == 0:
        y = F.interpolate(x, size=(size, size), mode="area")
    else:
        y = F.interpolate(x, size=(size, size), mode="bilinear", antialias=True, align_corners=False)
    return y[:, 0].clamp(0.0, 1.0).numpy()


def load_mnist(directory, split: str = "t10k", size: int = 14) -> tuple[np.ndarray, np.ndarray]:
    """Images (N, size, size) in [0, 1] and labels (N,) of MNIST's ``split`` (``t10k``: the test set the paper
    trains on; ``train``) from the IDX files in ``directory``."""
    if split not in SPLITS:
        raise MnistError(f"unknown MNIST split {split!r}: t10k or train")
    if not Path(directory).is_dir():
        raise MnistError(f"{directory}: not a directory (--data takes the directory of the MNIST IDX files)")
    img_path, lab_path = find(directory, split, "images"), find(directory, split, "labels")
    images, labels = read_idx(img_path), read_idx(lab_path)
    if images.ndim != 3:
        raise MnistError(f"{img_path}: images need 3 dimensions (count, rows, columns), got {images.ndim}")
    if labels.ndim != 1:
        raise MnistError(f"{lab_path}: labels need 1 dimension, got {labels.ndim}")
    if len(images) != len(labels):
        raise MnistError(f"{img_path} has {len(images)} images but {lab_path} has {len(labels)} labels")
    if len(labels) and labels.max() > 9:
        raise MnistError(f"{lab_path}: label {int(labels.max())} is not a digit")
    return resize(images / 255.0, size), labels.astype(np.int64)

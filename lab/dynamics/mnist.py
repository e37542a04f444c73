"""MNIST from the user's IDX files: lives in the shared ``lab.data.mnist``; re-exported here for code that imports
it from this module."""
from ..data.mnist import SPLITS, UBYTE, MnistError, find, load_mnist, read_idx

__all__ = ["SPLITS", "UBYTE", "MnistError", "find", "load_mnist", "read_idx"]

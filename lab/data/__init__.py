"""Data several families share, generated or shipped with a library (nothing is downloaded at run time).

``digits`` (scikit-learn's 8 x 8 digits), ``mnist`` (MNIST from IDX files the user already has), ``synthetic``
(the training-dynamics paper's block-model graphs and shape images).  A family's own tasks live in its folder.
"""
from .digits import digits
from .mnist import MnistError, load_mnist, read_idx
from .synthetic import sbm_graphs, shapes

__all__ = ["digits", "load_mnist", "read_idx", "MnistError", "sbm_graphs", "shapes"]

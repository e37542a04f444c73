"""Text on matplotlib figures, shared by every family's ``plots_mpl``: words without a literal underscore and plain
numbers on log axes.

>>> words("mlp_aug")
'mlp aug'
"""
from __future__ import annotations


def words(text) -> str:
    """Text for a label: never a literal underscore (matplotlib would show it as it is)."""
    return str(text).replace("_", " ")


def plain_log_labels(axis) -> None:
    """Plain numbers (4, 10, 0.03) on a log axis, the ticks matplotlib chooses to label (minor ones too when
    the data span less than a decade), never "6x10^0"."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def __call__(self, x, pos=None):
            return f"{x:g}" if super().__call__(x, pos) else ""

    axis.set_major_formatter(Plain(labelOnlyBase=False))
    axis.set_minor_formatter(Plain(labelOnlyBase=False))

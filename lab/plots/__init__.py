"""Plots of the lab: data in ``coloring`` (numpy), drawn by ``hvplot`` (HoloViews/Bokeh) or ``mpl`` (matplotlib)."""
from .coloring import ColoringData, basis_coloring, coloring_from_solution

__all__ = ["ColoringData", "basis_coloring", "coloring_from_solution"]

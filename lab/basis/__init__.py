"""The basis family: a group and two representations in, the equivariant basis and its coloring out.

Its science is the shared engine (``lab.groups``, ``lab.reps``, ``lab.solvers``); this folder holds what the
family contributes on top: its manifest (``family.py``), teaching presets, its pane and its claims.
"""

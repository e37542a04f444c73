"""Experiment presets more than one family runs: a group, the layers, the data and the task, read from one table of a
paper's settings with their sources.  Torch-free at the package level (the settings module imports nothing heavy, so
the command line reads its choices without torch).

* ``lab.tasks.nordenfors_paper`` -- the settings of Nordenfors, Ohlsson & Flinth's experiments (``PAPER``,
  ``SMALL``, ``DEMO``, ``setting``), each value with its source and, where the lab deviates, why;
* ``lab.tasks.nordenfors`` -- ``build(name, scale, seed)``: the experiments themselves (``perm``, ``trans``,
  ``rot``, ``custom``), trained by the training-dynamics family and ensembled by the ensembles family.
"""

"""The chapter-2 tasks in words, for figure titles (no torch: the matplotlib figures of emlp and rpp, two families,
read them, so they live in the shared data layer).

>>> task_title("o5"), task_title("my_task")
('O(5)-invariant regression', 'my task')
"""
from __future__ import annotations


#: the chapter-2 tasks in words (figure titles)
TASK_TITLES = {"o5": "O(5)-invariant regression", "inertia": "moment of inertia",
               "scattering": "Lorentz-invariant scattering", "scattering-original": "scattering (original code)",
               "pendulum": "double spring pendulum"}


def task_title(task: str) -> str:
    """A task's title in words (its name, underscores as spaces, when it has none)."""
    return TASK_TITLES.get(task, str(task).replace("_", " "))

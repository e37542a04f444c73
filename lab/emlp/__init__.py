"""The EMLP chapter's experiments as data (thesis ch. 2.7): ``TASKS`` of ``lab.emlp.tasks``.

>>> sorted(TASKS)
['inertia', 'o5', 'pendulum', 'scattering']
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (its manifest, what ``lab --help`` reads) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("DynamicsSettings", "HamiltonianNN", "NeuralODE", "run_pendulum"), "dynamics"),
    **dict.fromkeys(("WINDY", "DoubleSpringPendulum", "ZAxisGroup", "angular_momentum_z", "hamiltonian",
                     "hamiltonian_vector_field", "z_axis_group"), "pendulum"),
    **dict.fromkeys(("INERTIA", "O5", "PENDULUM", "SCATTERING", "SCATTERING_ORIGINAL", "TASKS", "RegressionTask",
                     "get_task", "make", "task_group", "task_reps"), "tasks"),
})

__all__ = ["TASKS", "RegressionTask", "DoubleSpringPendulum", "ZAxisGroup", "O5", "INERTIA", "SCATTERING",
           "SCATTERING_ORIGINAL", "PENDULUM", "WINDY", "get_task", "make", "task_group", "task_reps",
           "z_axis_group", "hamiltonian", "hamiltonian_vector_field", "angular_momentum_z"]

"""The EMLP chapter's experiments as data (thesis ch. 2.7): ``TASKS`` of ``lab.emlp.tasks``.

>>> sorted(TASKS)
['inertia', 'o5', 'pendulum', 'scattering']
"""
from .dynamics import DynamicsSettings, HamiltonianNN, NeuralODE, run_pendulum
from .pendulum import (WINDY, DoubleSpringPendulum, ZAxisGroup, angular_momentum_z, hamiltonian,
                       hamiltonian_vector_field, z_axis_group)
from .tasks import (INERTIA, O5, PENDULUM, SCATTERING, SCATTERING_ORIGINAL, TASKS, RegressionTask, get_task, make,
                    task_group, task_reps)

__all__ = ["TASKS", "RegressionTask", "DoubleSpringPendulum", "ZAxisGroup", "O5", "INERTIA", "SCATTERING",
           "SCATTERING_ORIGINAL", "PENDULUM", "WINDY", "get_task", "make", "task_group", "task_reps",
           "z_axis_group", "hamiltonian", "hamiltonian_vector_field", "angular_momentum_z"]

"""The EMLP family (thesis chapter 2): equivariant MLPs against MLPs on the chapter's regression tasks and the double
spring pendulum -- its run (``lab.emlp.family``), claims, pane, figures and saved runs.

The science it runs is shared, so other families use it without importing this one: the tasks
(``lab.data.regression``: ``TASKS``, ``RegressionTask``, ``get_task``, ``task_group``), the pendulum
(``lab.data.pendulum``), the training loop (``lab.nn.train``: ``Schedule``, ``fit``, ``train_one``) and the
Hamiltonian and neural-ODE models (``lab.nn.hamiltonian``).
"""

"""Data several families share, generated or shipped with a library (nothing is downloaded at run time), one module
each, imported where used (the package imports none of them, so reading one does not load the others' libraries):

* ``lab.data.digits`` -- scikit-learn's 8 x 8 digits (``digits``) and their seeded split (``digits_data``);
* ``lab.data.mnist`` -- MNIST from IDX files the user already has (``load_mnist``, ``read_idx``);
* ``lab.data.synthetic`` -- the training-dynamics paper's block-model graphs and shape images;
* ``lab.data.regression`` -- the EMLP chapter's regression tasks (``TASKS``, ``get_task``, ``task_group``);
* ``lab.data.pendulum`` -- the double spring pendulum, its Hamiltonian and symmetry groups;
* ``lab.data.sizes`` -- the size and dtype checks every generated dataset passes before it is built;
* ``lab.data.titles`` -- the tasks' titles for figures.
"""

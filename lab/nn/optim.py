"""The lab's Adam: ``torch.optim.Adam`` updating all its tensors in a few batched (``foreach``) ops.

torch takes the batched implementation by default on CUDA but loops over the tensors one by one on the CPU, where an
equivariant model's many small weight tensors make the loop cost: for an O(5) EMLP's 35 tensors at the thesis's
width the update alone took 3.9 ms in the loop against 1.3 ms batched (2 cores), though within a whole training
step the difference is inside the machine's noise (``bench/emlp.py``).  The update is the same algorithm (the
batched ops round alike up to float error).

>>> import torch
>>> opt = adam([torch.nn.Parameter(torch.zeros(3))], lr=1e-3)
>>> opt.defaults["foreach"], opt.defaults["lr"]
(True, 0.001)
"""
from __future__ import annotations

import torch


def adam(params, lr: float, **options) -> torch.optim.Adam:
    """``torch.optim.Adam(params, lr, foreach=True, **options)`` (``capturable=True`` for a CUDA graph works too)."""
    options.setdefault("foreach", True)
    return torch.optim.Adam(params, lr=lr, **options)

"""A training step captured once as a CUDA graph and replayed: what makes an EMLP step cheap on a GPU.

An EMLP step is hundreds of small kernels (per pair of object types, per bilinear term, per gate), so on a GPU it
is bound by launching them, not by arithmetic: on an H200 the forward and backward take the same 17 ms at batch 1 as
at batch 500 (``bench/emlp.py --breakdown``).  PyTorch's CUDA graphs record every kernel of one step once and replay
them with a single launch ("whole-network capture", ``torch.cuda.graphs``, as PyTorch's CUDA semantics notes
describe it): warm-up steps on a side stream, then one step recorded under ``torch.cuda.graph``, then
``replay()``; inputs and targets are copied into the recorded (static) tensors before each replay, and the optimiser
must be ``capturable`` (Adam keeps its step count on the GPU).  The math is the step's own: the same kernels on the
same tensors.  Measured on an H200 (``bench/emlp.py --cuda-graph``): the thesis-size O(5) EMLP step goes from 18 ms
to 1.2 ms, faster than the eager MLP step.

Limits, each a clear ``LabError``: CUDA only; the batch shape is fixed by the capture (a last, shorter batch needs
its own ``GraphedStep`` or is dropped); nothing in the step may synchronise with the host (the lab's layers do not).

>>> import torch
>>> from lab.nn import GraphedStep
>>> x = torch.zeros(4, 3)                      # on the CPU: refused with one line
>>> GraphedStep(torch.nn.Linear(3, 1), x, torch.zeros(4, 1))
Traceback (most recent call last):
...
lab.errors.LabError: a CUDA graph needs tensors on a CUDA device; these are on cpu (run the eager step instead)
"""
from __future__ import annotations

import torch

from ..errors import LabError
from .optim import adam


def mse(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error (of the modulus, for complex outputs): the default loss."""
    return (pred - target).abs().pow(2).mean()


class GraphedStep:
    """``step(x, y)``: one optimiser step of ``model`` on the batch ``(x, y)`` by replaying a recorded CUDA graph;
    returns the loss as a GPU tensor (read it with ``float()`` only when needed: that synchronises).

    ``x``, ``y``: an example batch (its shapes and dtypes are fixed from here on); ``loss``: ``f(model(x), y)``
    (default ``mse``); ``optimizer``: a ``capturable`` one (default ``Adam(lr, capturable=True)``); ``warmup``:
    eager steps on ``(x, y)`` on a side stream before the capture (they train the model too, as PyTorch's recipe
    does).  ``warmup=0``: the caller has already taken eager steps of this model and optimiser (a training loop
    that keeps its exact sequence of steps, ``lab.nn.train``); nothing runs before the capture, and recording
    runs nothing either: the first replay is the step on ``(x, y)``."""

    def __init__(self, model, x: torch.Tensor, y: torch.Tensor, loss=mse, optimizer=None, lr: float = 3e-3,
                 warmup: int = 3):
        if x.device.type != "cuda" or y.device.type != "cuda":
            raise LabError(f"a CUDA graph needs tensors on a CUDA device; these are on {x.device} (run the eager "
                           "step instead)")
        if any(p.device != x.device for p in model.parameters()):
            raise LabError(f"the model's parameters are not all on {x.device}: move the model first")
        if optimizer is None:
            optimizer = adam(model.parameters(), lr=lr, capturable=True)
        elif not optimizer.defaults.get("capturable", False):
            raise LabError("the optimiser must be built with capturable=True to be replayed in a CUDA graph")
        self.model, self.loss_fn, self.optimizer = model, loss, optimizer
        self.x, self.y = x.detach().clone(), y.detach().clone()  # the static inputs the graph reads
        side = torch.cuda.Stream(device=x.device)
        side.wait_stream(torch.cuda.current_stream(x.device))
        with torch.cuda.stream(side):
            for _ in range(max(0, warmup)):  # allocations and lazy inits happen here, not in the capture
                self._eager()
        torch.cuda.current_stream(x.device).wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        optimizer.zero_grad(set_to_none=True)  # the gradients are allocated from the graph's own pool
        with torch.cuda.graph(self.graph):
            self.loss = self._eager(zero=False)

    def _eager(self, zero: bool = True) -> torch.Tensor:
        if zero:
            self.optimizer.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.model(self.x), self.y)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def __call__(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if x.shape != self.x.shape or y.shape != self.y.shape:
            raise LabError(f"this graph was recorded for batches {tuple(self.x.shape)} -> {tuple(self.y.shape)}, "
                           f"not {tuple(x.shape)} -> {tuple(y.shape)}")
        self.x.copy_(x)
        self.y.copy_(y)
        self.graph.replay()
        return self.loss

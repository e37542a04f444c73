"""``lab.nn.GraphedStep``: a training step recorded as a CUDA graph.  Off CUDA it is refused with one line (what
CI checks); on a GPU (the device runs) the replayed steps train the model exactly as the eager steps do."""
from __future__ import annotations

import copy

import pytest
import torch

from lab.errors import LabError
from lab.groups import parse_group
from lab.nn import EMLP, GraphedStep

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def test_it_is_refused_off_cuda_with_one_line():
    with pytest.raises(LabError, match="CUDA device"):
        GraphedStep(torch.nn.Linear(3, 1), torch.zeros(4, 3), torch.zeros(4, 1))


@cuda
def test_replays_train_as_the_eager_steps_do():
    torch.manual_seed(0)
    model = EMLP("2*V", "Scalar", parse_group("O(5)"), channels=48, layers=2).cuda()
    twin, initial = copy.deepcopy(model), copy.deepcopy(model)
    batches = [(torch.randn(32, 10, device="cuda"), torch.randn(32, 1, device="cuda")) for _ in range(6)]
    step = GraphedStep(model, *batches[0], warmup=1)  # the warm-up trains on batch 0 once
    opt = torch.optim.Adam(twin.parameters(), lr=3e-3, capturable=True)
    for x, y in batches:  # the warm-up on batch 0, then the replays (recording a graph runs nothing)
        opt.zero_grad(set_to_none=True)
        ((twin(x) - y) ** 2).mean().backward()
        opt.step()
    for x, y in batches[1:]:
        step(x, y)
    torch.cuda.synchronize()
    for p, q in zip(model.parameters(), twin.parameters()):
        assert torch.allclose(p, q, atol=1e-5, rtol=1e-4)
    assert any(not torch.allclose(p, q) for p, q in zip(model.parameters(), initial.parameters()))  # it trained
    with pytest.raises(LabError, match="recorded for batches"):
        step(torch.zeros(8, 10, device="cuda"), torch.zeros(8, 1, device="cuda"))


@cuda
def test_train_one_with_graphs_takes_the_eager_steps():
    """``lab.nn.train.train_one`` on CUDA: with graphs (the default) and without, the same steps in the same
    order, so the same curve and the same final errors (float32 rounding apart).  60 points in batches of 25:
    two full batches replay the graph, the last one of 10 stays eager."""
    from dataclasses import replace

    from lab.data.regression import get_task
    from lab.nn.train import SMALL, train_one

    task = get_task("inertia")
    X, Y = task.make(60, seed=0)
    Xt, Yt = task.make(50, seed=1)
    schedule = replace(SMALL, channels=64, layers=2, batch=25, epoch_budget=10**9, max_epochs=8)
    group = task.symmetry_group()
    runs = [train_one("emlp", task, group, (X, Y, Xt, Yt), schedule, device="cuda", cuda_graph=g) for g in (True, False)]
    graphed, eager = ([r["train_mse"] for r in run["curve"]] for run in runs)
    assert len(graphed) == len(eager) == 8 and graphed[-1] < graphed[0]
    assert max(abs(a - b) / b for a, b in zip(graphed, eager)) < 1e-3
    assert abs(runs[0]["test_mse"] - runs[1]["test_mse"]) / runs[1]["test_mse"] < 1e-3

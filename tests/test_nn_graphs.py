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

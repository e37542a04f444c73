"""The loop of ``lab.discovery.loop.compare`` (issue 48): every model built from the same seeded state, and the
seeds' mean and spread -- with the training stubbed out, so nothing here depends on an outcome of training."""
import numpy as np
import pytest
import torch

torch.set_num_threads(1)


@pytest.fixture
def stub(monkeypatch):
    """``lab.nn.train.fit`` replaced: records each model's initial parameters and its seed, returns a test MSE
    of (seed + 1) x the targets' mean square, so that the relative MSE is seed + 1."""
    import lab.nn.train as train

    seen = []

    def fit(net, task, group, data, schedule, seed=0, control=None, progress=None, **kw):
        seen.append((type(net).__name__, seed, torch.cat([p.detach().flatten() for p in net.parameters()])))
        Yt = data[3]
        return {"test_mse": (seed + 1) * float(np.mean(np.asarray(Yt) ** 2))}

    monkeypatch.setattr(train, "fit", fit)
    return seen


def _data():
    from lab.discovery.tasks import get_task

    t = get_task("rotated-plane")
    X, Y = t.make(50, 0)
    Xt, Yt = t.make(20, 1)
    return t, X, Y, Xt, Yt


def test_both_emlps_are_built_from_the_same_seeded_state(stub):
    from lab.discovery.loop import compare

    t, X, Y, Xt, Yt = _data()
    # the learned group the true one, solved alike: the two EMLPs have the same basis, so built from the same
    # seeded state they start from the same parameters, whatever was built and trained before them
    out = compare(X, Y, Xt, Yt, t.truth(), t.truth(), False, 1e-8, epochs=1, seed=3)
    names = [n for n, _, _ in stub]
    assert names == ["MLP", "EMLP", "EMLP"] and {s for _, s, _ in stub} == {3}
    assert torch.equal(stub[1][2], stub[2][2])
    assert out["seeds"] == 1 and "spread" not in out and "seed noise" in out["noise"]


def test_more_seeds_report_the_mean_and_the_spread(stub):
    from lab.discovery.loop import compare

    t, X, Y, Xt, Yt = _data()
    out = compare(X, Y, Xt, Yt, t.truth(), t.truth(), False, 1e-8, epochs=1, seed=2, seeds=3)
    assert [s for _, s, _ in stub] == [2, 2, 2, 3, 3, 3, 4, 4, 4]
    for key in ("mlp", "emlp_true", "emlp_learned"):
        assert out[key] == pytest.approx(4.0) and out["spread"][key] == pytest.approx([3.0, 5.0])
    assert out["seeds"] == 3 and "noise" not in out
    # the same seed gives the same initialisation on every pass
    assert torch.equal(stub[1][2], stub[2][2]) and not torch.equal(stub[1][2], stub[4][2])


def test_the_bars_say_one_seed_is_within_noise_and_show_the_spread():
    from lab.discovery.plots_bokeh import mse_figure

    one = mse_figure({"mlp": 0.013, "emlp_true": 0.02, "emlp_learned": 0.013, "noise": "one seed", "seeds": 1})
    assert any(getattr(r, "name", None) == "disc-mse-noise" for r in one.center)
    many = mse_figure({"mlp": 0.013, "emlp_true": 0.02, "emlp_learned": 0.013, "seeds": 3,
                       "spread": {"mlp": [0.01, 0.02], "emlp_true": [0.01, 0.03], "emlp_learned": [0.01, 0.02]}})
    text = next(r for r in many.renderers if r.name == "disc-mse-bars")
    labels = [r for r in many.renderers if r is not text][0].data_source.data["text"]
    assert "(0.01–0.03)" in labels[1] and "3 seeds" in many.title.text

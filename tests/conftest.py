import os

import numpy as np
import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """Every test session gets its own on-disk basis cache (never the user's)."""
    os.environ["LAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("lab-cache"))
    yield


@pytest.fixture(autouse=True, scope="session")
def _isolated_results(tmp_path_factory):
    """Runs the command line saves by default (lab dynamics, lab discover) go to a temporary directory."""
    os.environ.setdefault("LAB_RESULTS_DIR", str(tmp_path_factory.mktemp("lab-results")))
    yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)

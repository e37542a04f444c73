import os

import numpy as np
import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """Every test session gets its own on-disk basis cache (never the user's)."""
    os.environ["LAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("lab-cache"))
    yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)

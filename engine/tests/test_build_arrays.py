"""The build's small array helpers against NumPy's own."""

from __future__ import annotations

import numpy as np
import pytest
from polyforge_engine.construct.arrays import sorted_unique


@pytest.mark.parametrize("size", [0, 1, 2, 50, 1000])
def test_sorted_unique_matches_numpy(size: int) -> None:
    values = np.random.default_rng(size).integers(-20, 20, size=size)
    found = sorted_unique(values)
    assert found.dtype == values.dtype
    assert found.tolist() == np.unique(values).tolist()


def test_sorted_unique_leaves_its_input_alone() -> None:
    values = np.array([3, 1, 3, 2])
    sorted_unique(values)
    assert values.tolist() == [3, 1, 3, 2]

"""The cell search every compiled pair loop shares (construct/cells.h) against brute force: every pair
closer than the search distance found once, across periodic sides, along a non-periodic z, and in
cells too short for three cells along an axis."""

from __future__ import annotations

import numpy as np
import pytest
from polyforge_engine.construct._contacts import pairs_between

SEARCH = 3.2  # Å


def brute_force_pairs(first: np.ndarray, second: np.ndarray, box: np.ndarray, periodic_z: bool) -> set[tuple[int, int]]:
    """Every (i in first, j in second) closer than SEARCH at the minimum image (z only if periodic)."""
    delta = second[None, :, :] - first[:, None, :]
    periodic = np.array([True, True, periodic_z])
    delta[..., periodic] -= np.round(delta[..., periodic] / box[periodic]) * box[periodic]
    i, j = np.nonzero(np.linalg.norm(delta, axis=2) < SEARCH)
    return set(zip(i.tolist(), j.tolist(), strict=True))


def found_pairs(first: np.ndarray, second: np.ndarray, box: np.ndarray, periodic_z: bool) -> list[tuple[int, int]]:
    found = np.frombuffer(pairs_between(first, second, tuple(float(side) for side in box), periodic_z, SEARCH), dtype=np.int64)
    return [tuple(pair) for pair in found.reshape(-1, 2).tolist()]


# Sides in searches: 3 and 4 cells along an axis, many, and 2.5 (one cell: the minimum image pair by
# pair); along a non-periodic z the points' extent sets the cells (1, 2, 3 and more of them).
@pytest.mark.parametrize("sides", [(3.0, 3.0, 3.0), (4.2, 3.1, 7.5), (9.0, 9.0, 9.0), (2.5, 6.0, 6.0), (6.0, 6.0, 2.5)])
@pytest.mark.parametrize("periodic_z", [True, False])
def test_every_close_pair_is_found_once(sides: tuple[float, float, float], periodic_z: bool) -> None:
    rng = np.random.default_rng(int(sum(sides) * 10) + periodic_z)
    box = np.array(sides) * SEARCH
    for spread_z in [1.0] if periodic_z else [0.2, 0.5, 1.0]:  # non-periodic: 1, 2 or several cells along z
        extent = box * [1.0, 1.0, spread_z]
        # Points at raw coordinates up to a box away from the cell, as molecules kept whole have them.
        first = rng.uniform(0, 1, (400, 3)) * extent + rng.integers(-1, 2, (400, 3)) * box * [1, 1, periodic_z]
        second = rng.uniform(0, 1, (300, 3)) * extent + rng.integers(-1, 2, (300, 3)) * box * [1, 1, periodic_z]
        found = found_pairs(first, second, box, periodic_z)
        expected = brute_force_pairs(first, second, box, periodic_z)
        assert len(expected) > 50
        assert len(found) == len(set(found))  # none twice
        assert set(found) == expected

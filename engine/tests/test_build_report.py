"""Closest contacts as report.json states them: exact up to the distance stated with them, searched
further when the first search finds no contact of a kind, across the periodic boundary and walls."""

from __future__ import annotations

import numpy as np
import pytest
from polyforge_engine.construct.assembly import pairs_within_three_bonds
from polyforge_engine.construct.report import FIRST_SEARCH, measure_contacts

CHAIN = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])  # five atoms in a row: 0 and 4 are four bonds apart
CLOSE = pairs_within_three_bonds(CHAIN, 5)


def two_chains(offset: np.ndarray, bend: float) -> np.ndarray:
    """Two five-atom chains along x, 1.5 Å per bond, the first folded so atoms 0 and 4 are `bend` Å
    apart, the second shifted by `offset`."""
    first = np.array([[0.0, 0, 0], [1.5, 0, 0], [3.0, 0, 0], [3.0, 1.5, 0], [0.0, bend, 0]])
    second = np.array([[i * 1.5, 0, 0] for i in range(5)]) + offset
    return np.concatenate([first, second]) + 1.0


@pytest.mark.parametrize("walls", [False, True])
def test_contacts_within_the_first_search(walls: bool) -> None:
    box = np.array([20.0, 20.0, 20.0])
    # The second chain sits 2.2 Å above the first, across the periodic boundary in y (20 - 17.8).
    positions = two_chains(np.array([0.0, 17.8, 0.0]), bend=1.9)
    inter, intra, limit = measure_contacts(positions, box, walls, [5], [CLOSE], [0, 0], np.array([0, 5]))
    assert limit == FIRST_SEARCH
    assert inter == pytest.approx(2.2) and intra == pytest.approx(1.9)


def test_contacts_beyond_the_first_search_are_searched_for_further() -> None:
    box = np.array([20.0, 20.0, 20.0])
    # Half the cell (10 Å) would cap the search; here the atom spacing does.
    positions = two_chains(np.array([0.0, 0.0, 4.0]), bend=3.5)
    inter, intra, limit = measure_contacts(positions, box, False, [5], [CLOSE], [0, 0], np.array([0, 5]))
    spacing = (8000 / 10) ** (1 / 3)  # Å: the side of a cube per atom (9.3 Å, under half the cell)
    assert limit == pytest.approx(spacing)
    assert inter == pytest.approx(4.0) and intra == pytest.approx(3.5)
    # Farther than the whole search: not found, and said so.
    far = two_chains(np.array([0.0, 10.0, 10.0]), bend=3.5)
    inter, _, limit = measure_contacts(far, box, False, [5], [CLOSE], [0, 0], np.array([0, 5]))
    assert inter is None and limit == pytest.approx(spacing)


def test_walls_make_z_no_boundary_to_measure_across() -> None:
    box = np.array([20.0, 20.0, 20.0])
    # 2.2 Å apart only across z's periodic boundary: a contact without walls, none with them.
    positions = two_chains(np.array([0.0, 0.0, 17.8]), bend=1.9)
    inter, _, _ = measure_contacts(positions, box, False, [5], [CLOSE], [0, 0], np.array([0, 5]))
    assert inter == pytest.approx(2.2)
    inter, _, limit = measure_contacts(positions, box, True, [5], [CLOSE], [0, 0], np.array([0, 5]))
    assert inter is None and limit == pytest.approx((8000 / 10) ** (1 / 3))

"""The builder's cell list against brute force: neighbour blocks, crowding counts and removal in any
order, periodic and with walls."""

from __future__ import annotations

import numpy as np
import pytest
from polyforge_engine.build.cell_grid import CellGrid


def minimum_image(delta: np.ndarray, box: np.ndarray, periodic_z: bool) -> np.ndarray:
    periodic = np.array([True, True, periodic_z])
    return np.where(periodic, delta - np.round(delta / box) * box, delta)


def filled_grid(rng: np.random.Generator, periodic_z: bool, atoms: int = 600) -> tuple[CellGrid, np.ndarray]:
    box = np.array([17.0, 14.5, 12.0])
    grid = CellGrid(box, periodic_z=periodic_z, cell_side=2.4, capacity=atoms)
    positions = rng.uniform([0, 0, 0], box, size=(atoms, 3))
    for molecule, chunk in enumerate(np.array_split(np.arange(atoms), 30)):
        grid.insert(chunk, positions[chunk], molecule)
    return grid, positions


def stored(grid: CellGrid) -> set[int]:
    found = grid.table[grid.table >= 0]
    assert len(found) == len(set(found.tolist())), "an atom is stored twice"
    return set(found.tolist())


@pytest.mark.parametrize("periodic_z", [True, False])
def test_atoms_near_finds_every_atom_within_the_radius(periodic_z: bool) -> None:
    rng = np.random.default_rng(3)
    grid, positions = filled_grid(rng, periodic_z)
    centres = rng.uniform([-2, -2, 0], grid.box + 2, size=(25, 3))
    radius = 4.1
    owner, near = grid.atoms_near(centres, radius)
    for index, centre in enumerate(centres):
        delta = minimum_image(positions - grid.wrap(centre[None])[0], grid.box, periodic_z)
        within = set(np.flatnonzero(np.linalg.norm(delta, axis=1) <= radius).tolist())
        found = near[owner == index].tolist()
        assert within <= set(found)
        assert len(found) == len(set(found)), "a cell was visited twice"


@pytest.mark.parametrize("periodic_z", [True, False])
def test_removal_in_any_order_keeps_table_counts_and_crowding_true(periodic_z: bool) -> None:
    rng = np.random.default_rng(5)
    grid, positions = filled_grid(rng, periodic_z)
    removed = rng.choice(len(positions), 250, replace=False)
    for chunk in np.array_split(removed, 17):
        grid.remove(chunk)
    kept = sorted(set(range(len(positions))) - set(removed.tolist()))
    assert stored(grid) == set(kept)
    assert (grid.molecule[removed] == -1).all()
    cells = np.arange(int(np.prod(grid.shape)))
    assert (grid.count[cells] == np.bincount(grid.cell_of[kept], minlength=len(cells))).all()
    for atom in kept:  # every stored atom can be found in its slot
        assert grid.table[grid.cell_of[atom], grid.slot_of[atom]] == atom
    # Crowding: atoms in the 27 cells around a point, counted by brute force.
    points = rng.uniform([0, 0, 0], grid.box, size=(40, 3))
    neighbours = grid.neighbour_cells(grid._cells(grid.wrap(points)))
    expected = [int(np.isin(grid.cell_of[kept], row).sum()) for row in neighbours]
    assert grid.crowding(points).tolist() == expected
    # Putting atoms back after removal reuses the freed slots without losing anyone.
    grid.insert(removed, positions[removed], 99)
    assert stored(grid) == set(range(len(positions)))


def test_units_placed_in_one_step_that_clash_are_found_and_the_later_molecule_yields() -> None:
    from polyforge_engine.build.growth import SystemGrower

    grower = object.__new__(SystemGrower)  # only the grid, the positions and the limit are involved
    grower.grid = CellGrid(np.array([20.0, 20.0, 20.0]), periodic_z=True, cell_side=2.03, capacity=9)
    grower.inter = 2.03
    # Molecule 0 placed earlier; then one step places a unit of molecules 1, 2 and 3 (rows 0-2):
    # molecule 2's unit sits 1.9 Å from molecule 1's (across the periodic boundary), molecule 3's far away.
    grower.grid.insert(np.array([0, 1]), np.array([[10.0, 10.0, 10.0], [11.0, 10.0, 10.0]]), 0)
    atoms = np.array([[2, 3], [4, 5], [6, 7]])
    xyz = np.array([[0.5, 5.0, 5.0], [0.5, 6.0, 5.0], [18.6, 5.0, 5.0], [18.6, 6.0, 5.0], [5.0, 15.0, 15.0], [5.0, 16.0, 15.0]])
    grower.grid.insert(atoms.ravel(), xyz, np.repeat([1, 2, 3], 2))
    grower.positions = np.concatenate([np.zeros((2, 3)), xyz])
    assert grower._clashing_newcomers(atoms).tolist() == [False, True, False]

"""The builder's cell list against brute force: the compiled candidate checks that read it, crowding
counts and removal in any order, periodic and with walls."""

from __future__ import annotations

import numpy as np
import pytest
from polyforge_engine.construct import _growth
from polyforge_engine.construct.cell_grid import CellGrid


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


def brute_force_acceptable(
    grid: CellGrid,
    positions: np.ndarray,
    molecule_of: np.ndarray,
    base: np.ndarray,
    candidates: np.ndarray,
    molecules: np.ndarray,
    checked: np.ndarray,
    ahead_from: int,
    close: set[tuple[int, int]],
    limits: tuple[float, float, float],
) -> np.ndarray:
    """Whether each candidate keeps its limits from every stored atom (no cells, every pair)."""
    inter, intra, ahead_room = limits
    periodic_z = bool(grid.periodic[2])
    result = np.ones(candidates.shape[:2], dtype=bool)
    for g, m in np.ndindex(*candidates.shape[:2]):
        for p, point in enumerate(candidates[g, m]):
            distance = np.linalg.norm(minimum_image(positions - point, grid.box, periodic_z), axis=1)
            same = molecule_of == molecules[g]
            local = np.arange(len(positions)) - base[molecule_of]
            bonded = np.array([same[a] and (min(checked[g, p], local[a]), max(checked[g, p], local[a])) in close for a in range(len(positions))])
            limit = np.where(same, intra, inter) + (ahead_room if p >= ahead_from else 0.0)
            if ((distance < limit) & ~bonded).any():
                result[g, m] = False
    return result


# Cells wide enough for the compiled check's local grid around each centre (periodic, and with walls),
# one where z is not (the minimum image pair by pair), and one so small the block of cells wraps.
@pytest.mark.parametrize(
    ("periodic_z", "box"),
    [(True, [20.0, 18.0, 16.0]), (False, [17.0, 14.5, 12.0]), (True, [17.0, 14.5, 12.0]), (True, [6.0, 6.5, 7.0])],
)
def test_candidate_checks_agree_with_every_pair(periodic_z: bool, box: list[float]) -> None:
    rng = np.random.default_rng(3)
    # Molecules of 40 atoms, a few atoms of each stored: one per 200 Å³ of the cell, in up to ten molecules.
    size = 40
    atoms = max(2, int(np.prod(box) / 200))
    molecules_stored = min(10, atoms)
    per_molecule = atoms // molecules_stored
    atoms = molecules_stored * per_molecule
    grid = CellGrid(np.array(box), periodic_z=periodic_z, cell_side=2.4, capacity=atoms)
    positions = rng.uniform([0, 0, 0], grid.box, size=(atoms, 3))
    molecule_of = np.repeat(np.arange(molecules_stored), per_molecule)
    # The stored atoms are each molecule's atoms just before 30, so some are within "three bonds" of the
    # points (a chain: atoms at most three apart in number) and some not.
    base = np.arange(molecules_stored, dtype=np.int64) * per_molecule - (30 - per_molecule)
    grid.insert(np.arange(atoms), positions, molecule_of.astype(np.int32))
    close = {(i, j) for i in range(size) for j in range(i + 1, size) if j - i <= 3}  # "within three bonds": a chain
    keys = np.array(sorted(i * size + j for i, j in close), dtype=np.int64)
    groups, options, points, ahead_from = 12, 20, 5, 4  # four unit atoms (local 30-33) and one look-ahead point (34)
    molecules = rng.integers(molecules_stored, size=groups)
    checked = np.tile(np.arange(30, 35), (groups, 1))
    centres = rng.uniform([-2, -2, 1], grid.box + np.array([2, 2, -1]), size=(groups, 3))
    candidates = centres[:, None, None, :] + rng.normal(scale=1.0, size=(groups, options, points, 3))
    limits = (2.0, 1.5, 0.8)
    reach = float(np.linalg.norm(candidates - centres[:, None, None, :], axis=3).max()) + limits[0] + limits[2]
    found = np.ones((groups, options), dtype=bool)
    found[0, :5] = False  # rejected before (walls): stays rejected
    _growth.acceptable(
        found,
        candidates,
        centres,
        reach,
        molecules,
        checked,
        ahead_from,
        limits[2],
        base,
        keys,
        size,
        limits[0],
        limits[1],
        grid.table,
        grid.positions,
        grid.molecule,
        tuple(grid.shape.tolist()),
        tuple(grid.box.tolist()),
        periodic_z,
    )
    expected = brute_force_acceptable(grid, positions, molecule_of, base, candidates, molecules, checked, ahead_from, close, limits)
    expected[0, :5] = False
    assert 0.1 < expected.mean() < 0.95  # both kinds of answer are tested
    assert found.tolist() == expected.tolist()


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
    # Crowding: atoms in the cells one step or less away along every axis from a point's cell
    # (periodic, or up to the walls), counted by brute force.
    points = rng.uniform([0, 0, 0], grid.box, size=(40, 3))
    atom_cells = np.floor(grid.wrap(positions[kept]) / grid.side).astype(int)
    for point, count in zip(points, grid.crowding(points).tolist(), strict=True):
        steps = atom_cells - np.floor(grid.wrap(point[None]) / grid.side).astype(int)
        steps[:, :2] = (steps[:, :2] + 1) % grid.shape[:2] - 1  # periodic in x and y
        if periodic_z:
            steps[:, 2] = (steps[:, 2] + 1) % grid.shape[2] - 1
        assert count == int((np.abs(steps) <= 1).all(axis=1).sum())
    # Putting atoms back after removal reuses the freed slots without losing anyone.
    grid.insert(removed, positions[removed], 99)
    assert stored(grid) == set(range(len(positions)))


def test_units_placed_in_one_step_that_clash_are_found_and_the_later_molecule_yields() -> None:
    from polyforge_engine.construct.growth import SystemGrower

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

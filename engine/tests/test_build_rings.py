"""Bonds through rings (construct/rings.py) on geometries laid out by hand: a bond through a benzene ring's
inside is found, through its centre or near a corner, also across a periodic boundary; a bond beside
the ring, above it or along its plane is not; and compression keeps linear chains' shapes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from conftest import ETHYLENE, homopolymer_job
from polyforge_engine.construct._contacts import pairs_between
from polyforge_engine.construct.assembly import AssembledPolymer
from polyforge_engine.construct.compress import compress
from polyforge_engine.construct.growth import Tolerances
from polyforge_engine.construct.rings import piercings
from polyforge_engine.construct.structure import build_structure
from polyforge_engine.job import parse_build_job
from rdkit import Chem


@dataclass(frozen=True)
class Kind:
    mol: Chem.Mol
    bonds: np.ndarray


def kind(smiles: str) -> AssembledPolymer:
    mol = Chem.MolFromSmiles(smiles)
    bonds = np.array([(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()], dtype=np.int64)
    return cast(AssembledPolymer, Kind(mol, bonds))


BENZENE, ETHANE = kind("c1ccccc1"), kind("CC")
MIDDLE = np.array([10.0, 10.0, 10.0])
HEXAGON = np.array([[1.39 * np.cos(a), 1.39 * np.sin(a), 0.0] for a in np.arange(6) * np.pi / 3])  # in the xy plane


def pierced(bond: np.ndarray, centre: np.ndarray = MIDDLE, box: float = 20.0, walls: bool = False) -> int:
    """Bonds through rings for a benzene ring (its carbons) at `centre` and an ethane C-C bond at `bond` (2, 3)."""
    positions = np.concatenate([HEXAGON + centre, bond])
    return len(piercings(positions, [BENZENE, ETHANE], [0, 1], np.array([0, 6]), np.full(3, box), walls))


@pytest.mark.parametrize("walls", [False, True])
def test_a_bond_through_the_ring_is_found(walls: bool) -> None:
    assert pierced(MIDDLE + np.array([[0.0, 0.0, -0.77], [0.0, 0.0, 0.77]]), walls=walls) == 1  # through the centre
    assert pierced(MIDDLE + np.array([[1.0, 0.3, -0.7], [0.9, -0.2, 0.8]]), walls=walls) == 1  # tilted, near a corner
    assert pierced(MIDDLE + np.array([[2.2, 0.0, -0.77], [2.2, 0.0, 0.77]]), walls=walls) == 0  # beside the ring
    assert pierced(MIDDLE + np.array([[-0.77, 0.0, 1.0], [0.77, 0.0, 1.0]]), walls=walls) == 0  # above it, along its plane
    assert pierced(MIDDLE + np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 2.54]]), walls=walls) == 0  # above it, pointing at it


def test_a_bond_through_a_ring_across_the_cell_boundary_is_found() -> None:
    """The ring at the cell's edge, the bond through it on the far side (nearest image)."""
    corner = np.array([0.2, 10.0, 10.0])
    assert pierced(np.array([[19.9, 10.0, 9.23], [19.9, 10.0, 10.77]]), centre=corner) == 1
    assert pierced(np.array([[17.0, 10.0, 9.23], [17.0, 10.0, 10.77]]), centre=corner) == 0


def test_compression_keeps_linear_chains_shapes(tmp_path: Path) -> None:
    """Moved whole with the cell, chains that do not meet keep their size (the minimiser only turns a
    few torsions towards staggered); scaled, they shrink with the cell."""
    result = build_structure(parse_build_job(homopolymer_job(ETHYLENE, 12, 2, density=0.02, seed=3)), tmp_path)
    offsets = np.asarray(result.molecule_offsets)
    squeezed = {}
    for rigid in (True, False):
        squeezed[rigid] = compress(
            result.positions,
            result.kinds,
            result.molecule_kinds,
            offsets,
            result.box,
            result.box * 0.8,
            False,
            Tolerances(),
            lambda fraction: None,
            lambda positions: True,
            rigid_molecules=rigid,
        )
    size = result.kinds[0].atom_count
    for molecule in range(2):
        atoms = slice(int(offsets[molecule]), int(offsets[molecule]) + size)
        before = np.linalg.norm(result.positions[atoms, None] - result.positions[None, atoms], axis=2)
        kept = np.linalg.norm(squeezed[True][atoms, None] - squeezed[True][None, atoms], axis=2)
        scaled = np.linalg.norm(squeezed[False][atoms, None] - squeezed[False][None, atoms], axis=2)
        far = before > 6.0
        assert np.median(kept[far] / before[far]) == pytest.approx(1.0, abs=0.03)
        assert np.median(scaled[far] / before[far]) < 0.95  # 0.91 (bonds and angles restored, not the coil)


@pytest.mark.parametrize("periodic_z", [True, False])
def test_points_near_one_another_are_paired_as_a_sum_over_every_pair_pairs_them(periodic_z: bool) -> None:
    """The compiled search behind the check (pairs_between) against every pair at the minimum image."""
    rng = np.random.default_rng(4)
    box = np.array([12.0, 13.0, 14.0])
    first, second = rng.uniform(0, 1, (40, 3)) * box, rng.uniform(-1, 2, (300, 3)) * box  # raw: some boxes away
    found = np.frombuffer(pairs_between(first, second, tuple(box), periodic_z, 2.5), dtype=np.int64).reshape(-1, 2)
    delta = second[None, :, :] - first[:, None, :]
    periodic = np.array([True, True, periodic_z])
    delta = np.where(periodic, delta - np.round(delta / box) * box, delta)
    expected = {(int(i), int(j)) for i, j in zip(*np.nonzero(np.linalg.norm(delta, axis=2) < 2.5), strict=True)}
    assert {(int(i), int(j)) for i, j in found} == expected
    assert len(found) == len(expected) > 10

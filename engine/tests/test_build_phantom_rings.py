"""Melts of chains with rings built the Auhl way (structure.py, compress.py): chains placed phantom with
excluded volume only within a window along themselves, then their overlaps pushed off with every ring
shrunk, so no bond ends up through a ring and the chains keep their placed size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import STYRENE, homopolymer_job
from polyforge_engine.construct import compress as compression
from polyforge_engine.construct import structure
from polyforge_engine.construct.compress import _system_ring_groups
from polyforge_engine.construct.growth import SystemGrower, Tolerances
from polyforge_engine.construct.rings import piercings, ring_groups
from polyforge_engine.job import parse_build_job
from rdkit import Chem

NAPHTHYL_ETHYLENE = "[*:1]CC([*:2])c1ccc2ccccc2c1"
PHENYLENE_OXIDE = "[*:1]Oc1ccc(cc1)[*:2]"  # rings in the backbone (poly(p-phenylene oxide))
SHRINK, GROWTH = compression.RING_SHRINK, compression.RING_GROWTH  # before any test sets others


def test_ring_groups_join_fused_rings_and_take_their_hydrogens() -> None:
    styrene = Chem.AddHs(Chem.MolFromSmiles("CCc1ccccc1"))
    naphthalene = Chem.AddHs(Chem.MolFromSmiles("c1ccc2ccccc2c1"))
    [(ring, group)] = ring_groups(styrene)
    assert len(ring) == 6 and len(group) == 11  # six carbons and five hydrogens
    assert all(styrene.GetAtomWithIdx(int(a)).GetIsAromatic() for a in ring)
    [(ring, group)] = ring_groups(naphthalene)
    assert len(ring) == 10 and len(group) == 18
    assert ring_groups(Chem.AddHs(Chem.MolFromSmiles("CCCC"))) == []


def _phantom_melt(units: int, copies: int, seed: int, window: int | None, density: float = 1.04):
    """Chains of polystyrene placed phantom in their melt cell: (kinds, molecule kinds, offsets, positions, box)."""
    job = parse_build_job(homopolymer_job(STYRENE, units, copies, density=density, seed=seed))
    rng = np.random.default_rng(seed)
    templates, kinds, kind_index = structure._assemble_kinds(job, rng, lambda stage, percent: None)
    order = structure._molecule_order(job, kind_index, rng)
    box, total = structure._checked_cell(job, kinds, order, Tolerances())
    grower = SystemGrower(kinds, templates, box, False, rng, Tolerances(), total, starts=structure.STARTS, phantom=True, window=window)
    positions = grower.grow(order, lambda fraction: None)
    return kinds, order, np.array(grower.molecule_offsets, dtype=np.int64), positions, box


def _close_pairs_by_units_apart(kind, xyz: np.ndarray, box: np.ndarray, limit: float) -> np.ndarray:
    """How many units apart (along the chain) every pair of one chain's atoms closer than `limit` is, pairs
    within three bonds left out; minimum image, so a chain's periodic images count."""
    d = xyz[:, None] - xyz[None, :]
    d -= np.round(d / box) * box
    close = np.linalg.norm(d, axis=2) < limit
    first, second = np.nonzero(np.triu(close, 1))
    keys = first * kind.atom_count + second
    kept = ~np.isin(keys, kind.close_pairs)
    units = np.asarray(kind.residue_of_atom)
    return np.abs(units[first[kept]] - units[second[kept]])


def test_a_window_lets_a_chain_pass_through_itself_only_beyond_it() -> None:
    """Within the window every pair keeps the intramolecular limit; beyond it the chain is ideal and
    crosses itself (and its images) somewhere, which it never does without a window."""
    limit = Tolerances().intra + Tolerances().margin
    for window, expect_far in ((2, True), (None, False)):
        kinds, _, offsets, positions, box = _phantom_melt(40, 2, seed=4, window=window)
        apart = np.concatenate([_close_pairs_by_units_apart(kinds[0], positions[start : start + kinds[0].atom_count], box, limit - 1e-6) for start in offsets])
        assert (apart > 2).any() == expect_far, (window, np.bincount(apart))
        assert not (apart <= 2).any(), np.bincount(apart)


def test_shrinking_ring_groups_keeps_their_centres() -> None:
    kinds, order, offsets, positions, _ = _phantom_melt(10, 2, seed=1, window=4, density=0.3)
    rings = _system_ring_groups([ring_groups(kind.mol) for kind in kinds], order, offsets)
    assert rings is not None and rings.groups == 20
    shrunk = rings.scaled(positions, 0.25)
    centre = positions[rings.centre_atoms[rings.centre_of == 3]].mean(axis=0)
    members = rings.members[rings.member_of == 3]
    assert shrunk[rings.centre_atoms[rings.centre_of == 3]].mean(axis=0) == pytest.approx(centre)
    assert np.linalg.norm(shrunk[members] - centre, axis=1) == pytest.approx(0.25 * np.linalg.norm(positions[members] - centre, axis=1))
    others = np.setdiff1d(np.arange(len(positions)), rings.members)
    assert np.array_equal(shrunk[others], positions[others])


def _pushed_off(placed, shrink: float, growth: tuple[float, ...], monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    kinds, order, offsets, positions, box = placed
    monkeypatch.setattr(compression, "RING_SHRINK", shrink)
    monkeypatch.setattr(compression, "RING_GROWTH", growth)
    return compression.compress(positions, kinds, order, offsets, box, box, False, Tolerances(), lambda f: None, lambda p: True, push_off=True)


def _internal_r2(kind, positions: np.ndarray, offsets: np.ndarray, m: int) -> float:
    """Mean square distance between atoms m apart along the backbones (the path between the chain ends)."""
    path = np.array(Chem.GetShortestPath(kind.mol, *kind.end_atoms))
    return float(np.mean([((positions[start + path[m:]] - positions[start + path[:-m]]) ** 2).sum(axis=1).mean() for start in offsets]))


def test_the_push_off_leaves_no_bond_through_a_ring_and_keeps_the_chains(monkeypatch: pytest.MonkeyPatch) -> None:
    """Phantom polystyrene is threaded through its phenyls everywhere; pushed off with its rings full
    size it stays threaded, with them shrunk and grown back it comes out with none, and its chains keep
    their placed dimensions (internal distances within a few %) on every scale."""
    placed = _phantom_melt(30, 4, seed=2, window=structure.PHANTOM_WINDOW)
    kinds, order, offsets, positions, box = placed
    assert len(piercings(positions, kinds, order, offsets, box, False)) > 20
    full_size = _pushed_off(placed, 1.0, (), monkeypatch)
    assert len(piercings(full_size, kinds, order, offsets, box, False)) > 0
    shrunk = _pushed_off(placed, SHRINK, GROWTH, monkeypatch)
    assert piercings(shrunk, kinds, order, offsets, box, False) == []
    for m in (2, 8, 20, 40):
        before, after = _internal_r2(kinds[0], positions, offsets, m), _internal_r2(kinds[0], shrunk, offsets, m)
        assert after == pytest.approx(before, rel=0.05), m


def test_dense_polystyrene_is_placed_phantom_in_its_own_cell(tmp_path: Path) -> None:
    """A polystyrene melt is built in its own cell at the full limits (not grown larger and compressed),
    keeps every limit and has no bond through a ring; so does one with fused rings, and one whose
    backbone runs through its rings (whose chain statistics once failed: RDKit cannot turn a ring bond)."""
    for unit, seed in ((STYRENE, 1), (STYRENE, 3), (NAPHTHYL_ETHYLENE, 1), (PHENYLENE_OXIDE, 1)):
        result = structure.build_structure(parse_build_job(homopolymer_job(unit, 30, 4, density=1.04, seed=seed)), tmp_path / f"{seed}{len(unit)}")
        report = result.report
        assert report["grown_in_cell"] == report["box"], unit
        assert report["grown_with_limits"] == [report["tolerances"]["inter"], report["tolerances"]["intra"]]
        assert report["min_intermolecular_distance"] >= 2.0 and report["min_intramolecular_nonbonded_distance"] >= 1.5
        assert piercings(result.positions, result.kinds, result.molecule_kinds, result.molecule_offsets, result.box, False) == []

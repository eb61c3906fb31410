"""Properties measured on every result, each against a calculation made here another way: RDKit's
dihedrals and chirality, the gyration tensor, brute-force internal distances, a planar zigzag's
exact C(m), a straight-line density drift."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from polyforge_engine.simulate.properties import (
    ChainKind,
    c_infinity,
    c_infinity_error,
    density_summary,
    dihedrals_deg,
    internal_distances,
    measure_kind,
    radius_of_gyration,
    sub_chain_sums,
    unwrap_molecule,
)
from polyforge_engine.simulate.references import reference_for_units
from rdkit import Chem
from rdkit.Chem import AllChem, rdMolTransforms

STYRENE = "C[C@@H](c1ccccc1)"
STYRENE_MIRROR = "C[C@H](c1ccccc1)"


def _styrene_oligomer(repeats: list[str], seed: int = 11) -> tuple[Chem.Mol, tuple[int, int]]:
    """CH3–(CH2–CH(Ph))n–CH3 with the given stereo of each unit, embedded; the backbone ends are
    the two methyl carbons."""
    smiles = "C" + "".join(repeats) + "C"
    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    params = AllChem.ETKDGv3()
    params.randomSeed = seed
    assert AllChem.EmbedMolecule(mol, params) == 0
    heavy = [atom.GetIdx() for atom in mol.GetAtoms() if atom.GetAtomicNum() > 1]
    return mol, (0, heavy[-1])


def _positions(mol: Chem.Mol) -> np.ndarray:
    return np.array(mol.GetConformer().GetPositions())


def test_meso_fraction_of_isotactic_syndiotactic_and_mixed_chains() -> None:
    cases = {
        "isotactic": ([STYRENE] * 8, 1.0),
        "syndiotactic": ([STYRENE, STYRENE_MIRROR] * 4, 0.0),
        # meso, racemo, racemo, meso, meso, racemo, meso: 4 of 7 dyads
        "mixed": ([STYRENE, STYRENE, STYRENE_MIRROR, STYRENE, STYRENE, STYRENE, STYRENE_MIRROR, STYRENE_MIRROR], 4 / 7),
    }
    for name, (repeats, expected) in cases.items():
        mol, ends = _styrene_oligomer(repeats)
        measured = measure_kind(ChainKind(name, mol, ends, None), [_positions(mol)], None)
        assert measured["meso_fraction"] == {"value": pytest.approx(expected), "dyads": 7}, name


def test_backbone_torsions_agree_with_rdkit() -> None:
    mol, ends = _styrene_oligomer([STYRENE, STYRENE_MIRROR] * 3, seed=5)
    path = list(Chem.GetShortestPath(mol, *ends))
    conformer = mol.GetConformer()
    expected = [rdMolTransforms.GetDihedralDeg(conformer, *path[k : k + 4]) for k in range(len(path) - 3)]
    assert dihedrals_deg(_positions(mol)[path]) == pytest.approx(expected, abs=1e-6)
    states = ["t" if abs(a) >= 120 else ("g+" if a >= 0 else "g-") for a in expected]
    measured = measure_kind(ChainKind("PS", mol, ends, None), [_positions(mol)], None)["torsions"]
    assert measured["all"]["count"] == len(states)
    assert measured["all"]["trans"] == pytest.approx(states.count("t") / len(states))
    assert measured["all"]["gauche_plus"] == pytest.approx(states.count("g+") / len(states))
    pairs = sum(1 for a, b in itertools.pairwise(states) if {a, b} == {"g+", "g-"})
    assert measured["consecutive_gauche_plus_minus"] == pytest.approx(pairs / (len(states) - 1))


def test_radius_of_gyration_is_the_trace_of_the_gyration_tensor() -> None:
    rng = np.random.default_rng(3)
    points = rng.normal(size=(40, 3)) * [3.0, 1.0, 0.5]
    masses = rng.uniform(1, 16, size=40)
    centred = points - np.average(points, axis=0, weights=masses)
    tensor = np.einsum("i,ij,ik->jk", masses, centred, centred) / masses.sum()
    assert radius_of_gyration(points, masses) == pytest.approx(math.sqrt(np.linalg.eigvalsh(tensor).sum()))


def test_internal_distances_match_a_brute_force_sum_and_a_zigzag() -> None:
    rng = np.random.default_rng(8)
    chains = [rng.normal(size=(12, 3)) for _ in range(3)]
    _m, ratios, mean_square = internal_distances(sub_chain_sums(chains))
    squares = np.mean([np.sum(bond**2) for chain in chains for bond in chain])
    for k in (1, 4, 12):
        brute = np.mean([np.sum(np.sum(chain[i : i + k], axis=0) ** 2) for chain in chains for i in range(len(chain) - k + 1)])
        assert ratios[k - 1] == pytest.approx(brute / (k * squares))
    assert mean_square == pytest.approx(squares)

    # A planar all-trans zigzag of bonds l at valence angle τ: R(m) = m l sin(τ/2) for even m.
    tau, bond = math.radians(112.0), 1.54
    steps = np.array([[bond * math.sin(tau / 2), (-1) ** k * bond * math.cos(tau / 2), 0.0] for k in range(20)])
    _m, ratios, _ = internal_distances(sub_chain_sums([steps]))
    for k in (2, 6, 10, 20):
        assert ratios[k - 1] == pytest.approx(k * math.sin(tau / 2) ** 2)


def _freely_rotating_chain(rng: np.random.Generator, bonds: int, supplement: float) -> np.ndarray:
    """Unit bond vectors, each at the angle `supplement` (rad) to the previous, at a random azimuth."""
    steps = np.empty((bonds, 3))
    steps[0] = (1.0, 0.0, 0.0)
    for k in range(1, bonds):
        previous = steps[k - 1]
        u = np.cross(previous, (0.0, 0.0, 1.0) if abs(previous[2]) < 0.9 else (1.0, 0.0, 0.0))
        u /= np.linalg.norm(u)
        v = np.cross(previous, u)
        phi = rng.uniform(0, 2 * math.pi)
        steps[k] = math.cos(supplement) * previous + math.sin(supplement) * (math.cos(phi) * u + math.sin(phi) * v)
    return steps


def test_c_infinity_error_matches_the_spread_of_independent_estimates() -> None:
    """The jackknife error of one set of chains is the scatter of C∞ over independent sets."""
    rng = np.random.default_rng(5)
    sets = [[_freely_rotating_chain(rng, 120, math.radians(68.0)) for _ in range(8)] for _ in range(60)]
    estimates = [c_infinity(*internal_distances(sub_chain_sums(chains))[:2]) for chains in sets]
    errors = [c_infinity_error(sub_chain_sums(chains)) for chains in sets]
    spread = float(np.std(np.array(estimates, dtype=float), ddof=1))
    assert float(np.mean(np.array(errors, dtype=float))) == pytest.approx(spread, rel=0.3)
    assert c_infinity_error(sub_chain_sums(sets[0][:2])) is None
    assert c_infinity_error(sub_chain_sums([chain[:30] for chain in sets[0]])) is None


def test_c_infinity_of_a_freely_rotating_chain() -> None:
    """C(m) of a freely rotating chain (bond angle supplement θ, g = cos θ) is known exactly:
    (1+g)/(1−g) − 2g(1−g^m)/(m(1−g)²); the fit recovers C∞ = (1+g)/(1−g)."""
    g = math.cos(math.radians(68.0))
    m = np.arange(1, 201)
    exact = (1 + g) / (1 - g) - 2 * g * (1 - g**m) / (m * (1 - g) ** 2)
    assert c_infinity(m, exact) == pytest.approx((1 + g) / (1 - g), rel=1e-3)


def test_molecules_across_the_cell_are_made_whole() -> None:
    rng = np.random.default_rng(2)
    steps = rng.normal(size=(30, 3))
    steps *= 1.5 / np.linalg.norm(steps, axis=1)[:, None]
    chain = np.cumsum(steps, axis=0) + 9.0
    box = np.array([12.0, 12.0, 12.0])
    wrapped = chain % box
    bonds = np.array([(i, i + 1) for i in range(29)])
    whole = unwrap_molecule(wrapped, bonds, box)
    assert whole - whole[0] == pytest.approx(chain - chain[0])


def test_density_mean_and_drift_of_the_last_part(tmp_path: Path) -> None:
    time = np.linspace(0, 30, 31)  # ps
    density = 0.8 + 0.002 * time  # g/cm³, rising 2 per ns
    stage = np.where(time < 20, 1, 2)
    rows = "\n".join(f"{t},0,0,0,300,{d},3,3,3,{s}" for t, d, s in zip(time, density, stage, strict=True))
    csv = tmp_path / "energies.csv"
    csv.write_text("header\n" + rows + "\n")
    summary = density_summary(csv, None)
    assert summary is not None
    last = density[stage == 2]
    assert summary["mean"] == pytest.approx(last.mean())
    assert summary["drift_per_ns"] == pytest.approx(2.0)
    assert summary["drift_over_part"] == pytest.approx(last[-1] - last[0])
    assert density_summary(None, 0.9) == {"mean": 0.9, "from": "cell"}


def test_a_fixed_cell_reports_its_density_without_spread_or_drift(tmp_path: Path) -> None:
    """NVT or NVE: the density column is constant, so a ± 0.000 and a drift of -0.000 would say nothing."""
    time = np.linspace(0, 30, 31)
    rows = "\n".join(f"{t},0,0,0,300,1.0564,3,3,3,1" for t in time)
    csv = tmp_path / "energies.csv"
    csv.write_text("header\n" + rows + "\n")
    summary = density_summary(csv, None)
    assert summary is not None
    assert summary["mean"] == pytest.approx(1.0564)
    assert summary["from"] == "fixed cell"
    assert "std" not in summary and "drift_per_ns" not in summary


def test_known_polymers_are_recognised_by_their_unit() -> None:
    assert reference_for_units({"[*:1]CC([*:2])c1ccccc1"}).name == "atactic polystyrene"
    assert reference_for_units({"[*:2][C@@H](c1ccccc1)C[*:1]"}).name == "atactic polystyrene"
    assert reference_for_units({"[*:1]OCC[*:2]"}).name == "poly(ethylene oxide)"
    assert reference_for_units({"[*:1]CC([*:2])(C)C(=O)OC"}).name == "atactic poly(methyl methacrylate)"
    assert reference_for_units({"[*:1]C[*:2]"}).name == "polyethylene"
    assert reference_for_units({"[*:1]CC[*:2]", "[*:1]CCO[*:2]"}) is None  # a copolymer
    assert reference_for_units({"[*:1]CC(C)[*:2]"}) is None  # polypropylene: no reference kept

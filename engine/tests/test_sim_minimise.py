"""Minimisation: the steps asked are the steps run, overlaps cannot blow it up, and dense
polystyrene and PMMA cells the builder accepts minimise and start dynamics whatever the seed.

The bigger sweep (10 × PS-60 at 0.8 g/cm³, the cell of the report, over many seeds) is a benchmark:
bench/engine/minimise_sweep.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openmm
import pytest
from dense_cells import dense_cells
from openmm import app, unit
from polyforge_engine.parametrise.assemble import ParametrisedSystem, parametrise_system
from polyforge_engine.runtime.openmm_cpu import cpu_properties
from polyforge_engine.simulate.md import create_system
from polyforge_engine.simulate.minimise import SWITCH_FORCE_KJ_MOL_NM, minimise
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.simulate.run import run_protocol
from polymer_samples import PE_UNIT, melt


def _no_progress(*_: object, **__: object) -> None:
    pass


@pytest.fixture(scope="module")
def pe_melt(tmp_path_factory: pytest.TempPathFactory) -> ParametrisedSystem:
    return parametrise_system(melt(PE_UNIT, 10, "PE", 8, 3.0), "gaff2", tmp_path_factory.mktemp("pe"), _no_progress)


def _minimise(prmtop: Path, positions_nm: np.ndarray, box_nm: np.ndarray, steps: int):
    topology = app.AmberPrmtopFile(str(prmtop))
    system = create_system(topology, tuple(box_nm), False)
    constraints = system.getNumConstraints()
    forces = system.getNumForces()
    result = minimise(
        system,
        positions_nm,
        system.getDefaultPeriodicBoxVectors(),
        steps,
        openmm.Platform.getPlatformByName("CPU"),
        cpu_properties(),
        _no_progress,
    )
    # The system is given back as it came: constraints restored, the springs taken out.
    assert (system.getNumConstraints(), system.getNumForces()) == (constraints, forces)
    return system, result


def _energy(system: openmm.System, positions_nm: np.ndarray) -> float:
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"))
    context.setPositions(positions_nm)
    context.applyConstraints(1e-5)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def test_minimisation_runs_the_number_of_steps_asked(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    report, files = run_protocol(pe_melt.files.amber_prmtop, pe_melt.files.amber_inpcrd, Protocol(7, 0, 300.0, "NVT", 1), tmp_path, _no_progress)
    minimised = report.minimisation
    assert minimised is not None
    # OpenMM's own minimiser asked for 7 iterations ran up to 7 per round of tightened restraints.
    assert (minimised["steps_asked"], minimised["steps_run"], minimised["converged"]) == (7, 7, False)
    assert minimised["steps_run"] == minimised["capped_descent_steps"] + minimised["lbfgs_steps"]
    assert "minimisation: 7 of 7 steps asked" in files.log.read_text()
    assert report.potential_energy_after_minimization_kj_mol < report.potential_energy_before_minimization_kj_mol


def test_converged_minimisation_stops_early_and_says_so(pe_melt: ParametrisedSystem) -> None:
    coordinates = app.AmberInpcrdFile(str(pe_melt.files.amber_inpcrd))
    positions = np.asarray(coordinates.getPositions(asNumpy=True).value_in_unit(unit.nanometer))
    box = np.asarray(pe_melt.structure.box[:3]) / 10
    # Chains on a grid, far apart: L-BFGS brings the forces below the tolerance in a few dozen steps.
    _, result = _minimise(pe_melt.files.amber_prmtop, positions, box, 3000)
    assert result.converged and 0 < result.lbfgs_steps == result.steps_run < 3000
    assert "converged" in result.describe()


def test_overlapping_atoms_cannot_blow_the_minimisation_up(pe_melt: ParametrisedSystem) -> None:
    """Atoms of different chains put 0.1-0.3 Å apart (forces of 10^8-10^12 kJ/mol/nm): capped descent
    moves no coordinate by more than its step, so the minimisation ends finite, the overlaps gone."""
    coordinates = app.AmberInpcrdFile(str(pe_melt.files.amber_inpcrd))
    positions = np.asarray(coordinates.getPositions(asNumpy=True).value_in_unit(unit.nanometer)).copy()
    box = np.asarray(pe_melt.structure.box[:3]) / 10
    per_chain = len(positions) // 8
    rng = np.random.default_rng(3)
    moved = []
    for chain in range(4):
        mover, target = chain * per_chain + 5, (chain + 4) * per_chain + 7
        direction = rng.normal(size=3)
        positions[mover] = positions[target] + (0.01 + 0.01 * chain) * direction / np.linalg.norm(direction)
        moved.append((mover, target))
    system, result = _minimise(pe_melt.files.amber_prmtop, positions, box, 150)
    assert result.largest_force_before_kj_mol_nm > 1e8
    assert result.capped_descent_steps > 0 and result.steps_run == 150
    assert np.isfinite(result.positions_nm).all()
    energy = _energy(system, result.positions_nm)
    assert np.isfinite(energy) and energy < result.energy_before_kj_mol
    for mover, target in moved:
        delta = result.positions_nm[mover] - result.positions_nm[target]
        delta -= box * np.round(delta / box)
        assert np.linalg.norm(delta) > 0.2  # nm: pushed apart to a van der Waals contact


def test_dense_polystyrene_and_pmma_cells_minimise_and_start_dynamics_for_every_seed() -> None:
    for name, seed, files, positions, box in dense_cells():
        system, result = _minimise(files.amber_prmtop, positions, box, 100)
        # Far from converged in 100 steps: every step asked is run, and no more.
        assert (result.steps_run, result.converged) == (100, False), (name, seed)
        assert not result.lbfgs_failed, (name, seed)
        assert result.largest_force_before_kj_mol_nm > SWITCH_FORCE_KJ_MOL_NM, (name, seed)  # as built: strained
        energy = _energy(system, result.positions_nm)
        assert np.isfinite(energy) and energy < result.energy_before_kj_mol, (name, seed)
        # 200 steps of dynamics at 300 K from the minimised cell stay finite.
        integrator = openmm.LangevinMiddleIntegrator(300, 5, 0.002)
        integrator.setRandomNumberSeed(seed)
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CPU"), cpu_properties())
        context.setPositions(result.positions_nm)
        context.applyConstraints(1e-5)
        context.setVelocitiesToTemperature(300, seed)
        integrator.step(200)
        state = context.getState(getEnergy=True)
        assert np.isfinite(state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)), (name, seed)

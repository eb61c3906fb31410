"""OpenMM on an Amber topology: the system of the protocol, the simulation its dynamics run in, the
minimisation of the input structure and the dynamics themselves, with what they record. run.py
decides what runs where; this module is the OpenMM half of it (gromacs.py the mdrun half).

PME with a 1.0 nm cutoff (no cutoff for an isolated molecule), bonds to hydrogen constrained,
NVE with a Verlet integrator, NVT with a Langevin middle integrator, NPT with the same integrator
and a Monte Carlo barostat, seeded. The melt equilibration preset runs the 21-stage
compression/decompression schedule (equilibration.py): its stages are the dynamics. With z walls
the box gets a vacuum gap above the cell and a harmonic wall pushes atoms back into 0 < z < C.
Energies, density and box go to a CSV, frames to a DCD trajectory, structures to PDB; every step of
the way checks for cancellation so SIGTERM stops a run within seconds."""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np
import openmm
from openmm import app, unit
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from polyforge_engine.events import EngineError
from polyforge_engine.residues import CHAIN_IDS
from polyforge_engine.runtime.cancellation import raise_if_cancelled
from polyforge_engine.simulate.minimise import MinimisationResult, minimise
from polyforge_engine.simulate.protocol import (
    AMU_PER_A3_TO_G_PER_CM3,
    CELL_TOO_SMALL,
    CUTOFF_NM,
    FRICTION_PER_PS,
    PROGRESS_EVERY_S,
    SIMULATION_UNSTABLE,
    STEPS_BETWEEN_CANCEL_CHECKS,
    TIMESTEP_FS,
    VACUUM_GAP_NM,
    PercentProgress,
    Progress,
    Protocol,
    SimulationFiles,
    Stage,
    barostat_interval,
    check_cell,
    dynamics_log_line,
    openmm_seed,
    recording_interval,
    time_left,
)
from polyforge_engine.simulate.trajectory import DcdWriter

WALL_FORCE_CONSTANT = 10_000.0  # kJ/mol/nm², steep enough to act as a hard wall at 300 K
_MOLAR_GAS_CONSTANT = 0.00831446261815324  # kJ/(mol K)


def read_amber(prmtop: Path, inpcrd: Path) -> tuple[app.AmberPrmtopFile, app.AmberInpcrdFile]:
    """The topology read with one chain per molecule: a prmtop has none, and the PDB files written
    from it (minimized.pdb, final.pdb) must say which atoms form one molecule."""
    topology_file = app.AmberPrmtopFile(str(prmtop))
    topology_file.topology = chain_per_molecule(topology_file.topology)
    return topology_file, app.AmberInpcrdFile(str(inpcrd))


def chain_per_molecule(topology: app.Topology) -> app.Topology:
    """The same atoms, residues and bonds in the same order, a new chain wherever a residue is not
    bonded to the molecule before it (the copies of a system are contiguous)."""
    bonds = np.array([(a.index, b.index) for a, b in topology.bonds()], dtype=np.int64).reshape(-1, 2)
    count = topology.getNumAtoms()
    graph = coo_matrix((np.ones(len(bonds)), (bonds[:, 0], bonds[:, 1])), shape=(count, count))
    _, molecule_of_atom = connected_components(graph, directed=False)
    chained = app.Topology()
    chained.setPeriodicBoxVectors(topology.getPeriodicBoxVectors())
    atoms: list[app.topology.Atom] = []
    chain, molecule = None, -1
    for residue in topology.residues():
        first = next(iter(residue.atoms())).index
        if chain is None or molecule_of_atom[first] != molecule:
            molecule = molecule_of_atom[first]
            chain = chained.addChain(CHAIN_IDS[chained.getNumChains() % len(CHAIN_IDS)])
        added = chained.addResidue(residue.name, chain, residue.id, residue.insertionCode)
        atoms += [chained.addAtom(atom.name, atom.element, added, atom.id) for atom in residue.atoms()]
    for bond in topology.bonds():
        chained.addBond(atoms[bond[0].index], atoms[bond[1].index], bond.type, bond.order)
    return chained


def create_system(topology_file: app.AmberPrmtopFile, box_nm: tuple[float, float, float] | None, walls: bool) -> openmm.System:
    """The OpenMM system of our protocol; with walls the box is taller by the vacuum gap and a
    wall force keeps every atom between z = 0 and the cell's C."""
    if box_nm is None:
        return topology_file.createSystem(nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
    check_cell(box_nm, walls)
    a, b, c = box_nm
    height = c + VACUUM_GAP_NM if walls else c
    topology_file.topology.setPeriodicBoxVectors([openmm.Vec3(a, 0, 0), openmm.Vec3(0, b, 0), openmm.Vec3(0, 0, height)] * unit.nanometer)
    system = topology_file.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=CUTOFF_NM * unit.nanometer, constraints=app.HBonds)
    system.setDefaultPeriodicBoxVectors(openmm.Vec3(a, 0, 0), openmm.Vec3(0, b, 0), openmm.Vec3(0, 0, height))
    if walls:
        wall = openmm.CustomExternalForce("k_wall * (step(-z) * z^2 + step(z - z_top) * (z - z_top)^2)")
        wall.addGlobalParameter("k_wall", WALL_FORCE_CONSTANT)
        wall.addGlobalParameter("z_top", c)
        for index in range(system.getNumParticles()):
            wall.addParticle(index, [])
        system.addForce(wall)
    return system


def _integrator(protocol: Protocol) -> openmm.Integrator:
    step = TIMESTEP_FS * unit.femtoseconds
    if protocol.ensemble != "NVE" or protocol.equilibration != "none":
        integrator = openmm.LangevinMiddleIntegrator(protocol.temperature_k * unit.kelvin, FRICTION_PER_PS / unit.picosecond, step)
        integrator.setRandomNumberSeed(openmm_seed(protocol.seed))
        return integrator
    return openmm.VerletIntegrator(step)


def box_nm_of(coordinates: app.AmberInpcrdFile) -> tuple[float, float, float] | None:
    if coordinates.boxVectors is None:
        return None
    vectors = coordinates.boxVectors.value_in_unit(unit.nanometer)
    return (vectors[0][0], vectors[1][1], vectors[2][2])


def positions_a(simulation: app.Simulation) -> np.ndarray:
    state = simulation.context.getState(getPositions=True)
    return np.asarray(state.getPositions(asNumpy=True).value_in_unit(unit.angstrom))


def _box_sides_nm(state: openmm.State) -> tuple[float, float, float]:
    vectors = state.getPeriodicBoxVectors().value_in_unit(unit.nanometer)
    return (vectors[0][0], vectors[1][1], vectors[2][2])


def cell_a(simulation: app.Simulation, box_nm: tuple[float, float, float] | None, walls: bool) -> np.ndarray | None:
    """The cell (Å) at the end: the barostat's box, or the fixed cell without the walls' gap."""
    if box_nm is None:
        return None
    if walls:
        return np.array(box_nm) * 10
    return np.array(_box_sides_nm(simulation.context.getState())) * 10


def potential_kj_mol(simulation: app.Simulation) -> float:
    state = simulation.context.getState(getEnergy=True)
    return state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def check_finite(value: float, when: str) -> None:
    if not math.isfinite(value):
        raise EngineError(
            SIMULATION_UNSTABLE,
            f"The energy is not a finite number {when}: atoms overlap or the structure is broken; check the structure or lower the density.",
        )


def _degrees_of_freedom(system: openmm.System) -> int:
    moving = sum(1 for index in range(system.getNumParticles()) if system.getParticleMass(index).value_in_unit(unit.dalton) > 0)
    removes_com = any(isinstance(system.getForce(index), openmm.CMMotionRemover) for index in range(system.getNumForces()))
    return 3 * moving - system.getNumConstraints() - (3 if removes_com else 0)


def minimise_input(
    system: openmm.System,
    coordinates: app.AmberInpcrdFile,
    box_nm: tuple[float, float, float] | None,
    protocol: Protocol,
    platform: openmm.Platform,
    properties: dict[str, str],
    progress: Progress,
) -> MinimisationResult | None:
    """Minimises the input coordinates when the protocol asks for steps (None otherwise).

    On a copy of the system without constraints and before the barostat is added (minimise.py).
    """
    if protocol.minimization_steps <= 0:
        return None
    progress("minimisation", 0)
    return minimise(
        system,
        np.asarray(coordinates.getPositions(asNumpy=True).value_in_unit(unit.nanometer)),
        system.getDefaultPeriodicBoxVectors() if box_nm is not None else None,
        protocol.minimization_steps,
        platform,
        properties,
        lambda percent: progress("minimisation", min(99.0, percent)),
    )


def new_simulation(
    topology_file: app.AmberPrmtopFile,
    system: openmm.System,
    coordinates: app.AmberInpcrdFile,
    box_nm: tuple[float, float, float] | None,
    protocol: Protocol,
    stages: list[Stage],
    platform: openmm.Platform,
    properties: dict[str, str],
    minimisation: MinimisationResult | None,
) -> app.Simulation:
    """The simulation for the dynamics: a barostat added for NPT stages, the cell set, and the
    minimised positions (constraints applied) or else the input ones."""
    if any(stage.ensemble == "NPT" for stage in stages):
        barostat = openmm.MonteCarloBarostat(protocol.pressure_bar * unit.bar, protocol.temperature_k * unit.kelvin, 0)
        barostat.setRandomNumberSeed(openmm_seed(protocol.seed))  # unset, OpenMM draws one per context: NPT would not repeat
        system.addForce(barostat)
    integrator = _integrator(protocol)
    simulation = app.Simulation(topology_file.topology, system, integrator, platform, properties)
    if box_nm is not None:
        simulation.context.setPeriodicBoxVectors(*system.getDefaultPeriodicBoxVectors())
    if minimisation is None:
        simulation.context.setPositions(coordinates.positions)
    else:
        start_from(simulation, minimisation)
    return simulation


def start_from(simulation: app.Simulation, minimisation: MinimisationResult) -> None:
    """The minimised positions in the context, the constraints applied."""
    simulation.context.setPositions(minimisation.positions_nm)
    simulation.context.applyConstraints(simulation.integrator.getConstraintTolerance())


def minimise_without_barostat(
    system: openmm.System,
    start_nm: np.ndarray,
    box_nm: tuple[float, float, float],
    protocol: Protocol,
    openmm_platform: tuple[openmm.Platform, dict[str, str]],
    progress: PercentProgress,
) -> MinimisationResult:
    """OpenMM's minimisation of `system` as minimise_input does it, the NPT barostat (already added
    for the dynamics) taken out meanwhile: it would move the cell."""
    barostats = [index for index, force in enumerate(system.getForces()) if isinstance(force, openmm.MonteCarloBarostat)]
    removed = [copy.deepcopy(system.getForce(index)) for index in barostats]
    for index in reversed(barostats):
        system.removeForce(index)
    try:
        platform, properties = openmm_platform
        vectors = system.getDefaultPeriodicBoxVectors()
        return minimise(system, start_nm, vectors, protocol.minimization_steps, platform, properties, progress)
    finally:
        for force in removed:
            system.addForce(force)


def run_dynamics(
    simulation: app.Simulation,
    system: openmm.System,
    protocol: Protocol,
    stages: list[Stage],
    box_nm: tuple[float, float, float] | None,
    files: SimulationFiles,
    log: TextIO,
    progress: Progress,
) -> list[float]:
    simulation.context.setVelocitiesToTemperature(protocol.temperature_k * unit.kelvin, openmm_seed(protocol.seed))
    # Drawn velocities have components along constrained bonds; remove them before step 0 is
    # recorded, or the first kinetic energy is too high and NVE looks like it leaks energy.
    simulation.context.applyVelocityConstraints(1e-6)
    dof = _degrees_of_freedom(system)
    cell = _CellReader(total_mass_amu(system), box_nm, protocol.potential_wall_z)
    total_steps = sum(stage.steps for stage in stages)
    interval = recording_interval(total_steps)
    barostat = next((force for force in system.getForces() if isinstance(force, openmm.MonteCarloBarostat)), None)
    temperatures: list[float] = []
    log.write(dynamics_log_line(protocol, barostat is not None))
    with files.energies_csv.open("w") as energies, files.trajectory_dcd.open("wb") as trajectory:
        dcd = DcdWriter(trajectory, system.getNumParticles(), TIMESTEP_FS / 1000, interval, box_nm is not None)
        energies.write(
            "time_ps,potential_energy_kj_mol,kinetic_energy_kj_mol,total_energy_kj_mol,temperature_k,density_g_cm3,box_a_nm,box_b_nm,box_c_nm,stage\n"
        )
        temperatures.append(_record(simulation, 0, dof, cell, 1, energies, None))
        done = 0
        last_progress = time.monotonic()
        started = last_progress
        for number, stage in enumerate(stages, start=1):
            _enter_stage(simulation, stage, barostat, barostat_interval(protocol))
            if len(stages) > 1:
                log.write(f"stage {number}/{len(stages)}: {stage.describe()}, {stage.steps} steps\n")
            stage_end = done + stage.steps
            while done < stage_end:
                # Chunks stop at every multiple of the interval, so records fall on them whatever
                # the stages' lengths.
                chunk = min(STEPS_BETWEEN_CANCEL_CHECKS, stage_end - done, interval - done % interval)
                _step(simulation, chunk, done)
                done += chunk
                raise_if_cancelled()
                recorded = done % interval == 0 or done == stage_end
                if recorded:
                    temperatures.append(_record(simulation, done, dof, cell, number, energies, dcd))
                if recorded or time.monotonic() - last_progress >= PROGRESS_EVERY_S:
                    elapsed = time.monotonic() - started
                    progress(_stage_label(stages, number), 100 * done / total_steps, time_left(done, total_steps, elapsed))
                    last_progress = time.monotonic()
    log.write(f"dynamics finished after {total_steps} steps\n")
    return temperatures


def _stage_label(stages: list[Stage], number: int) -> str:
    """The progress stage: 'dynamics' for one stage, else 'equilibration stage 3 of 21: NPT …'."""
    if len(stages) == 1:
        return "dynamics"
    return f"equilibration stage {number} of {len(stages)}: {stages[number - 1].describe()}"


def _enter_stage(simulation: app.Simulation, stage: Stage, barostat: openmm.MonteCarloBarostat | None, interval: int) -> None:
    integrator = simulation.integrator
    if isinstance(integrator, openmm.LangevinMiddleIntegrator):
        integrator.setTemperature(stage.temperature_k * unit.kelvin)
    if barostat is None:
        return
    frequency = interval if stage.ensemble == "NPT" else 0  # 0 switches the barostat off
    if barostat.getFrequency() != frequency:
        barostat.setFrequency(frequency)
        simulation.context.reinitialize(preserveState=True)
    if stage.pressure_bar is not None:
        simulation.context.setParameter(openmm.MonteCarloBarostat.Pressure(), stage.pressure_bar)
    simulation.context.setParameter(openmm.MonteCarloBarostat.Temperature(), stage.temperature_k)


def _step(simulation: app.Simulation, steps: int, done: int) -> None:
    try:
        simulation.step(steps)
    except openmm.OpenMMException as exc:
        # The barostat shrank the box below twice the cutoff, or the integration blew up.
        if "box size has decreased" in str(exc):
            raise EngineError(
                CELL_TOO_SMALL,
                f"At step {done} the barostat shrank the cell below twice the 10 Å cutoff; build a larger system for NPT.",
            ) from exc
        raise EngineError(
            SIMULATION_UNSTABLE,
            f"The simulation became unstable near step {done} ({exc}); add minimisation steps or lower the density.",
        ) from exc


class _CellReader:
    """Density (g/cm³) and box sides (nm) of the cell the chemist asked for: the barostat's box,
    or with walls the fixed cell without the vacuum gap."""

    def __init__(self, total_mass: float, box_nm: tuple[float, float, float] | None, walls: bool):
        self._mass = total_mass
        self._fixed = box_nm if walls else None
        self._periodic = box_nm is not None

    def read(self, state: openmm.State) -> tuple[float, tuple[float, float, float] | None]:
        if not self._periodic:
            return float("nan"), None
        sides = self._fixed or _box_sides_nm(state)
        volume_a3 = sides[0] * sides[1] * sides[2] * 1000
        return self._mass * AMU_PER_A3_TO_G_PER_CM3 / volume_a3, sides


def _record(simulation: app.Simulation, step: int, dof: int, cell: _CellReader, stage: int, energies: TextIO, dcd: DcdWriter | None) -> float:
    state = simulation.context.getState(getEnergy=True, getPositions=dcd is not None)
    potential = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    kinetic = state.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole)
    if not (math.isfinite(potential) and math.isfinite(kinetic)):
        raise EngineError(
            SIMULATION_UNSTABLE,
            f"The simulation became unstable at step {step} (energy is not a number); add minimisation steps or lower the density.",
        )
    temperature = 2 * kinetic / (dof * _MOLAR_GAS_CONSTANT)
    time_ps = step * TIMESTEP_FS / 1000
    density, sides = cell.read(state)
    a, b, c = sides if sides is not None else (float("nan"),) * 3
    energies.write(f"{time_ps:.4f},{potential:.4f},{kinetic:.4f},{potential + kinetic:.4f},{temperature:.3f},{density:.5f},{a:.5f},{b:.5f},{c:.5f},{stage}\n")
    if dcd is not None:
        dcd.write(state.getPositions(asNumpy=True).value_in_unit(unit.nanometer), _box_sides_nm(state))
    return temperature


def write_pdb(simulation: app.Simulation, path: Path) -> None:
    state = simulation.context.getState(getPositions=True)
    if simulation.topology.getPeriodicBoxVectors() is not None:
        simulation.topology.setPeriodicBoxVectors(state.getPeriodicBoxVectors())  # NPT moves the box
    with path.open("w") as handle:
        app.PDBFile.writeFile(simulation.topology, state.getPositions(), handle, keepIds=True)


def total_mass_amu(system: openmm.System) -> float:
    return sum(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))


def positions_nm(simulation: app.Simulation) -> np.ndarray:
    state = simulation.context.getState(getPositions=True)
    return np.asarray(state.getPositions(asNumpy=True).value_in_unit(unit.nanometer))


def take_state(simulation: app.Simulation, positions: np.ndarray, velocities: np.ndarray, box_nm: tuple[float, float, float]) -> None:
    """The context set to positions (nm), velocities (nm/ps) and a rectangular box another program
    ended with."""
    a, b, c = box_nm
    simulation.context.setPeriodicBoxVectors(openmm.Vec3(a, 0, 0), openmm.Vec3(0, b, 0), openmm.Vec3(0, 0, c))
    simulation.context.setPositions(positions)
    simulation.context.setVelocities(velocities)


def velocities_a_ps(simulation: app.Simulation) -> np.ndarray:
    state = simulation.context.getState(getVelocities=True)
    return np.asarray(state.getVelocities(asNumpy=True).value_in_unit(unit.angstrom / unit.picosecond))


def cpu_threads(simulation: app.Simulation, platform: openmm.Platform) -> str | None:
    """The threads OpenMM's CPU platform runs this simulation on (None on another platform)."""
    return platform.getPropertyValue(simulation.context, "Threads") if platform.getName() == "CPU" else None


def steps_then_restore(simulation: app.Simulation, temperature_k: float, seed: int, steps: int, check: Callable[[], None]) -> None:
    """`steps` steps of the simulation's dynamics from velocities drawn at `temperature_k`, `check()`
    between chunks (it may raise to stop them), then back to the state before them (positions,
    velocities, box, time, step count): the engine probe's run. The integrator's random stream goes
    on from where the probe left it."""
    before = simulation.context.getState(getPositions=True, getVelocities=True, getParameters=True)
    step_count = simulation.currentStep
    try:
        simulation.context.setVelocitiesToTemperature(temperature_k * unit.kelvin, seed)
        simulation.context.applyVelocityConstraints(1e-6)
        done = 0
        while done < steps:
            chunk = min(STEPS_BETWEEN_CANCEL_CHECKS, steps - done)
            _step(simulation, chunk, done)
            done += chunk
            raise_if_cancelled()
            check()
    finally:
        simulation.context.setState(before)
        simulation.currentStep = step_count

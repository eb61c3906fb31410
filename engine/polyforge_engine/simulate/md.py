"""Minimisation and molecular dynamics with OpenMM on an Amber topology.

PME with a 1.0 nm cutoff (no cutoff for an isolated molecule), bonds to hydrogen constrained,
NVE with a Verlet integrator, NVT with a Langevin middle integrator, NPT with the same integrator
and a Monte Carlo barostat, seeded. The melt equilibration preset runs the 21-stage
compression/decompression schedule (equilibration.py): its stages are the
dynamics. With z walls the box gets a vacuum gap above the cell and a harmonic wall pushes atoms
back into 0 < z < C. Energies, density and box go to a CSV, frames to a DCD trajectory,
structures to PDB; every step of the way checks for cancellation so SIGTERM stops a run within
seconds."""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

import numpy as np
import openmm
from openmm import app, unit

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.cancellation import raise_if_cancelled
from polyforge_engine.runtime.md_engine import MdEngineChoice, choose_md_engine, gromacs_refusal, minimises_on_gromacs
from polyforge_engine.runtime.openmm_cpu import engine_threads
from polyforge_engine.runtime.openmm_platform import choose_platform
from polyforge_engine.simulate.equilibration import Equilibration, Stage, dynamics_stages
from polyforge_engine.simulate.minimise import SIMULATION_UNSTABLE, MinimisationResult, minimise
from polyforge_engine.simulate.trajectory import DcdWriter

if TYPE_CHECKING:
    from polyforge_engine.simulate.gromacs import GromacsDynamics, GromacsInputs

CELL_TOO_SMALL = "CELL_TOO_SMALL"

CUTOFF_NM = 1.0
TIMESTEP_FS = 2.0
FRICTION_PER_PS = 5.0  # 1/ps; short runs start cold from a minimised structure and must reach T within ~0.2 ps
WALL_FORCE_CONSTANT = 10_000.0  # kJ/mol/nm², steep enough to act as a hard wall at 300 K
VACUUM_GAP_NM = 2.0 * CUTOFF_NM  # atoms across the gap stay beyond the cutoff of each other
STEPS_BETWEEN_CANCEL_CHECKS = 10
TARGET_FRAMES = 100
# Every recorded frame evaluates the energy once more (about one step's work): frames every 10 steps
# cost 10-16 % of the dynamics, every 50 steps 2-3 % (issue 27). A multiple of the chunk above.
MIN_RECORD_INTERVAL = 50
# Progress goes out at least this often (wall time) during dynamics, between recorded frames too: a
# long run recorded 100 frames and so said nothing for minutes at a time (issue 23).
PROGRESS_EVERY_S = 3.0
BAROSTAT_INTERVAL = 25  # steps between Monte Carlo volume moves (OpenMM's default)
# The melt equilibration's compression stages are a few percent of the steps each: volume moves
# every 5 steps let the box follow 50 kbar within them (each move changes the volume by ~1 %).
EQUILIBRATION_BAROSTAT_INTERVAL = 5
_MOLAR_GAS_CONSTANT = 0.00831446261815324  # kJ/(mol K)
_AMU_PER_A3_TO_G_PER_CM3 = 1.66053906660

Ensemble = Literal["NVE", "NVT", "NPT"]
# (stage, percent[, fields]): dynamics add a third argument, {simulated_ns, total_ns, remaining_s} (time_left).
ProgressCallback = Callable[..., None]


@dataclass(frozen=True)
class Protocol:
    minimization_steps: int  # 0: no minimisation
    dynamics_steps: int  # 0: no dynamics
    temperature_k: float
    ensemble: Ensemble
    seed: int  # the seed actually used (already drawn if the job said -1)
    potential_wall_z: bool = False
    pressure_bar: float = 1.0  # NPT and the equilibration's last stage
    equilibration: Equilibration = "none"


@dataclass(frozen=True)
class SimulationFiles:
    energies_csv: Path
    trajectory_dcd: Path
    minimized_pdb: Path
    final_pdb: Path
    log: Path


@dataclass(frozen=True)
class SimulationReport:
    potential_energy_before_minimization_kj_mol: float
    potential_energy_after_minimization_kj_mol: float | None
    final_temperature_k: float | None
    mean_temperature_second_half_k: float | None
    final_potential_energy_kj_mol: float
    steps_run: int
    timestep_fs: float
    platform: str
    platform_note: str | None  # why not the GPU platform asked for (POLYFORGE_OPENMM_PLATFORM)
    written: list[Path]
    stages: list[Stage]
    # Å, for the start files of other programs and the measured properties; molecules as integrated
    # (not wrapped into the box)
    minimized_positions: np.ndarray | None
    final_positions: np.ndarray
    final_box: np.ndarray | None  # Å, the cell at the end (NPT changes it)
    minimisation: dict[str, object] | None = None  # steps run by each stage (minimise.py)
    performance: dict[str, object] | None = None  # engine, platform, threads, seconds per stage, ns/day


def run_protocol(
    prmtop: Path,
    inpcrd: Path,
    protocol: Protocol,
    workdir: Path,
    progress: ProgressCallback,
    gromacs_top: Path | None = None,
) -> tuple[SimulationReport, SimulationFiles]:
    """Minimise then run dynamics as the protocol says; write outputs in `workdir`. The dynamics run on
    OpenMM or, with `gromacs_top` (system.top, system.gro beside it), on GROMACS where
    runtime/md_engine.py chooses it; the minimisation then too where POLYFORGE_MINIMISE_ENGINE=gromacs."""
    files = _files_in(workdir)
    topology_file = app.AmberPrmtopFile(str(prmtop))
    coordinates = app.AmberInpcrdFile(str(inpcrd))
    box_nm = _box_nm(coordinates)
    stages = dynamics_stages(protocol) if protocol.dynamics_steps > 0 else []
    check_pressure_coupling(stages, box_nm, protocol.potential_wall_z)
    system = create_system(topology_file, box_nm, protocol.potential_wall_z)
    engine = _md_engine(protocol, stages, box_nm, gromacs_top)
    choice = choose_platform()
    platform = choice.platform()
    gromacs = _gromacs_inputs(engine, box_nm, gromacs_top)
    simulation, minimisation, minimisation_note, minimisation_s = _minimise(
        (topology_file, system, coordinates, box_nm), protocol, stages, gromacs, (platform, choice.properties), workdir, progress
    )
    written: list[Path] = []
    with files.log.open("w") as log:
        log.write(f"OpenMM {openmm.version.version} on {platform.getName()}; {system.getNumParticles()} atoms\n")
        if minimisation_note is not None:
            log.write(f"{minimisation_note}\n")
        if choice.note:
            log.write(f"platform: {choice.note}\n")
        log.write(f"nonbonded: {'PME, cutoff 1.0 nm' if box_nm is not None else 'no cutoff (isolated molecule)'}; constraints: HBonds\n")
        before = minimisation.energy_before_kj_mol if minimisation is not None else _potential(simulation)
        _check_finite(before, "before minimisation")
        log.write(f"potential energy before minimisation: {before:.3f} kJ/mol\n")
        after, minimized_positions = _record_minimised(simulation, minimisation, files, log, written, progress)
        threads = platform.getPropertyValue(simulation.context, "Threads") if platform.getName() == "CPU" else None
        if threads is not None:
            log.write(f"CPU threads: {threads}\n")
        if engine.note:
            log.write(f"dynamics engine: {engine.note}\n")
        started = time.monotonic()
        temperatures, ran = _run_dynamics(simulation, system, protocol, stages, box_nm, engine, gromacs, (files, log), written, progress)
        dynamics_s = time.monotonic() - started
        performance = _run_performance(minimisation_s, dynamics_s, protocol.dynamics_steps, platform.getName(), threads, ran, engine, minimisation)
        log.write(f"time: minimisation {minimisation_s:.1f} s, dynamics {dynamics_s:.1f} s")
        log.write(f", {performance['ns_per_day']} ns/day\n" if performance["ns_per_day"] is not None else "\n")
        _write_pdb(simulation, files.final_pdb)
        written += [files.final_pdb, files.log]
        final_box = _cell_a(simulation, box_nm, protocol.potential_wall_z)
        final_potential = _potential(simulation)
        log.write(f"final potential energy: {final_potential:.3f} kJ/mol\n")
    second_half = temperatures[len(temperatures) // 2 :]
    report = SimulationReport(
        potential_energy_before_minimization_kj_mol=before,
        potential_energy_after_minimization_kj_mol=after,
        final_temperature_k=temperatures[-1] if temperatures else None,
        mean_temperature_second_half_k=sum(second_half) / len(second_half) if second_half else None,
        final_potential_energy_kj_mol=final_potential,
        steps_run=protocol.dynamics_steps,
        timestep_fs=TIMESTEP_FS,
        platform=platform.getName(),
        platform_note=choice.note,
        written=written,
        stages=stages,
        minimized_positions=minimized_positions,
        final_positions=_positions_a(simulation),
        final_box=final_box,
        minimisation=minimisation.as_report() if minimisation is not None else None,
        performance=performance,
    )
    return report, files


def _minimise(
    model: tuple[app.AmberPrmtopFile, openmm.System, app.AmberInpcrdFile, tuple[float, float, float] | None],
    protocol: Protocol,
    stages: list[Stage],
    gromacs: GromacsInputs | None,
    platform_choice: tuple[openmm.Platform, dict[str, str]],
    workdir: Path,
    progress: ProgressCallback,
) -> tuple[app.Simulation, MinimisationResult | None, str | None, float]:
    """The minimisation on mdrun where POLYFORGE_MINIMISE_ENGINE asks it (and the dynamics are there), else
    on OpenMM. Returns the simulation that starts from the minimised positions, the result, a note for the
    log and the seconds it took."""
    topology_file, system, coordinates, box_nm = model
    platform, properties = platform_choice
    if gromacs is not None and box_nm is not None and protocol.minimization_steps > 0 and minimises_on_gromacs():
        # OpenMM's context gives the energy before and, once the minimised positions are in it, applies the constraints.
        simulation = _simulation(topology_file, system, coordinates, box_nm, protocol, stages, platform, properties, None)
        started = time.monotonic()
        on_gromacs, note = _minimise_on_gromacs(simulation, gromacs, protocol, (box_nm, workdir), (platform, properties), progress)
        seconds = time.monotonic() - started
        _start_from(simulation, on_gromacs)
        return simulation, on_gromacs, note, seconds
    started = time.monotonic()
    minimisation = _minimise_first(system, coordinates, box_nm, protocol, platform, properties, progress)
    seconds = time.monotonic() - started
    simulation = _simulation(topology_file, system, coordinates, box_nm, protocol, stages, platform, properties, minimisation)
    return simulation, minimisation, None, seconds


def _files_in(workdir: Path) -> SimulationFiles:
    """The simulation's output files, all in `workdir`."""
    return SimulationFiles(
        energies_csv=workdir / "energies.csv",
        trajectory_dcd=workdir / "trajectory.dcd",
        minimized_pdb=workdir / "minimized.pdb",
        final_pdb=workdir / "final.pdb",
        log=workdir / "simulation.log",
    )


def _minimise_first(
    system: openmm.System,
    coordinates: app.AmberInpcrdFile,
    box_nm: tuple[float, float, float] | None,
    protocol: Protocol,
    platform: openmm.Platform,
    properties: dict[str, str],
    progress: ProgressCallback,
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


def _simulation(
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
        _start_from(simulation, minimisation)
    return simulation


def _start_from(simulation: app.Simulation, minimisation: MinimisationResult) -> None:
    """The minimised positions in the context, the constraints applied."""
    simulation.context.setPositions(minimisation.positions_nm)
    simulation.context.applyConstraints(simulation.integrator.getConstraintTolerance())


def _gromacs_inputs(engine: MdEngineChoice, box_nm: tuple[float, float, float] | None, gromacs_top: Path | None) -> GromacsInputs | None:
    """mdrun's inputs when the dynamics run on GROMACS (a periodic cell and its topology), else None."""
    if engine.engine != "gromacs" or box_nm is None or gromacs_top is None:
        return None
    from polyforge_engine.simulate.gromacs import GromacsInputs  # it imports this module

    return GromacsInputs(engine.gmx or "gmx", gromacs_top, gromacs_top.with_suffix(".gro"), engine_threads())


def _minimise_on_gromacs(
    simulation: app.Simulation,
    inputs: GromacsInputs,
    protocol: Protocol,
    where: tuple[tuple[float, float, float], Path],
    openmm_platform: tuple[openmm.Platform, dict[str, str]],
    progress: ProgressCallback,
) -> tuple[MinimisationResult, str]:
    """The minimisation on mdrun from the input positions in the context (gromacs_minimise.py); the
    energy before is OpenMM's, as on the OpenMM path. Where mdrun cannot minimise the structure,
    OpenMM does (minimise.py). Also a line for the log: GROMACS's own energy of the result, or why
    OpenMM minimised."""
    from polyforge_engine.simulate.gromacs import gmx_version
    from polyforge_engine.simulate.gromacs_minimise import GromacsRefused, minimise_on_gromacs

    box_nm, workdir = where
    progress("minimisation", 0)
    state = simulation.context.getState(getEnergy=True, getPositions=True)
    before = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    _check_finite(before, "before minimisation")
    start_nm = np.asarray(state.getPositions(asNumpy=True).value_in_unit(unit.nanometer))

    def percent_done(percent: float) -> None:
        progress("minimisation", min(99.0, percent))

    try:
        result, energy = minimise_on_gromacs(inputs, protocol, start_nm, box_nm, before, workdir / "gromacs", percent_done, gmx_version(inputs.gmx))
    except GromacsRefused as refused:
        result = _minimise_without_barostat(simulation.system, start_nm, box_nm, protocol, openmm_platform, percent_done)
        return result, f"minimisation on OpenMM: mdrun could not ({refused})"
    energy_text = f"{energy:.3f} kJ/mol" if energy is not None else "not given"
    return result, f"GROMACS's potential energy of the minimised structure (bonds to H as bonds, not constrained): {energy_text}"


def _minimise_without_barostat(
    system: openmm.System,
    start_nm: np.ndarray,
    box_nm: tuple[float, float, float],
    protocol: Protocol,
    openmm_platform: tuple[openmm.Platform, dict[str, str]],
    progress: Callable[[float], None],
) -> MinimisationResult:
    """OpenMM's minimisation of `system` as _minimise_first does it, the NPT barostat (already added
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


def _record_minimised(
    simulation: app.Simulation,
    minimisation: MinimisationResult | None,
    files: SimulationFiles,
    log: TextIO,
    written: list[Path],
    progress: ProgressCallback,
) -> tuple[float | None, np.ndarray | None]:
    """Logs the minimised energy and writes minimized.pdb (appended to `written`).

    Returns:
        The potential energy after minimisation (kJ/mol) and the minimised positions (Å), or
        (None, None) when nothing was minimised.
    """
    if minimisation is None:
        return None, None
    after = _potential(simulation)
    _check_finite(after, "after minimisation")
    log.write(f"{minimisation.describe()}\n")
    log.write(f"potential energy after minimisation (constraints applied): {after:.3f} kJ/mol\n")
    _write_pdb(simulation, files.minimized_pdb)
    minimized_positions = _positions_a(simulation)
    written.append(files.minimized_pdb)
    progress("minimisation", 100)
    return after, minimized_positions


def _run_dynamics(
    simulation: app.Simulation,
    system: openmm.System,
    protocol: Protocol,
    stages: list[Stage],
    box_nm: tuple[float, float, float] | None,
    engine: MdEngineChoice,
    gromacs: GromacsInputs | None,
    where: tuple[SimulationFiles, TextIO],
    written: list[Path],
    progress: ProgressCallback,
) -> tuple[list[float], GromacsDynamics | None]:
    """Runs the protocol's dynamics, if any, on GROMACS where chosen (and possible) or else OpenMM;
    the energies and trajectory files are appended to `written`.

    Returns:
        The temperatures recorded (K) and GROMACS's run, or None when OpenMM ran them (or none ran).
    """
    files, log = where
    if protocol.dynamics_steps <= 0:
        return [], None
    ran: GromacsDynamics | None = None
    if gromacs is not None and box_nm is not None:
        ran = _gromacs(simulation, system, protocol, stages[0], box_nm, gromacs, (files, log), progress)
        temperatures = ran.temperatures
    else:
        temperatures = _dynamics(simulation, system, protocol, stages, box_nm, files, log, progress)
    written += [files.energies_csv, files.trajectory_dcd]
    return temperatures, ran


def _run_performance(
    minimisation_s: float,
    dynamics_s: float,
    steps: int,
    platform: str,
    threads: str | None,
    ran: GromacsDynamics | None,
    engine: MdEngineChoice,
    minimisation: MinimisationResult | None,
) -> dict[str, object]:
    """The run's performance record: OpenMM's, or mdrun's when GROMACS ran the dynamics (`ran`),
    with the MD engine setting and its note, and the minimisation's engine."""
    if ran is None:
        performance = _performance(minimisation_s, dynamics_s, steps, f"OpenMM {openmm.version.version}", platform, threads)
    else:
        performance = _performance(minimisation_s, dynamics_s, steps, ran.version, "CPU", str(engine_threads()))
        performance |= {"mdrun_ns_per_day": ran.mdrun_ns_per_day}
    if minimisation is not None:
        performance |= {"minimisation_engine": minimisation.engine}
    performance |= {"md_engine_setting": engine.requested} | ({"md_engine_note": engine.note} if engine.note else {})
    return performance


def _performance(minimisation_s: float, dynamics_s: float, steps: int, engine: str, platform: str, threads: str | None) -> dict[str, object]:
    """Where the simulation's time went and the dynamics' speed (ns of simulated time per day of wall
    time, recording included), for the report; `engine` and `platform` those of the dynamics."""
    simulated_ns = steps * TIMESTEP_FS / 1e6
    return {
        "engine": engine,
        "platform": platform,
        "threads": int(threads) if threads is not None else None,
        "minimisation_s": round(minimisation_s, 2),
        "dynamics_s": round(dynamics_s, 2),
        "ns_per_day": round(simulated_ns * 86_400 / dynamics_s, 3) if steps and dynamics_s > 0 else None,
    }


def _md_engine(protocol: Protocol, stages: list[Stage], box_nm: tuple[float, float, float] | None, gromacs_top: Path | None) -> MdEngineChoice:
    """OpenMM or GROMACS for the dynamics (runtime/md_engine.py); OpenMM without a GROMACS topology."""
    if not stages:
        return MdEngineChoice("openmm", None, "none", None)
    refusal = gromacs_refusal(box_nm is not None, protocol.potential_wall_z, len(stages) > 1)
    return choose_md_engine(refusal if gromacs_top is not None else refusal or "no GROMACS topology was written; the run stays on OpenMM")


def _gromacs(
    simulation: app.Simulation,
    system: openmm.System,
    protocol: Protocol,
    stage: Stage,
    box_nm: tuple[float, float, float],
    inputs: GromacsInputs,
    where: tuple[SimulationFiles, TextIO],
    progress: ProgressCallback,
) -> GromacsDynamics:
    """The dynamics on mdrun from the context's (minimised, constrained) positions; the context then
    holds mdrun's last positions and box, for the final structure and energy."""
    from polyforge_engine.simulate.gromacs import run_gromacs_dynamics  # it imports this module

    files, log = where
    log.write(
        f"dynamics: {protocol.ensemble}, {protocol.dynamics_steps} steps of {TIMESTEP_FS} fs at {protocol.temperature_k} K"
        + (f", {protocol.pressure_bar} bar" if stage.ensemble == "NPT" else "")
        + f", seed {protocol.seed}\n"
    )
    state = simulation.context.getState(getPositions=True)
    start_nm = np.asarray(state.getPositions(asNumpy=True).value_in_unit(unit.nanometer))
    total_mass = sum(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))
    ran = run_gromacs_dynamics(
        inputs,
        protocol,
        stage,
        start_nm,
        box_nm,
        total_mass,
        (files.energies_csv, files.trajectory_dcd, log),
        progress,
    )
    a, b, c = ran.final_box_nm
    simulation.context.setPeriodicBoxVectors(openmm.Vec3(a, 0, 0), openmm.Vec3(0, b, 0), openmm.Vec3(0, 0, c))
    simulation.context.setPositions(ran.final_positions_nm)
    log.write(f"dynamics finished after {stage.steps} steps" + (f"; mdrun: {ran.mdrun_ns_per_day} ns/day" if ran.mdrun_ns_per_day else "") + "\n")
    return ran


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


def check_cell(box_nm: tuple[float, float, float], walls: bool) -> None:
    """PME needs every box side to hold twice the cutoff (the vacuum gap counts with walls)."""
    a, b, c = box_nm
    height = c + VACUUM_GAP_NM if walls else c
    if min(a, b, height) < 2 * CUTOFF_NM:
        raise EngineError(
            CELL_TOO_SMALL,
            f"The cell ({a * 10:.1f} × {b * 10:.1f} × {c * 10:.1f} Å) is smaller than twice the 10 Å cutoff; enlarge the cell or lower the density.",
        )


def check_pressure_coupling(stages: list[Stage], box_nm: tuple[float, float, float] | None, walls: bool) -> None:
    """A barostat scales a periodic cell; walls (a vacuum gap it would squeeze) and isolated
    molecules have none to scale."""
    if not any(stage.ensemble == "NPT" for stage in stages):
        return
    if box_nm is None or walls:
        raise EngineError(
            "INVALID_INPUT",
            "NPT and the melt equilibration need a periodic cell without walls; turn the z walls off or choose NVT.",
        )


def openmm_seed(seed: int) -> int:
    """OpenMM treats seed 0 as 'pick one at random'; shift so every recorded seed reproduces."""
    return seed % 2_147_483_646 + 1


def gromacs_seed(seed: int) -> int:
    """GROMACS reads gen-seed as a 32-bit int (-1: pick one); a job may give any non-negative seed."""
    return seed % 2_147_483_647


def _integrator(protocol: Protocol) -> openmm.Integrator:
    step = TIMESTEP_FS * unit.femtoseconds
    if protocol.ensemble != "NVE" or protocol.equilibration != "none":
        integrator = openmm.LangevinMiddleIntegrator(protocol.temperature_k * unit.kelvin, FRICTION_PER_PS / unit.picosecond, step)
        integrator.setRandomNumberSeed(openmm_seed(protocol.seed))
        return integrator
    return openmm.VerletIntegrator(step)


def _box_nm(coordinates: app.AmberInpcrdFile) -> tuple[float, float, float] | None:
    if coordinates.boxVectors is None:
        return None
    vectors = coordinates.boxVectors.value_in_unit(unit.nanometer)
    return (vectors[0][0], vectors[1][1], vectors[2][2])


def _positions_a(simulation: app.Simulation) -> np.ndarray:
    state = simulation.context.getState(getPositions=True)
    return np.asarray(state.getPositions(asNumpy=True).value_in_unit(unit.angstrom))


def _box_sides_nm(state: openmm.State) -> tuple[float, float, float]:
    vectors = state.getPeriodicBoxVectors().value_in_unit(unit.nanometer)
    return (vectors[0][0], vectors[1][1], vectors[2][2])


def _cell_a(simulation: app.Simulation, box_nm: tuple[float, float, float] | None, walls: bool) -> np.ndarray | None:
    """The cell (Å) at the end: the barostat's box, or the fixed cell without the walls' gap."""
    if box_nm is None:
        return None
    if walls:
        return np.array(box_nm) * 10
    return np.array(_box_sides_nm(simulation.context.getState())) * 10


def _potential(simulation: app.Simulation) -> float:
    state = simulation.context.getState(getEnergy=True)
    return state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def _check_finite(value: float, when: str) -> None:
    if not math.isfinite(value):
        raise EngineError(
            SIMULATION_UNSTABLE,
            f"The energy is not a finite number {when}: atoms overlap or the structure is broken; check the structure or lower the density.",
        )


def _degrees_of_freedom(system: openmm.System) -> int:
    moving = sum(1 for index in range(system.getNumParticles()) if system.getParticleMass(index).value_in_unit(unit.dalton) > 0)
    removes_com = any(isinstance(system.getForce(index), openmm.CMMotionRemover) for index in range(system.getNumForces()))
    return 3 * moving - system.getNumConstraints() - (3 if removes_com else 0)


def _dynamics(
    simulation: app.Simulation,
    system: openmm.System,
    protocol: Protocol,
    stages: list[Stage],
    box_nm: tuple[float, float, float] | None,
    files: SimulationFiles,
    log: TextIO,
    progress: ProgressCallback,
) -> list[float]:
    simulation.context.setVelocitiesToTemperature(protocol.temperature_k * unit.kelvin, openmm_seed(protocol.seed))
    # Drawn velocities have components along constrained bonds; remove them before step 0 is
    # recorded, or the first kinetic energy is too high and NVE looks like it leaks energy.
    simulation.context.applyVelocityConstraints(1e-6)
    dof = _degrees_of_freedom(system)
    total_mass = sum(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))
    cell = _CellReader(total_mass, box_nm, protocol.potential_wall_z)
    total_steps = sum(stage.steps for stage in stages)
    interval = recording_interval(total_steps)
    barostat = next((force for force in system.getForces() if isinstance(force, openmm.MonteCarloBarostat)), None)
    temperatures: list[float] = []
    log.write(
        f"dynamics: {protocol.ensemble}, {protocol.dynamics_steps} steps of {TIMESTEP_FS} fs at {protocol.temperature_k} K"
        + (f", {protocol.pressure_bar} bar" if barostat is not None else "")
        + f", seed {protocol.seed}\n"
    )
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


def recording_interval(total_steps: int) -> int:
    """Steps between recorded frames: about TARGET_FRAMES in all, at least MIN_RECORD_INTERVAL
    apart (each costs an energy evaluation, about one step), on multiples of the cancellation chunk."""
    per_frame = math.ceil(total_steps / TARGET_FRAMES / STEPS_BETWEEN_CANCEL_CHECKS) * STEPS_BETWEEN_CANCEL_CHECKS
    return max(MIN_RECORD_INTERVAL, per_frame)


def time_left(done: int, total: int, elapsed_s: float) -> dict[str, float | None]:
    """What a dynamics progress line adds (issue 23): nanoseconds simulated and in all, and the wall
    time left at the speed so far (None until a second of dynamics has been timed)."""
    remaining = elapsed_s / done * (total - done) if done > 0 and elapsed_s >= 1.0 else None
    return {
        "simulated_ns": round(done * TIMESTEP_FS * 1e-6, 6),
        "total_ns": round(total * TIMESTEP_FS * 1e-6, 6),
        "remaining_s": round(remaining, 1) if remaining is not None else None,
    }


def _stage_label(stages: list[Stage], number: int) -> str:
    """The progress stage: 'dynamics' for one stage, else 'equilibration stage 3 of 21: NPT …'."""
    if len(stages) == 1:
        return "dynamics"
    return f"equilibration stage {number} of {len(stages)}: {stages[number - 1].describe()}"


def barostat_interval(protocol: Protocol) -> int:
    """Steps between Monte Carlo volume moves in the NPT stages of this protocol."""
    return EQUILIBRATION_BAROSTAT_INTERVAL if protocol.equilibration != "none" else BAROSTAT_INTERVAL


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
        return self._mass * _AMU_PER_A3_TO_G_PER_CM3 / volume_a3, sides


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


def _write_pdb(simulation: app.Simulation, path: Path) -> None:
    state = simulation.context.getState(getPositions=True)
    if simulation.topology.getPeriodicBoxVectors() is not None:
        simulation.topology.setPeriodicBoxVectors(state.getPeriodicBoxVectors())  # NPT moves the box
    with path.open("w") as handle:
        app.PDBFile.writeFile(simulation.topology, state.getPositions(), handle, keepIds=True)

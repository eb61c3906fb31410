"""A protocol's run: minimisation, then dynamics, then the final structure and the report. OpenMM
(md.py) holds the system throughout; the dynamics run on it or on GROMACS's mdrun (gromacs.py)
where runtime/md_engine.py chooses mdrun or, on `auto` and a run long enough to repay it, where the
engine probe (engine_probe.py) measured mdrun the faster on the minimised system; so does the minimisation (gromacs_minimise.py) where
POLYFORGE_MINIMISE_ENGINE=gromacs asks it. md.py, gromacs.py and gromacs_minimise.py never import
each other: this module hands the state from one to the other."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np
import openmm
from openmm import app

from polyforge_engine.runtime.allocation import CpuAllocation, job_cpus
from polyforge_engine.runtime.md_engine import MdEngineChoice, choose_md_engine, gromacs_refusal, minimises_on_gromacs
from polyforge_engine.runtime.openmm_platform import choose_platform
from polyforge_engine.simulate.engine_probe import Candidate, ProbeResult, probe_engines, worth_probing
from polyforge_engine.simulate.equilibration import dynamics_stages
from polyforge_engine.simulate.gromacs import GromacsDynamics, MdrunProbe, run_gromacs_dynamics
from polyforge_engine.simulate.gromacs_minimise import GromacsRefused, minimise_on_gromacs
from polyforge_engine.simulate.gromacs_run import GromacsInputs, gmx_version, mdrun_resources
from polyforge_engine.simulate.md import (
    box_nm_of,
    cell_a,
    check_finite,
    cpu_threads,
    create_system,
    minimise_input,
    minimise_without_barostat,
    new_simulation,
    positions_a,
    positions_nm,
    potential_kj_mol,
    read_amber,
    run_dynamics,
    start_from,
    steps_then_restore,
    take_state,
    total_mass_amu,
    velocities_a_ps,
    write_pdb,
)
from polyforge_engine.simulate.minimise import MinimisationResult
from polyforge_engine.simulate.protocol import (
    TIMESTEP_FS,
    Progress,
    Protocol,
    SimulationFiles,
    Stage,
    check_pressure_coupling,
    dynamics_log_line,
    openmm_seed,
)


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
    final_velocities: np.ndarray | None = None  # Å/ps at the end of the dynamics (None without dynamics)
    minimisation: dict[str, object] | None = None  # steps run by each stage (minimise.py)
    performance: dict[str, object] | None = None  # engine, platform, threads, seconds per stage, ns/day


def run_protocol(
    prmtop: Path,
    inpcrd: Path,
    protocol: Protocol,
    workdir: Path,
    progress: Progress,
    gromacs_top: Path | None = None,
) -> tuple[SimulationReport, SimulationFiles]:
    """Minimise then run dynamics as the protocol says; write outputs in `workdir`. The dynamics run on
    OpenMM or, with `gromacs_top` (system.top, system.gro beside it), on GROMACS where
    runtime/md_engine.py chooses it; the minimisation then too where POLYFORGE_MINIMISE_ENGINE=gromacs."""
    files = SimulationFiles.in_directory(workdir)
    topology_file, coordinates = read_amber(prmtop, inpcrd)
    box_nm = box_nm_of(coordinates)
    stages = dynamics_stages(protocol) if protocol.dynamics_steps > 0 else []
    check_pressure_coupling(stages, box_nm, protocol.potential_wall_z)
    system = create_system(topology_file, box_nm, protocol.potential_wall_z)
    engine = _md_engine(protocol, stages, box_nm, gromacs_top)
    choice = choose_platform()
    platform = choice.platform()
    gromacs = _gromacs_inputs(engine, box_nm, gromacs_top, protocol.bit_reproducible)
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
        before = minimisation.energy_before_kj_mol if minimisation is not None else potential_kj_mol(simulation)
        check_finite(before, "before minimisation")
        log.write(f"potential energy before minimisation: {before:.3f} kJ/mol\n")
        after, minimized_positions = _record_minimised(simulation, minimisation, files, log, written, progress)
        threads = cpu_threads(simulation, platform)
        if threads is not None:
            log.write(f"CPU threads: {threads}\n")
        if engine.note:
            log.write(f"dynamics engine: {engine.note}\n")
        engine, gromacs, probe = _probe_engines(simulation, protocol, stages, (box_nm, gromacs_top), (engine, gromacs), (platform.getName(), threads), workdir)
        log.write(f"{probe.describe()}\n" if isinstance(probe, ProbeResult) else f"engine probe: not run ({probe})\n" if probe else "")
        started = time.monotonic()
        temperatures, ran = _dynamics(simulation, system, protocol, stages, box_nm, engine, gromacs, (files, log), written, progress)
        dynamics_s = time.monotonic() - started
        performance = _run_performance(minimisation_s, dynamics_s, protocol.dynamics_steps, platform.getName(), threads, (ran, gromacs), engine, minimisation)
        performance |= _probe_record(probe)
        log.write(f"time: minimisation {minimisation_s:.1f} s, dynamics {dynamics_s:.1f} s")
        log.write(f", {performance['ns_per_day']} ns/day\n" if performance["ns_per_day"] is not None else "\n")
        write_pdb(simulation, files.final_pdb)
        written += [files.final_pdb, files.log]
        final_box = cell_a(simulation, box_nm, protocol.potential_wall_z)
        final_potential = potential_kj_mol(simulation)
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
        final_positions=positions_a(simulation),
        final_box=final_box,
        final_velocities=velocities_a_ps(simulation) if protocol.dynamics_steps > 0 else None,
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
    progress: Progress,
) -> tuple[app.Simulation, MinimisationResult | None, str | None, float]:
    """The minimisation on mdrun where POLYFORGE_MINIMISE_ENGINE asks it (and the dynamics are there), else
    on OpenMM. Returns the simulation that starts from the minimised positions, the result, a note for the
    log and the seconds it took."""
    topology_file, system, coordinates, box_nm = model
    platform, properties = platform_choice
    if gromacs is not None and box_nm is not None and protocol.minimization_steps > 0 and minimises_on_gromacs():
        # OpenMM's context gives the energy before and, once the minimised positions are in it, applies the constraints.
        simulation = new_simulation(topology_file, system, coordinates, box_nm, protocol, stages, platform, properties, None)
        started = time.monotonic()
        on_gromacs, note = _minimise_on_gromacs(simulation, gromacs, protocol, (box_nm, workdir), (platform, properties), progress)
        seconds = time.monotonic() - started
        start_from(simulation, on_gromacs)
        return simulation, on_gromacs, note, seconds
    started = time.monotonic()
    minimisation = minimise_input(system, coordinates, box_nm, protocol, platform, properties, progress)
    seconds = time.monotonic() - started
    simulation = new_simulation(topology_file, system, coordinates, box_nm, protocol, stages, platform, properties, minimisation)
    return simulation, minimisation, None, seconds


def _gromacs_inputs(engine: MdEngineChoice, box_nm: tuple[float, float, float] | None, gromacs_top: Path | None, reprod: bool) -> GromacsInputs | None:
    """mdrun's inputs when the dynamics run on GROMACS (a periodic cell and its topology), else None:
    the job's CPUs (runtime/allocation.py), `-reprod` where the protocol asks for it."""
    if engine.engine != "gromacs" or box_nm is None or gromacs_top is None:
        return None
    return GromacsInputs(engine.gmx or "gmx", gromacs_top, gromacs_top.with_suffix(".gro"), job_cpus(), reprod)


def _probe_engines(
    simulation: app.Simulation,
    protocol: Protocol,
    stages: list[Stage],
    cell: tuple[tuple[float, float, float] | None, Path | None],
    chosen: tuple[MdEngineChoice, GromacsInputs | None],
    openmm_run: tuple[str, str | None],
    workdir: Path,
) -> tuple[MdEngineChoice, GromacsInputs | None, ProbeResult | str | None]:
    """The engine for the dynamics: as chosen, or on `auto` the fastest of OpenMM and mdrun on the
    job's threads and on one, measured on the minimised system (engine_probe.py) where the run repays
    it. Also the probe's result, or why it did not run (None where there was no choice to make)."""
    box_nm, gromacs_top = cell
    engine, gromacs = chosen
    if engine.requested != "auto" or not stages or box_nm is None or gromacs_top is None:
        return engine, gromacs, None
    possible = choose_md_engine(gromacs_refusal(True, protocol.potential_wall_z, len(stages) > 1), "gromacs")
    if possible.engine != "gromacs":
        return engine, gromacs, None
    if protocol.bit_reproducible:
        return engine, gromacs, "bit-reproducible dynamics asked for: the engine does not follow the load"
    allocation = job_cpus()
    inputs = gromacs or GromacsInputs(possible.gmx or "gmx", gromacs_top, gromacs_top.with_suffix(".gro"), allocation)
    cpus = [allocation] + ([CpuAllocation(1, False, "one thread (engine probe)")] if allocation.threads > 1 else [])
    if not worth_probing(protocol.dynamics_steps, 1 + len(cpus)):
        return engine, gromacs, f"{protocol.dynamics_steps} steps do not repay a probe of {1 + len(cpus)} engines"
    scratch = workdir / "gromacs" / "probe"
    mdrun = MdrunProbe(inputs, protocol, stages[0], (positions_nm(simulation), box_nm), scratch)
    platform_name, openmm_threads = openmm_run
    openmm_candidate = Candidate(
        f"OpenMM {platform_name}" + (f", {openmm_threads} threads" if openmm_threads else ""),
        "openmm",
        int(openmm_threads) if openmm_threads else 0,
        lambda steps, check: steps_then_restore(simulation, protocol.temperature_k, openmm_seed(protocol.seed), steps, check),
    )
    mdrun_candidates = [Candidate(f"mdrun {' '.join(each.mdrun_args())}", "gromacs", each.threads, mdrun.runner(each), mdrun.prepare) for each in cpus]
    order = [*mdrun_candidates, openmm_candidate] if engine.engine == "gromacs" else [openmm_candidate, *mdrun_candidates]
    try:
        result = probe_engines(order)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if result.chosen.engine == "openmm":
        return MdEngineChoice("openmm", None, "auto", None), None, result
    allocation = next(each for each, candidate in zip(cpus, mdrun_candidates, strict=True) if candidate.name == result.chosen.name)
    return MdEngineChoice("gromacs", inputs.gmx, "auto", None), GromacsInputs(inputs.gmx, inputs.top, inputs.gro, allocation), result


def _probe_record(probe: ProbeResult | str | None) -> dict[str, object]:
    """The report's record of the engine probe: the rates and the choice, or why it did not run."""
    if probe is None:
        return {}
    return {"engine_probe": probe.as_report() if isinstance(probe, ProbeResult) else {"skipped": probe}}


def _minimise_on_gromacs(
    simulation: app.Simulation,
    inputs: GromacsInputs,
    protocol: Protocol,
    where: tuple[tuple[float, float, float], Path],
    openmm_platform: tuple[openmm.Platform, dict[str, str]],
    progress: Progress,
) -> tuple[MinimisationResult, str]:
    """The minimisation on mdrun from the input positions in the context (gromacs_minimise.py); the
    energy before is OpenMM's, as on the OpenMM path. Where mdrun cannot minimise the structure,
    OpenMM does (minimise.py). Also a line for the log: GROMACS's own energy of the result, or why
    OpenMM minimised."""
    box_nm, workdir = where
    progress("minimisation", 0)
    before = potential_kj_mol(simulation)
    check_finite(before, "before minimisation")
    start_nm = positions_nm(simulation)

    def percent_done(percent: float) -> None:
        progress("minimisation", min(99.0, percent))

    try:
        result, energy = minimise_on_gromacs(inputs, protocol, start_nm, box_nm, before, workdir / "gromacs", percent_done, gmx_version(inputs.gmx))
    except GromacsRefused as refused:
        result = minimise_without_barostat(simulation.system, start_nm, box_nm, protocol, openmm_platform, percent_done)
        return result, f"minimisation on OpenMM: mdrun could not ({refused})"
    energy_text = f"{energy:.3f} kJ/mol" if energy is not None else "not given"
    return result, f"GROMACS's potential energy of the minimised structure (bonds to H as bonds, not constrained): {energy_text}"


def _record_minimised(
    simulation: app.Simulation,
    minimisation: MinimisationResult | None,
    files: SimulationFiles,
    log: TextIO,
    written: list[Path],
    progress: Progress,
) -> tuple[float | None, np.ndarray | None]:
    """Logs the minimised energy and writes minimized.pdb (appended to `written`).

    Returns:
        The potential energy after minimisation (kJ/mol) and the minimised positions (Å), or
        (None, None) when nothing was minimised.
    """
    if minimisation is None:
        return None, None
    after = potential_kj_mol(simulation)
    check_finite(after, "after minimisation")
    log.write(f"{minimisation.describe()}\n")
    log.write(f"potential energy after minimisation (constraints applied): {after:.3f} kJ/mol\n")
    write_pdb(simulation, files.minimized_pdb)
    minimized_positions = positions_a(simulation)
    written.append(files.minimized_pdb)
    progress("minimisation", 100)
    return after, minimized_positions


def _dynamics(
    simulation: app.Simulation,
    system: openmm.System,
    protocol: Protocol,
    stages: list[Stage],
    box_nm: tuple[float, float, float] | None,
    engine: MdEngineChoice,
    gromacs: GromacsInputs | None,
    where: tuple[SimulationFiles, TextIO],
    written: list[Path],
    progress: Progress,
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
        ran = _dynamics_on_gromacs(simulation, system, protocol, stages[0], box_nm, gromacs, (files, log), progress)
        temperatures = ran.temperatures
    else:
        temperatures = run_dynamics(simulation, system, protocol, stages, box_nm, files, log, progress)
    written += [files.energies_csv, files.trajectory_dcd]
    return temperatures, ran


def _run_performance(
    minimisation_s: float,
    dynamics_s: float,
    steps: int,
    platform: str,
    threads: str | None,
    on_gromacs: tuple[GromacsDynamics | None, GromacsInputs | None],
    engine: MdEngineChoice,
    minimisation: MinimisationResult | None,
) -> dict[str, object]:
    """The run's performance record: OpenMM's, or mdrun's when GROMACS ran the dynamics (`ran`, on
    `inputs`), with the MD engine setting and its note, and the minimisation's engine."""
    ran, inputs = on_gromacs
    if ran is None or inputs is None:
        performance = _performance(minimisation_s, dynamics_s, steps, f"OpenMM {openmm.version.version}", platform, threads)
    else:
        performance = _performance(minimisation_s, dynamics_s, steps, ran.version, "CPU", str(inputs.cpus.threads))
        performance |= {"mdrun_ns_per_day": ran.mdrun_ns_per_day, "mdrun_flags": " ".join(mdrun_resources(inputs)), "cpus_limited_by": inputs.cpus.limited_by}
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


def _dynamics_on_gromacs(
    simulation: app.Simulation,
    system: openmm.System,
    protocol: Protocol,
    stage: Stage,
    box_nm: tuple[float, float, float],
    inputs: GromacsInputs,
    where: tuple[SimulationFiles, TextIO],
    progress: Progress,
) -> GromacsDynamics:
    """The dynamics on mdrun from the context's (minimised, constrained) positions; the context then
    holds mdrun's last positions and box, for the final structure and energy."""
    files, log = where
    log.write(dynamics_log_line(protocol, stage.ensemble == "NPT"))
    ran = run_gromacs_dynamics(
        inputs,
        protocol,
        stage,
        positions_nm(simulation),
        box_nm,
        total_mass_amu(system),
        (files.energies_csv, files.trajectory_dcd, log),
        progress,
    )
    take_state(simulation, ran.final_positions_nm, ran.final_velocities_nm_ps, ran.final_box_nm)
    log.write(f"dynamics finished after {stage.steps} steps" + (f"; mdrun: {ran.mdrun_ns_per_day} ns/day" if ran.mdrun_ns_per_day else "") + "\n")
    return ran

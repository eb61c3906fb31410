"""A protocol's dynamics on GROMACS's `gmx mdrun` (runtime/md_engine.py says when), with the
outputs of the OpenMM path: the same energies.csv, trajectory.dcd and progress lines.

Started from the structure OpenMM minimised (written as .g96, full precision) and the bundle's own
run parameters (mdp.py `dynamics_mdp`: sd integrator with OpenMM's friction as
tau-t = 1/friction, C-rescale for the Monte Carlo barostat, h-bond constraints, PME with OpenMM's
cutoff and splitting, velocities drawn at the temperature with gen-seed, ld-seed the run's seed)
with only the output intervals changed: energies and full-precision frames every recording interval.
mdrun runs on the job's threads, with `-reprod` on one rank only where the protocol asks for
bit-reproducible dynamics (gromacs_run.py `mdrun_resources`); its progress (`-v`) becomes the
engine's progress lines."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import numpy as np

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.allocation import CpuAllocation
from polyforge_engine.simulate.gromacs_files import continuous, read_g96_positions, read_g96_velocities, read_trr, write_g96
from polyforge_engine.simulate.gromacs_run import GromacsInputs, gmx_energy, gmx_version, grompp, last_error, mdrun_error, run_mdrun
from polyforge_engine.simulate.mdp import dynamics_mdp, with_overrides
from polyforge_engine.simulate.protocol import (
    AMU_PER_A3_TO_G_PER_CM3,
    SIMULATION_UNSTABLE,
    TIMESTEP_FS,
    Progress,
    Protocol,
    Stage,
    recording_interval,
    time_left,
)
from polyforge_engine.simulate.trajectory import DcdWriter

ENERGY_TERMS = ("Potential", "Kinetic-En.", "Total-Energy", "Temperature")
BOX_TERMS = ("Box-X", "Box-Y", "Box-Z")


@dataclass(frozen=True)
class GromacsDynamics:
    temperatures: list[float]  # K, one per recorded row of energies.csv
    final_positions_nm: np.ndarray  # molecules as integrated (continuous from the start)
    final_box_nm: tuple[float, float, float]
    final_velocities_nm_ps: np.ndarray  # mdrun's last state, for the restart files
    mdrun_ns_per_day: float | None  # mdrun's own figure (md.log)
    version: str


def run_gromacs_dynamics(
    inputs: GromacsInputs,
    protocol: Protocol,
    stage: Stage,
    start_nm: np.ndarray,
    box_nm: tuple[float, float, float],
    total_mass: float,
    outputs: tuple[Path, Path, TextIO],
    progress: Progress,
) -> GromacsDynamics:
    """One stage of dynamics on mdrun; writes energies.csv and trajectory.dcd (`outputs`, with the log)."""
    energies_csv, trajectory_dcd, log = outputs
    scratch = energies_csv.parent / "gromacs"
    scratch.mkdir(exist_ok=True)
    interval = recording_interval(stage.steps)
    (scratch / "md.mdp").write_text(run_mdp(protocol, stage, interval))
    write_g96(inputs.gro, start_nm, box_nm, scratch / "start.g96")
    version = gmx_version(inputs.gmx)
    log.write(f"dynamics on {version}, {inputs.describe()}\n")
    grompp(inputs, scratch, "md.mdp", "start.g96", "md", "mdout.mdp")
    _mdrun(inputs, scratch, stage.steps, interval, progress)
    npt = stage.ensemble == "NPT"
    rows = gmx_energy(inputs.gmx, scratch, ENERGY_TERMS + (BOX_TERMS if npt else ()))
    temperatures = write_energies(energies_csv, rows, total_mass, box_nm)
    final_nm, final_box = write_trajectory(trajectory_dcd, scratch, start_nm, box_nm, interval, stage.steps)
    final_velocities = read_g96_velocities(scratch / "final.g96")
    md_log = (scratch / "md.log").read_text(errors="replace")
    match = re.search(r"^Performance:\s+([\d.]+)", md_log, re.M)
    for pattern in ("*.trr", "*.edr", "*.cpt", "*.tpr", "*.g96", "*.xvg"):
        for path in scratch.glob(pattern):
            path.unlink()  # in energies.csv, the DCD and the context now; md.log and the mdp files stay
    return GromacsDynamics(temperatures, final_nm, final_box, final_velocities, float(match.group(1)) if match else None, version)


def run_mdp(protocol: Protocol, stage: Stage, interval: int) -> str:
    """The bundle's md.mdp with the recording of the engine: energies and frames every `interval`."""
    overrides = {
        "nstxout-compressed": 0,
        "nstxout": interval,
        "nstvout": 0,
        "nstfout": 0,
        "nstenergy": interval,
        "nstcalcenergy": interval,
        "nstlog": 0,
    }
    return with_overrides(dynamics_mdp(protocol, stage), overrides)


def _mdrun(inputs: GromacsInputs, scratch: Path, steps: int, interval: int, progress: Progress) -> None:
    started = time.monotonic()

    def report(step: int) -> None:
        done = min(step, steps)
        progress("dynamics", 100 * done / steps, time_left(done, steps, time.monotonic() - started))

    args = ["-s", "md.tpr", "-deffnm", "md", "-c", "final.g96", "-v"]
    code, watch = run_mdrun(inputs, scratch, args, rb"step (\d+)", report)
    if code != 0:
        raise mdrun_error(watch.text(), watch.step)
    progress("dynamics", 100.0, time_left(steps, steps, time.monotonic() - started))


def write_energies(path: Path, rows: dict[str, np.ndarray], total_mass: float, box_nm: tuple[float, float, float]) -> list[float]:
    """energies.csv as the OpenMM path writes it (md.py); the temperatures."""
    temperatures: list[float] = []
    with path.open("w") as energies:
        energies.write(
            "time_ps,potential_energy_kj_mol,kinetic_energy_kj_mol,total_energy_kj_mol,temperature_k,density_g_cm3,box_a_nm,box_b_nm,box_c_nm,stage\n"
        )
        for index, time_ps in enumerate(rows["time"]):
            potential, kinetic, temperature = (float(rows[key][index]) for key in ("Potential", "Kinetic-En.", "Temperature"))
            if not (np.isfinite(potential) and np.isfinite(kinetic)):
                raise EngineError(
                    SIMULATION_UNSTABLE,
                    f"The simulation became unstable at {time_ps:g} ps (energy is not a number); add minimisation steps or lower the density.",
                )
            a, b, c = (float(rows[key][index]) for key in BOX_TERMS) if BOX_TERMS[0] in rows else box_nm
            density = total_mass * AMU_PER_A3_TO_G_PER_CM3 / (a * b * c * 1000)
            energies.write(f"{time_ps:.4f},{potential:.4f},{kinetic:.4f},{potential + kinetic:.4f},{temperature:.3f},{density:.5f},{a:.5f},{b:.5f},{c:.5f},1\n")
            temperatures.append(temperature)
    return temperatures


def write_trajectory(
    path: Path, scratch: Path, start_nm: np.ndarray, box_nm: tuple[float, float, float], interval: int, steps: int
) -> tuple[np.ndarray, tuple[float, float, float]]:
    """trajectory.dcd from md.trr (and final.g96 for a last step off the interval), positions kept
    continuous from the start; the final positions and box."""
    previous, box, last_step = start_nm, box_nm, 0
    with path.open("wb") as handle:
        dcd = DcdWriter(handle, len(start_nm), TIMESTEP_FS / 1000, interval, True)
        for frame in read_trr(scratch / "md.trr"):
            previous, box, last_step = continuous(previous, frame.positions_nm, frame.box_nm), frame.box_nm, frame.step
            if frame.step > 0:
                dcd.write(previous, box)
        if last_step != steps:
            box = _g96_box(scratch / "final.g96")
            previous = continuous(previous, read_g96_positions(scratch / "final.g96"), box)
            dcd.write(previous, box)
    return previous, box


def _g96_box(path: Path) -> tuple[float, float, float]:
    values = path.read_text().split("BOX\n", 1)[1].split()[:3]
    return (float(values[0]), float(values[1]), float(values[2]))


class MdrunProbe:
    """The engine probe's runs of mdrun on the job's system: the dynamics' run parameters with no
    output, from the minimised structure, in `scratch`; `prepare` runs grompp (untimed), `run` mdrun."""

    def __init__(self, inputs: GromacsInputs, protocol: Protocol, stage: Stage, start: tuple[np.ndarray, tuple[float, float, float]], scratch: Path):
        self._inputs, self._protocol, self._stage, self._scratch = inputs, protocol, stage, scratch
        self._start_nm, self._box_nm = start

    def prepare(self, steps: int) -> None:
        self._scratch.mkdir(parents=True, exist_ok=True)
        overrides = {"nsteps": steps, "nstxout-compressed": 0, "nstxout": 0, "nstvout": 0, "nstfout": 0, "nstenergy": 0, "nstlog": 0}
        (self._scratch / "probe.mdp").write_text(with_overrides(dynamics_mdp(self._protocol, self._stage), overrides))
        write_g96(self._inputs.gro, self._start_nm, self._box_nm, self._scratch / "start.g96")
        grompp(self._inputs, self._scratch, "probe.mdp", "start.g96", "probe", "probe_out.mdp")

    def runner(self, cpus: CpuAllocation) -> Callable[[int, Callable[[], None]], None]:
        """A run of the prepared steps on `cpus`, `check()` called while it runs (it may raise to stop it)."""

        def run(steps: int, check: Callable[[], None]) -> None:
            inputs = replace(self._inputs, cpus=cpus)
            args = ["-s", "probe.tpr", "-deffnm", "probe", "-c", "probe.g96"]
            code, watch = run_mdrun(inputs, self._scratch, args, rb"step (\d+)", lambda _: None, check)
            if code != 0:
                raise RuntimeError(f"mdrun {' '.join(cpus.mdrun_args())} failed: {last_error(watch.text())}")

        return run

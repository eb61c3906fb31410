"""What a run is asked to do, and what every program that runs it shares: the protocol and its
dynamics stages, the time step, cutoff and thermostat friction, the seeds as OpenMM and GROMACS read
them, when frames are recorded and progress goes out, the output files and the error codes. OpenMM
(md.py), mdrun (gromacs.py, gromacs_minimise.py), the .mdp text (mdp.py) and the bundle's inputs all
read them here, so the programs run one protocol. Units are in the names."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from polyforge_engine.events import EngineError

CELL_TOO_SMALL = "CELL_TOO_SMALL"
SIMULATION_UNSTABLE = "SIMULATION_UNSTABLE"

CUTOFF_NM = 1.0
TIMESTEP_FS = 2.0
FRICTION_PER_PS = 5.0  # short runs start cold from a minimised structure and must reach T within ~0.2 ps
VACUUM_GAP_NM = 2.0 * CUTOFF_NM  # with z walls: atoms across the gap stay beyond the cutoff of each other
STEPS_BETWEEN_CANCEL_CHECKS = 10
TARGET_FRAMES = 100
# Every recorded frame evaluates the energy once more (about one step's work): frames at least this
# many steps apart keep recording a few per cent of the dynamics (bench/README.md, "Recording"). A
# multiple of the chunk above.
MIN_RECORD_INTERVAL = 50
# Progress goes out at least this often (wall time) during dynamics, between recorded frames too, so
# a long run never falls silent.
PROGRESS_EVERY_S = 3.0
BAROSTAT_INTERVAL_STEPS = 25  # between Monte Carlo volume moves (OpenMM's default)
# The melt equilibration's compression stages are a few per cent of the steps each: volume moves
# every 5 steps let the box follow 50 kbar within them (each move changes the volume by ~1 %).
EQUILIBRATION_BAROSTAT_INTERVAL_STEPS = 5
AMU_PER_A3_TO_G_PER_CM3 = 1.66053906660

Ensemble = Literal["NVE", "NVT", "NPT"]
Equilibration = Literal["none", "melt_21_step"]
# (stage, percent[, fields]): dynamics add a third argument, {simulated_ns, total_ns, remaining_s} (time_left).
Progress = Callable[..., None]
PercentProgress = Callable[[float], None]  # percent of the steps asked of one stage


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
    # Asked for dynamics repeatable to the bit: mdrun with -reprod (no dynamic load balancing, no
    # timed kernel choice) on the threads given, and no engine probe (its choice follows the load).
    bit_reproducible: bool = False


@dataclass(frozen=True)
class Stage:
    """A stretch of the dynamics in one ensemble (equilibration.py says which stages a protocol has)."""

    ensemble: Ensemble
    temperature_k: float
    pressure_bar: float | None  # NPT only
    steps: int

    def describe(self) -> str:
        pressure = f", {self.pressure_bar:g} bar" if self.pressure_bar is not None else ""
        return f"{self.ensemble} at {self.temperature_k:g} K{pressure}"


@dataclass(frozen=True)
class SimulationFiles:
    energies_csv: Path
    trajectory_dcd: Path
    minimized_pdb: Path
    final_pdb: Path
    log: Path

    @classmethod
    def in_directory(cls, workdir: Path) -> SimulationFiles:
        """The simulation's output files, all in `workdir`."""
        return cls(
            energies_csv=workdir / "energies.csv",
            trajectory_dcd=workdir / "trajectory.dcd",
            minimized_pdb=workdir / "minimized.pdb",
            final_pdb=workdir / "final.pdb",
            log=workdir / "simulation.log",
        )


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


def stage_seed(seed: int, number: int | None) -> int:
    """The seed of stage `number` (1, 2, … of a staged run; None for a run of one stage): the run's
    seed plus the stage's index, so no stage repeats another's random noise."""
    return seed + (number - 1 if number is not None else 0)


def amber_seed(seed: int) -> int:
    """sander and pmemd read ig as a 32-bit int (-1: pick one); a job may give any non-negative seed."""
    return seed % 2_147_483_647


def barostat_interval(protocol: Protocol) -> int:
    """Steps between Monte Carlo volume moves in the NPT stages of this protocol."""
    return EQUILIBRATION_BAROSTAT_INTERVAL_STEPS if protocol.equilibration != "none" else BAROSTAT_INTERVAL_STEPS


def recording_interval(total_steps: int) -> int:
    """Steps between recorded frames: about TARGET_FRAMES in all, at least MIN_RECORD_INTERVAL
    apart (each costs an energy evaluation, about one step), on multiples of the cancellation chunk."""
    per_frame = math.ceil(total_steps / TARGET_FRAMES / STEPS_BETWEEN_CANCEL_CHECKS) * STEPS_BETWEEN_CANCEL_CHECKS
    return max(MIN_RECORD_INTERVAL, per_frame)


def time_left(done: int, total: int, elapsed_s: float) -> dict[str, float | None]:
    """What a dynamics progress line adds: nanoseconds simulated and in all, and the wall time left
    at the speed so far (None until a second of dynamics has been timed)."""
    remaining = elapsed_s / done * (total - done) if done > 0 and elapsed_s >= 1.0 else None
    return {
        "simulated_ns": round(done * TIMESTEP_FS * 1e-6, 6),
        "total_ns": round(total * TIMESTEP_FS * 1e-6, 6),
        "remaining_s": round(remaining, 1) if remaining is not None else None,
    }


def dynamics_log_line(protocol: Protocol, with_pressure: bool) -> str:
    """The simulation log's line for the dynamics, whichever program runs them."""
    return (
        f"dynamics: {protocol.ensemble}, {protocol.dynamics_steps} steps of {TIMESTEP_FS} fs at {protocol.temperature_k} K"
        + (f", {protocol.pressure_bar} bar" if with_pressure else "")
        + f", seed {protocol.seed}\n"
    )

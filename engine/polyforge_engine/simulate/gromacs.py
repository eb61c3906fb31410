"""A protocol's dynamics on GROMACS's `gmx mdrun` (issue 27; runtime/md_engine.py says when), with the
outputs of the OpenMM path: the same energies.csv, trajectory.dcd and progress lines.

Started from the structure OpenMM minimised (written as .g96, full precision) and the bundle's own
run parameters (bundle/writer.py `dynamics_mdp`: sd integrator with OpenMM's friction as
tau-t = 1/friction, C-rescale for the Monte Carlo barostat, h-bond constraints, PME with OpenMM's
cutoff and splitting, velocities drawn at the temperature with gen-seed, ld-seed the run's seed)
with only the output intervals changed: energies and full-precision frames every recording interval.
mdrun runs with `-reprod` on one rank of the job's threads; its progress (`-v`) becomes the
engine's progress lines; a cancelled run terminates it (and it dies with the engine: PDEATHSIG)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TextIO

import numpy as np

from polyforge_engine.bundle.writer import dynamics_mdp
from polyforge_engine.events import EngineError
from polyforge_engine.runtime.cancellation import raise_if_cancelled
from polyforge_engine.simulate.equilibration import Stage
from polyforge_engine.simulate.gromacs_files import continuous, read_g96_positions, read_trr, read_xvg, write_g96
from polyforge_engine.simulate.md import (
    _AMU_PER_A3_TO_G_PER_CM3,
    CELL_TOO_SMALL,
    PROGRESS_EVERY_S,
    SIMULATION_UNSTABLE,
    TIMESTEP_FS,
    Protocol,
    recording_interval,
    time_left,
)
from polyforge_engine.simulate.trajectory import DcdWriter

POLL_S = 0.5
ENERGY_TERMS = ("Potential", "Kinetic-En.", "Total-Energy", "Temperature")
BOX_TERMS = ("Box-X", "Box-Y", "Box-Z")
Progress = Callable[[str, float, dict[str, float | None]], None]


@dataclass(frozen=True)
class GromacsDynamics:
    temperatures: list[float]  # K, one per recorded row of energies.csv
    final_positions_nm: np.ndarray  # molecules as integrated (continuous from the start)
    final_box_nm: tuple[float, float, float]
    mdrun_ns_per_day: float | None  # mdrun's own figure (md.log)
    version: str


@dataclass(frozen=True)
class GromacsInputs:
    gmx: str
    top: Path  # system.top, molecules.itp beside it
    gro: Path  # system.gro: the atom and residue names
    threads: int


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
    log.write(f"dynamics on {version}, {inputs.threads} thread(s), -reprod\n")
    _grompp(inputs, scratch)
    _mdrun(inputs, scratch, stage.steps, interval, progress)
    npt = stage.ensemble == "NPT"
    rows = _energies(inputs.gmx, scratch, npt)
    temperatures = write_energies(energies_csv, rows, total_mass, box_nm)
    final_nm, final_box = write_trajectory(trajectory_dcd, scratch, start_nm, box_nm, interval, stage.steps)
    md_log = (scratch / "md.log").read_text(errors="replace")
    match = re.search(r"^Performance:\s+([\d.]+)", md_log, re.M)
    for pattern in ("*.trr", "*.edr", "*.cpt", "*.tpr", "*.g96", "*.xvg"):
        for path in scratch.glob(pattern):
            path.unlink()  # in energies.csv, the DCD and the context now; md.log and the mdp files stay
    return GromacsDynamics(temperatures, final_nm, final_box, float(match.group(1)) if match else None, version)


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
    kept = [line for line in dynamics_mdp(protocol, stage).splitlines() if line.split("=")[0].strip() not in overrides]
    return "\n".join(kept + [f"{key:<15s} = {value}" for key, value in overrides.items()]) + "\n"


def gmx_version(gmx: str) -> str:
    """'GROMACS 2022.5-Debian_2022.5_2' (or just 'GROMACS' when it does not say)."""
    run = subprocess.run([gmx, "--version"], capture_output=True, text=True, check=False)
    match = re.search(r"GROMACS version:\s+(\S+)", run.stdout)
    return f"GROMACS {match.group(1)}" if match else "GROMACS"


def _environment(threads: int) -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": str(threads), "GMX_MAXBACKUP": "-1"}


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the engine process dies (Linux PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def _grompp(inputs: GromacsInputs, scratch: Path) -> None:
    command = [inputs.gmx, "-quiet", "grompp", "-f", "md.mdp", "-c", "start.g96", "-p", str(inputs.top.resolve())]
    command += ["-o", "md.tpr", "-po", "mdout.mdp", "-maxwarn", "0"]
    run = subprocess.run(command, cwd=scratch, capture_output=True, text=True, env=_environment(1), check=False)
    if run.returncode != 0:
        raise RuntimeError(f"gmx grompp failed: {_last_error(run.stderr)}")


def _mdrun(inputs: GromacsInputs, scratch: Path, steps: int, interval: int, progress: Progress) -> None:
    started = time.monotonic()

    def report(step: int) -> None:
        done = min(step, steps)
        progress("dynamics", 100 * done / steps, time_left(done, steps, time.monotonic() - started))

    args = ["-s", "md.tpr", "-deffnm", "md", "-c", "final.g96", "-v", "-reprod"]
    code, watch = run_mdrun(inputs, scratch, args, rb"step (\d+)", report)
    if code != 0:
        raise _mdrun_error(watch.text(), watch.step)
    progress("dynamics", 100.0, time_left(steps, steps, time.monotonic() - started))


def run_mdrun(inputs: GromacsInputs, scratch: Path, args: list[str], step_pattern: bytes, report: Callable[[int], None]) -> tuple[int, _StderrWatch]:
    """`gmx mdrun args` on one rank of the job's threads in `scratch`, watched until it ends: cancellation
    checked every POLL_S, `report(step)` called at most once a second once a step was seen in its `-v`
    stderr (`step_pattern`'s group); stopped if anything raises. Its exit code and stderr."""
    command = [inputs.gmx, "-quiet", "mdrun", *args, "-ntmpi", "1", "-ntomp", str(inputs.threads), "-pin", "off"]
    process = subprocess.Popen(
        command, cwd=scratch, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=_environment(inputs.threads), preexec_fn=_die_with_parent,
    )  # fmt: skip
    assert process.stderr is not None
    watch = _StderrWatch(process.stderr, step_pattern)
    last = time.monotonic()
    try:
        while process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(POLL_S)
            raise_if_cancelled()
            if time.monotonic() - last >= min(PROGRESS_EVERY_S, 1.0) and watch.step > 0:
                report(watch.step)
                last = time.monotonic()
    finally:
        _stop(process)
    watch.join()
    return process.returncode, watch


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()  # mdrun stops at the next step on SIGTERM
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class _StderrWatch:
    """Reads mdrun's stderr in a thread: the last step its `-v` lines name (`pattern`'s group), and the text."""

    def __init__(self, stream: IO[bytes], pattern: bytes = rb"step (\d+)"):
        self.step = 0
        self._pattern = re.compile(pattern)
        self._chunks: list[bytes] = []
        self._stream = stream
        self._thread = threading.Thread(target=self._read, name="mdrun-stderr", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while chunk := os.read(self._stream.fileno(), 4096):
            self._chunks.append(chunk)
            steps = self._pattern.findall(chunk)
            if steps:
                self.step = int(steps[-1])

    def join(self) -> None:
        self._thread.join(10)

    def text(self) -> str:
        return b"".join(self._chunks).decode(errors="replace")


def _last_error(text: str) -> str:
    """The lines of GROMACS's error box ('Fatal error:' … the dashes), else the last lines."""
    match = re.search(r"(?:Fatal error|Error in user input):\n(.*?)(?:\n\n|\n-{5,}|$)", text, re.S)
    lines = (match.group(1) if match else text).strip().splitlines()
    return " ".join(line.strip() for line in lines[-6:])[:600]


def _mdrun_error(stderr: str, step: int) -> EngineError:
    reason = _last_error(stderr)
    if "cut-off length is longer than half the shortest box" in reason or "box size" in reason.lower():
        return EngineError(CELL_TOO_SMALL, f"Near step {step} the cell became smaller than twice the 10 Å cutoff; build a larger system for NPT.")
    return EngineError(SIMULATION_UNSTABLE, f"The simulation became unstable near step {step} ({reason}); add minimisation steps or lower the density.")


def _energies(gmx: str, scratch: Path, npt: bool) -> dict[str, np.ndarray]:
    terms = ENERGY_TERMS + (BOX_TERMS if npt else ())
    command = [gmx, "-quiet", "energy", "-f", "md.edr", "-o", "energy.xvg"]
    run = subprocess.run(command, cwd=scratch, input="\n".join(terms) + "\n\n", capture_output=True, text=True, env=_environment(1), check=False)
    if run.returncode != 0:
        raise RuntimeError(f"gmx energy failed: {_last_error(run.stderr)}")
    table = read_xvg(scratch / "energy.xvg")
    columns = [table[key] for key in table if key != "time"]
    if len(columns) != len(terms):
        raise RuntimeError(f"gmx energy gave {len(columns)} of the terms {', '.join(terms)}")
    return {"time": table["time"]} | dict(zip(terms, columns, strict=True))


def write_energies(path: Path, rows: dict[str, np.ndarray], total_mass: float, box_nm: tuple[float, float, float]) -> list[float]:
    """energies.csv as the OpenMM path writes it (md.py `_record`); the temperatures."""
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
            density = total_mass * _AMU_PER_A3_TO_G_PER_CM3 / (a * b * c * 1000)
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

"""Running GROMACS's programs for a job: `gmx grompp`, `gmx mdrun` watched until it ends (cancellation
checked, its `-v` progress read, stopped with the job and killed with the engine: PDEATHSIG) and
`gmx energy`, and their failures put in a chemist's words. The dynamics (gromacs.py) and the
minimisation (gromacs_minimise.py) on mdrun both run through here."""

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
from typing import IO

import numpy as np

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.allocation import CpuAllocation
from polyforge_engine.runtime.cancellation import raise_if_cancelled
from polyforge_engine.simulate.gromacs_files import read_xvg
from polyforge_engine.simulate.protocol import CELL_TOO_SMALL, PROGRESS_EVERY_S, SIMULATION_UNSTABLE

POLL_S = 0.5


@dataclass(frozen=True)
class GromacsInputs:
    gmx: str
    top: Path  # system.top, molecules.itp beside it
    gro: Path  # system.gro: the atom and residue names
    cpus: CpuAllocation
    reprod: bool = False  # the protocol asked for bit-reproducible dynamics

    def describe(self) -> str:
        """How mdrun runs, for the log: '2 thread(s), -nt 2 -pin off'."""
        return f"{self.cpus.threads} thread(s), {' '.join(mdrun_resources(self))}"


def mdrun_resources(inputs: GromacsInputs) -> list[str]:
    """mdrun's thread, pinning and reproducibility flags. `-reprod` (asked for) on one rank, so that the
    decomposition is the same every run; otherwise the job's threads and pinning, split between
    ranks and OpenMP threads by mdrun itself, with dynamic load balancing and its timed kernel
    choices (bench/README.md, "MD speed at the CPUs a job has")."""
    if inputs.reprod:
        return ["-reprod", "-ntmpi", "1", "-ntomp", str(inputs.cpus.threads), "-pin", "on" if inputs.cpus.pin else "off"]
    return inputs.cpus.mdrun_args()


def gmx_version(gmx: str) -> str:
    """'GROMACS 2022.5-Debian_2022.5_2' (or just 'GROMACS' when it does not say)."""
    run = subprocess.run([gmx, "--version"], capture_output=True, text=True, check=False)
    match = re.search(r"GROMACS version:\s+(\S+)", run.stdout)
    return f"GROMACS {match.group(1)}" if match else "GROMACS"


def _environment(threads: int | None) -> dict[str, str]:
    """GROMACS's environment: OMP_NUM_THREADS set to `threads`, or unset (None) where `-nt` leaves the
    split between ranks and OpenMP threads to mdrun (it would follow the variable otherwise)."""
    environment = {key: value for key, value in os.environ.items() if key != "OMP_NUM_THREADS"}
    return environment | {"GMX_MAXBACKUP": "-1"} | ({"OMP_NUM_THREADS": str(threads)} if threads is not None else {})


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the engine process dies (Linux PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def grompp(inputs: GromacsInputs, scratch: Path, mdp: str, start: str, name: str, processed_mdp: str) -> None:
    """`gmx grompp` in `scratch`: `mdp` and the structure `start` into `name`.tpr, the parameters as
    GROMACS read them into `processed_mdp`; no warning tolerated. RuntimeError with GROMACS's words."""
    command = [inputs.gmx, "-quiet", "grompp", "-f", mdp, "-c", start, "-p", str(inputs.top.resolve())]
    command += ["-o", f"{name}.tpr", "-po", processed_mdp, "-maxwarn", "0"]
    run = subprocess.run(command, cwd=scratch, capture_output=True, text=True, env=_environment(1), check=False)
    if run.returncode != 0:
        raise RuntimeError(f"gmx grompp failed: {last_error(run.stderr)}")


def run_mdrun(
    inputs: GromacsInputs, scratch: Path, args: list[str], step_pattern: bytes, report: Callable[[int], None], check: Callable[[], None] = raise_if_cancelled
) -> tuple[int, StderrWatch]:
    """`gmx mdrun args` on the job's threads in `scratch` (mdrun_resources), watched until it ends:
    cancellation checked every POLL_S (and `check()`, which may raise to stop it), `report(step)`
    called at most once a second once a step was seen in its `-v` stderr (`step_pattern`'s group);
    stopped if anything raises. Its exit code and stderr."""
    command = [inputs.gmx, "-quiet", "mdrun", *args, *mdrun_resources(inputs)]
    process = subprocess.Popen(
        command, cwd=scratch, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=_environment(inputs.cpus.threads if inputs.reprod else None), preexec_fn=_die_with_parent,
    )  # fmt: skip
    assert process.stderr is not None
    watch = StderrWatch(process.stderr, step_pattern)
    last = time.monotonic()
    try:
        while process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(POLL_S)
            raise_if_cancelled()
            check()
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


class StderrWatch:
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


def last_error(text: str) -> str:
    """The lines of GROMACS's error box ('Fatal error:' … the dashes), else the last lines."""
    match = re.search(r"(?:Fatal error|Error in user input):\n(.*?)(?:\n\n|\n-{5,}|$)", text, re.S)
    lines = (match.group(1) if match else text).strip().splitlines()
    return " ".join(line.strip() for line in lines[-6:])[:600]


def mdrun_error(stderr: str, step: int) -> EngineError:
    """Why the dynamics on mdrun stopped near `step`, as the OpenMM path says it."""
    reason = last_error(stderr)
    if "cut-off length is longer than half the shortest box" in reason or "box size" in reason.lower():
        return EngineError(CELL_TOO_SMALL, f"Near step {step} the cell became smaller than twice the 10 Å cutoff; build a larger system for NPT.")
    return EngineError(SIMULATION_UNSTABLE, f"The simulation became unstable near step {step} ({reason}); add minimisation steps or lower the density.")


def gmx_energy(gmx: str, scratch: Path, terms: tuple[str, ...]) -> dict[str, np.ndarray]:
    """`gmx energy` of md.edr in `scratch`: the time (ps) and each of `terms`, by name."""
    command = [gmx, "-quiet", "energy", "-f", "md.edr", "-o", "energy.xvg"]
    run = subprocess.run(command, cwd=scratch, input="\n".join(terms) + "\n\n", capture_output=True, text=True, env=_environment(1), check=False)
    if run.returncode != 0:
        raise RuntimeError(f"gmx energy failed: {last_error(run.stderr)}")
    table = read_xvg(scratch / "energy.xvg")
    columns = [table[key] for key in table if key != "time"]
    if len(columns) != len(terms):
        raise RuntimeError(f"gmx energy gave {len(columns)} of the terms {', '.join(terms)}")
    return {"time": table["time"]} | dict(zip(terms, columns, strict=True))

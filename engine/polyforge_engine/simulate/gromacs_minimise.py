"""Minimisation on GROMACS when a job's dynamics run on mdrun and POLYFORGE_MINIMISE_ENGINE=gromacs
(runtime/md_engine.py): the two stages of minimise.py, in the number of steps asked, with mdrun instead
of OpenMM. Not the default: on a 10 k-atom PE melt it takes about half the time of OpenMM's for 200
steps but ends far higher (OpenMM's L-BFGS iterations each search further than a cg step), and at equal
energy it is the slower (bench/README.md).

1. `integrator = steep` until the largest force on any atom is below SWITCH_FORCE_KJ_MOL_NM (emtol):
   GROMACS's steepest descent moves the atom with the largest force by its step h (emstep, 0.01 nm at
   first; ×1.2 after a step that lowered the energy, ×0.2 and tried again from where it was after
   one that did not) and every other atom in proportion to its force. A step that raises the energy
   (or makes it NaN) is never kept, so overlapping atoms of a dense cell cannot blow it up.
2. `integrator = cg` (Polak-Ribière conjugate gradients) for the steps left, stopping earlier only
   when the largest force is below TOLERANCE_FMAX_KJ_MOL_NM (said in the log). Measured against
   GROMACS's `l-bfgs` on a 10 k-atom PE melt (bench/README.md): the same time per step, a lower
   energy after the same steps, and no grompp warning to suppress.

Both run without constraints (`constraints = none`): the bonds to hydrogen that dynamics constrain are
the force field's own harmonic bonds here (GAFF's X-H, 2.5-3.1e5 kJ/mol/nm²), as minimise.py holds
them by springs; run.py applies the constraints to the result before dynamics. A step counts as
GROMACS counts it (a rejected steepest-descent step too, as in minimise.py). Should stage 2 fail,
steep goes on from stage 1's structure for the steps left. Atoms that all but coincide (0.1 Å) give
forces beyond GROMACS's single precision, which mdrun cannot minimise: then (GromacsRefused) run.py
minimises on OpenMM, as for every job before. mdrun's stderr (`-v`) gives the progress; a cancelled
job stops it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from polyforge_engine.simulate.gromacs_files import continuous, read_g96_positions, write_g96
from polyforge_engine.simulate.gromacs_run import GromacsInputs, grompp, last_error, run_mdrun
from polyforge_engine.simulate.mdp import minimization_mdp, with_overrides
from polyforge_engine.simulate.minimise import FIRST_STEP_NM, SWITCH_FORCE_KJ_MOL_NM, MinimisationResult
from polyforge_engine.simulate.protocol import PercentProgress, Protocol

TOLERANCE_FMAX_KJ_MOL_NM = 10.0  # cg stops when the largest force is below this (the bundle's minimization.mdp)
STEP_PATTERN = rb"Step[= ]\s*(\d+)"  # steep's 'Step=   12, Dmax=…', cg's 'Step 12, Epot=…'


class GromacsRefused(RuntimeError):
    """mdrun could not minimise this structure (forces beyond single precision where atoms all but
    coincide, or a failed run): run.py then minimises on OpenMM, whose capped descent can."""


@dataclass(frozen=True)
class _Stage:
    steps: int  # the steps GROMACS ran (its last 'Step' number)
    converged: str | None  # GROMACS's words when it stopped before the steps asked
    energy_kj_mol: float | None  # GROMACS's potential energy of the structure written
    fmax_before: float | None  # the largest force at step 0
    final: Path


def em_mdp(protocol: Protocol, integrator: str, steps: int, emtol: float) -> str:
    """The bundle's minimization.mdp (same nonbonded treatment as the dynamics) for one stage here."""
    overrides = {
        "integrator": integrator,
        "nsteps": steps,
        "emtol": emtol,
        "emstep": FIRST_STEP_NM,
        "constraints": "none",
        "nstcgsteep": 1000 * steps + 1,  # no steepest-descent steps inside cg
        "nstxout": 0,
        "nstenergy": 0,
        "nstlog": 0,
    }
    return with_overrides(minimization_mdp(protocol), overrides)


def minimise_on_gromacs(
    inputs: GromacsInputs,
    protocol: Protocol,
    start_nm: np.ndarray,
    box_nm: tuple[float, float, float],
    energy_before_kj_mol: float,
    scratch: Path,
    progress: PercentProgress,
    version: str,
) -> tuple[MinimisationResult, float | None]:
    """Minimise from `start_nm` in at most protocol.minimization_steps steps; the result (positions
    unconstrained, molecules as in `start_nm`) and GROMACS's own potential energy of it (kJ/mol)."""
    scratch.mkdir(parents=True, exist_ok=True)
    steps = protocol.minimization_steps
    write_g96(inputs.gro, start_nm, box_nm, scratch / "em_start.g96", "PolyForge: to be minimised by GROMACS")
    try:
        descent = _stage(inputs, protocol, scratch, "em_steep", "em_start.g96", ("steep", steps, SWITCH_FORCE_KJ_MOL_NM), (0, steps, progress))
    except RuntimeError as exc:
        raise GromacsRefused(str(exc)) from exc
    last, descent_steps, second_steps, failed, converged = descent, descent.steps, 0, False, None
    left = steps - descent.steps
    if left > 0:
        try:
            second = _stage(inputs, protocol, scratch, "em_cg", "em_steep.g96", ("cg", left, TOLERANCE_FMAX_KJ_MOL_NM), (descent.steps, steps, progress))
            failed = second.energy_kj_mol is None or not np.isfinite(second.energy_kj_mol)
        except RuntimeError:
            failed = True
        if failed:  # steep goes on from stage 1's structure for the steps left
            try:
                method = ("steep", left, TOLERANCE_FMAX_KJ_MOL_NM)
                rest = _stage(inputs, protocol, scratch, "em_steep2", "em_steep.g96", method, (descent.steps, steps, progress))
            except RuntimeError as exc:
                raise GromacsRefused(str(exc)) from exc
            last, descent_steps = rest, descent.steps + rest.steps
        else:
            last, second_steps, converged = second, second.steps, second.converged
    progress(100.0)
    positions = continuous(start_nm, read_g96_positions(last.final), box_nm)
    for pattern in ("em_*.trr", "em_*.edr", "em_*.tpr", "em_*.g96"):
        for path in scratch.glob(pattern):
            path.unlink()
    result = MinimisationResult(
        steps_asked=steps,
        capped_descent_steps=descent_steps,
        lbfgs_steps=second_steps,
        converged=converged is not None,
        lbfgs_failed=failed,
        energy_before_kj_mol=energy_before_kj_mol,
        largest_force_before_kj_mol_nm=float(descent.fmax_before or 0.0),
        positions_nm=positions,
        engine=version,
        note=converged,
    )
    return result, last.energy_kj_mol


def _stage(
    inputs: GromacsInputs,
    protocol: Protocol,
    scratch: Path,
    name: str,
    start: str,
    method: tuple[str, int, float],
    budget: tuple[int, int, PercentProgress],
) -> _Stage:
    """grompp and mdrun of one stage (`method`: integrator, steps, emtol); `budget`: the steps run
    before it, the steps asked in all and the progress callback."""
    integrator, steps, emtol = method
    (scratch / f"{name}.mdp").write_text(em_mdp(protocol, integrator, steps, emtol))
    grompp(inputs, scratch, f"{name}.mdp", start, name, f"{name}_out.mdp")
    text = _mdrun(inputs, scratch, name, budget)
    step_lines = re.findall(r"Step[= ]\s*(\d+)[^\n\r]*?Fmax=\s*([-+\d.eE]+|-?nan|-?inf)", text)
    if "force on at least one atom is not" in text or not all(np.isfinite(float(fmax)) for _, fmax in step_lines):
        raise GromacsRefused(f"forces that are not finite in GROMACS's single precision ({name})")
    converged = re.search(r"converged to (Fmax < \S+|machine precision)", text)
    energy = re.search(r"Potential Energy\s+=\s+(\S+)", text)
    return _Stage(
        steps=int(step_lines[-1][0]) if step_lines else 0,
        converged=converged.group(0) if converged else None,
        energy_kj_mol=float(energy.group(1)) if energy else None,
        fmax_before=float(step_lines[0][1]) if step_lines else None,
        final=scratch / f"{name}.g96",
    )


def _mdrun(inputs: GromacsInputs, scratch: Path, name: str, budget: tuple[int, int, PercentProgress]) -> str:
    """mdrun of a minimisation stage, its progress reported as steps of the whole; its stderr."""
    done, total, progress = budget
    args = ["-s", f"{name}.tpr", "-deffnm", name, "-c", f"{name}.g96", "-v"]
    code, watch = run_mdrun(inputs, scratch, args, STEP_PATTERN, lambda step: progress(100 * (done + step) / total))
    if code != 0:
        raise RuntimeError(f"gmx mdrun ({name}) failed: {last_error(watch.text())}")
    return watch.text()

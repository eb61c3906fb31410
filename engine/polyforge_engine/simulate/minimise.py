"""Energy minimisation that cannot blow up, in the number of steps asked.

Two stages share the budget of steps:

1. Capped steepest descent, a step that cannot blow up: every coordinate moves by
   h·F/(F_ref + |F|), never more than h (≤ MAX_STEP_NM), and the step is taken only if the energy
   went down (else h shrinks five-fold and the step is tried again from where it was; after a
   success h grows by 1.2, as GROMACS's `steep` does). Overlapping atoms of a freshly built dense
   cell push each other apart by at most h per step instead of being thrown across the cell. It
   runs (on the platform, a CustomIntegrator) until the largest force on any atom is below
   SWITCH_FORCE, which is when L-BFGS's first steps are short for every atom.
2. L-BFGS (OpenMM's LocalEnergyMinimizer) for the steps left, stopping early when the forces are
   below the tolerance.

Where a job's dynamics run on GROMACS, gromacs_minimise.py runs the same two stages on mdrun.

Both run on a copy of the system without constraints: the bonds dynamics constrains are held by
stiff springs at their constrained lengths instead, so L-BFGS runs once, for as many iterations as
are left (OpenMM's minimiser on a constrained system restarts its iteration count every time it
tightens its restraints, and so runs several times the steps asked: bench/README.md, "Simulation
and parametrisation settings"). The constraints
are applied to the result before dynamics. Should L-BFGS still meet a non-finite energy, the
positions of stage 1 are kept and capped descent spends the steps left: a structure the builder
accepts always minimises."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import openmm
from openmm import unit

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.cancellation import cancel_requested, raise_if_cancelled
from polyforge_engine.simulate.protocol import SIMULATION_UNSTABLE, PercentProgress

TOLERANCE_KJ_MOL_NM = 10.0  # L-BFGS stops when the root-mean-square force component is below this
SWITCH_FORCE_KJ_MOL_NM = 10_000.0  # largest force on any atom at which L-BFGS takes over
FIRST_STEP_NM = 0.01  # GROMACS's default emstep
MAX_STEP_NM = 0.05
REFERENCE_FORCE_KJ_MOL_NM = 1_000.0  # forces well above this move a coordinate by the whole step h
SPRING_KJ_MOL_NM2 = 250_000.0  # a constrained bond while minimising; GAFF's X-H bonds are 2.5-3.1e5
CHECK_EVERY = 5  # capped-descent steps between looks at the largest force (and cancellation)
_SPRING_GROUP = 31  # force group of the springs, left out of the energies reported


@dataclass(frozen=True)
class MinimisationResult:
    steps_asked: int
    capped_descent_steps: int
    lbfgs_steps: int
    converged: bool  # L-BFGS stopped before the budget: forces below the tolerance
    lbfgs_failed: bool  # L-BFGS met a non-finite energy; stage 1's positions were kept
    energy_before_kj_mol: float
    largest_force_before_kj_mol_nm: float
    positions_nm: np.ndarray  # unconstrained; apply the constraints before dynamics
    # Who minimised: OpenMM here; GROMACS's steep then cg on the GROMACS path (gromacs_minimise.py),
    # whose stage-1 and stage-2 steps fill capped_descent_steps and lbfgs_steps.
    engine: str = "OpenMM"
    note: str | None = None  # GROMACS's words when it stopped before the steps asked

    @property
    def steps_run(self) -> int:
        return self.capped_descent_steps + self.lbfgs_steps

    @property
    def on_gromacs(self) -> bool:
        return self.engine.startswith("GROMACS")

    def describe(self) -> str:
        """One line for the simulation log."""
        first, second = ("steepest descent (steep)", "conjugate gradients (cg)") if self.on_gromacs else ("capped steepest descent", "L-BFGS")
        text = f"minimisation: {self.steps_run} of {self.steps_asked} steps asked ({self.capped_descent_steps} {first}, {self.lbfgs_steps} {second})"
        if self.on_gromacs:
            text += f" on {self.engine}"
        if self.lbfgs_failed:
            text += f"; {second.split(' (')[0]} failed, steepest descent went on from its start"
        elif self.converged and self.on_gromacs:
            text += f"; {self.note}"
        elif self.converged:
            text += f"; converged (root-mean-square force below {TOLERANCE_KJ_MOL_NM:g} kJ/mol/nm)"
        return text

    def as_report(self) -> dict[str, object]:
        return {
            "steps_asked": self.steps_asked,
            "steps_run": self.steps_run,
            "capped_descent_steps": self.capped_descent_steps,
            "lbfgs_steps": self.lbfgs_steps,
            "converged": self.converged,
            "lbfgs_failed": self.lbfgs_failed,
            "largest_force_before_kj_mol_nm": round(self.largest_force_before_kj_mol_nm, 1),
            "engine": self.engine,
            "methods": ["steep", "cg"] if self.on_gromacs else ["capped steepest descent", "L-BFGS"],
        }


def capped_descent_integrator() -> openmm.CustomIntegrator:
    """One step of capped steepest descent per integrator step (module docstring)."""
    integrator = openmm.CustomIntegrator(0.0)
    for name, value in (
        ("h", FIRST_STEP_NM),
        ("h_max", MAX_STEP_NM),
        ("f_ref", REFERENCE_FORCE_KJ_MOL_NM),
        ("e_start", 0.0),
        ("e_trial", 0.0),
        ("accepted", 0.0),
        ("rejected_steps", 0.0),
    ):
        integrator.addGlobalVariable(name, value)
    integrator.addPerDofVariable("x_start", 0.0)
    integrator.addComputeGlobal("e_start", "energy")
    integrator.addComputePerDof("x_start", "x")
    integrator.addComputePerDof("x", "x + h*f/(f_ref + abs(f))")
    integrator.addComputeGlobal("e_trial", "energy")
    integrator.addComputeGlobal("accepted", "0")
    # A NaN energy fails this comparison too: such a step is never taken.
    integrator.beginIfBlock("e_trial < e_start")
    integrator.addComputeGlobal("accepted", "1")
    integrator.addComputeGlobal("h", "min(h_max, 1.2*h)")
    integrator.endBlock()
    integrator.beginIfBlock("accepted = 0")
    integrator.addComputePerDof("x", "x_start")
    integrator.addComputeGlobal("h", "0.2*h")
    integrator.addComputeGlobal("rejected_steps", "rejected_steps + 1")
    integrator.endBlock()
    return integrator


class _Budget(openmm.MinimizationReporter):
    """Counts L-BFGS iterations, reports progress, stops on cancellation."""

    def __init__(self, done: int, steps: int, progress: PercentProgress):
        super().__init__()
        self.iterations = 0
        self._done = done
        self._steps = steps
        self._progress = progress

    def report(self, iteration: int, x: np.ndarray, grad: np.ndarray, args: dict[str, Any]) -> bool:
        self.iterations += 1
        if self.iterations % 10 == 0:
            self._progress(100 * (self._done + self.iterations) / self._steps)
        return cancel_requested()  # True stops the minimiser


def minimise(
    system: openmm.System,
    positions_nm: np.ndarray,
    box_vectors: Any,
    steps: int,
    platform: openmm.Platform,
    properties: dict[str, str],
    progress: PercentProgress,
) -> MinimisationResult:
    """Minimise `system` (left as it was on return) from `positions_nm` in at most `steps` steps."""
    constraints = [system.getConstraintParameters(index) for index in range(system.getNumConstraints())]
    for index in reversed(range(len(constraints))):
        system.removeConstraint(index)
    springs = openmm.HarmonicBondForce()
    springs.setForceGroup(_SPRING_GROUP)
    for first, second, length in constraints:
        springs.addBond(first, second, length, SPRING_KJ_MOL_NM2)
    spring_index = system.addForce(springs)
    try:
        context = openmm.Context(system, capped_descent_integrator(), platform, properties)
        try:
            return _run(context, positions_nm, box_vectors, steps, progress)
        finally:
            del context
    finally:
        system.removeForce(spring_index)
        for first, second, length in constraints:
            system.addConstraint(first, second, length)


def _run(context: openmm.Context, positions_nm: np.ndarray, box_vectors: Any, steps: int, progress: PercentProgress) -> MinimisationResult:
    if box_vectors is not None:
        context.setPeriodicBoxVectors(*box_vectors)
    context.setPositions(positions_nm)
    without_springs = {group for group in range(32) if group != _SPRING_GROUP}
    before = context.getState(getEnergy=True, groups=without_springs).getPotentialEnergy()
    before_kj = before.value_in_unit(unit.kilojoule_per_mole)
    largest_before = _largest_force(context)
    if not (math.isfinite(before_kj) and math.isfinite(largest_before)):
        raise EngineError(
            SIMULATION_UNSTABLE,
            "The energy is not a finite number before minimisation: atoms overlap or the structure is broken; check the structure or lower the density.",
        )
    integrator = context.getIntegrator()
    descent = _descend(context, integrator, 0, steps, progress, stop_below=SWITCH_FORCE_KJ_MOL_NM)
    lbfgs_steps, converged, failed = 0, False, False
    left = steps - descent
    if left > 0:
        start = context.getState(getPositions=True).getPositions(asNumpy=True)
        budget = _Budget(descent, steps, progress)
        try:
            openmm.LocalEnergyMinimizer.minimize(context, TOLERANCE_KJ_MOL_NM, left, budget)
            energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
            failed = not math.isfinite(energy)
        except openmm.OpenMMException:
            failed = True  # 'Particle coordinate is NaN': the line search stepped somewhere impossible
        raise_if_cancelled()
        lbfgs_steps = min(budget.iterations, left)
        converged = not failed and lbfgs_steps < left
        if failed:
            context.setPositions(start)
            descent += _descend(context, integrator, descent + lbfgs_steps, steps, progress)
    progress(100.0)
    final = context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    return MinimisationResult(
        steps_asked=steps,
        capped_descent_steps=descent,
        lbfgs_steps=lbfgs_steps,
        converged=converged,
        lbfgs_failed=failed,
        energy_before_kj_mol=before_kj,
        largest_force_before_kj_mol_nm=largest_before,
        positions_nm=np.asarray(final),
        engine=f"OpenMM {openmm.version.version}",
    )


def _descend(
    context: openmm.Context,
    integrator: openmm.CustomIntegrator,
    done: int,
    steps: int,
    progress: PercentProgress,
    stop_below: float | None = None,
) -> int:
    """Capped descent steps until `steps` have been taken in all (`done` of them before) or, with
    `stop_below`, the largest force is below it; returns the steps taken here."""
    taken = 0
    while done + taken < steps:
        if stop_below is not None and _largest_force(context) < stop_below:
            break
        chunk = min(CHECK_EVERY, steps - done - taken)
        integrator.step(chunk)
        taken += chunk
        raise_if_cancelled()
        progress(100 * (done + taken) / steps)
    return taken


def _largest_force(context: openmm.Context) -> float:
    forces = context.getState(getForces=True).getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer)
    return float(np.sqrt((np.asarray(forces) ** 2).sum(axis=1)).max()) if len(forces) else 0.0

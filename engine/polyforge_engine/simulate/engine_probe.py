"""Which engine runs a job's dynamics fastest here and now, measured on the job's own system.

Each candidate (OpenMM on its platform, mdrun on the job's threads, mdrun on one thread) runs
PROBE_STEPS steps from the minimised structure; the fastest runs the dynamics. The rate of a program
depends on the system, the build, the CPU and the node's load at the time, none of which a fixed rule
knows: on a busy node a second OpenMP thread can cost mdrun more than it brings (bench/README.md, "MD
speed at the CPUs a job has"). The probe's steps are thrown away, so it runs only when the dynamics
are at least REPAY_FACTOR times all the probe's steps (the probe then costs at most 1/REPAY_FACTOR
of the run, about what it gains where the engines differ by 5 % or more). A candidate that fails
(mdrun that cannot split the cell, a platform that cannot start) drops out; cancellation does not."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.cancellation import CANCELLED
from polyforge_engine.simulate.protocol import TIMESTEP_FS

PROBE_STEPS = 200
REPAY_FACTOR = 20


@dataclass(frozen=True)
class Candidate:
    name: str  # as the report shows it: "OpenMM CPU, 2 threads", "mdrun -nt 2 -pin off"
    engine: str  # "openmm" | "gromacs"
    threads: int
    run: Callable[[int], None]  # that many steps of the job's dynamics, leaving the job's state as it was
    prepare: Callable[[int], None] | None = None  # untimed set-up for a run of that many steps (grompp)


@dataclass(frozen=True)
class ProbeResult:
    chosen: Candidate
    ns_per_day: dict[str, float | None]  # each candidate's rate by name; None where it failed
    failures: dict[str, str]  # why a candidate dropped out, by name

    def as_report(self) -> dict[str, object]:
        return {
            "steps_each": PROBE_STEPS,
            "chosen": self.chosen.name,
            "ns_per_day": self.ns_per_day,
            **({"failed": self.failures} if self.failures else {}),
        }

    def describe(self) -> str:
        rates = ", ".join(f"{name} {rate:.3g} ns/day" if rate is not None else f"{name} failed" for name, rate in self.ns_per_day.items())
        return f"engine probe ({PROBE_STEPS} steps each): {rates}; the dynamics run on {self.chosen.name}"


def worth_probing(dynamics_steps: int, candidates: int) -> bool:
    """Whether a run of `dynamics_steps` repays a probe of `candidates` engines (module docstring)."""
    return candidates > 1 and dynamics_steps >= REPAY_FACTOR * PROBE_STEPS * candidates


def ns_per_day(steps: int, seconds: float) -> float:
    return steps * TIMESTEP_FS * 1e-6 * 86_400 / seconds


def probe_engines(candidates: list[Candidate], clock: Callable[[], float] = time.perf_counter) -> ProbeResult:
    """Each candidate's rate over PROBE_STEPS steps (timed by `clock`), and the fastest (the first of
    equals: the candidates come in order of preference). Raises when every candidate failed."""
    rates: dict[str, float | None] = {}
    failures: dict[str, str] = {}
    for candidate in candidates:
        try:
            if candidate.prepare is not None:
                candidate.prepare(PROBE_STEPS)
            started = clock()
            candidate.run(PROBE_STEPS)
        except EngineError as error:
            if error.code == CANCELLED:
                raise
            rates[candidate.name], failures[candidate.name] = None, error.message
            continue
        except Exception as error:
            rates[candidate.name], failures[candidate.name] = None, str(error)[:300]
            continue
        seconds = clock() - started
        rates[candidate.name] = ns_per_day(PROBE_STEPS, seconds) if seconds > 0 else None
    measured = [candidate for candidate in candidates if rates[candidate.name] is not None]
    if not measured:
        raise RuntimeError("no engine could run the probe: " + "; ".join(f"{name}: {why}" for name, why in failures.items()))
    chosen = max(measured, key=lambda candidate: rates[candidate.name] or 0.0)
    return ProbeResult(chosen, rates, failures)

"""Which engine runs a job's dynamics fastest here and now, measured on the job's own system.

Each candidate (OpenMM on its platform, mdrun on the job's threads, mdrun on one thread) runs
PROBE_STEPS steps from the minimised structure; the fastest runs the dynamics. The rate of a program
depends on the system, the build, the CPU and the node's load at the time, none of which a fixed rule
knows: on a busy node a second OpenMP thread can cost mdrun more than it brings (bench/README.md, "MD
speed at the CPUs a job has"). The probe's steps are thrown away, so it runs only when the dynamics
are at least REPAY_FACTOR times all the probe's steps (the probe then costs at most 1/REPAY_FACTOR
of the run, about what it gains where the engines differ by 5 % or more); a candidate that has
taken longer than the fastest so far is stopped there, so a slow one (two OpenMP threads on a busy
node, bench/README.md) costs no more than the best. A candidate that fails (mdrun that cannot
split the cell, a platform that cannot start) drops out; cancellation does not."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from polyforge_engine.events import EngineError
from polyforge_engine.runtime.cancellation import CANCELLED
from polyforge_engine.simulate.protocol import TIMESTEP_FS

PROBE_STEPS = 200
REPAY_FACTOR = 20


class SlowerThanBest(Exception):
    """A candidate stopped: it has already taken longer than the fastest one so far took for all the steps."""


@dataclass(frozen=True)
class Candidate:
    name: str  # as the report shows it: "OpenMM CPU, 2 threads", "mdrun -nt 2 -pin off"
    engine: str  # "openmm" | "gromacs"
    threads: int
    # That many steps of the job's dynamics, leaving the job's state as it was; the second argument is
    # called between chunks of steps and raises SlowerThanBest to stop the run.
    run: Callable[[int, Callable[[], None]], None]
    prepare: Callable[[int], None] | None = None  # untimed set-up for a run of that many steps (grompp)


@dataclass(frozen=True)
class ProbeResult:
    chosen: Candidate
    ns_per_day: dict[str, float | None]  # each candidate's rate by name; None where it failed
    failures: dict[str, str]  # why a candidate dropped out, by name
    stopped: list[str]  # candidates stopped once slower than the best: their rate is an upper bound

    def as_report(self) -> dict[str, object]:
        return {
            "steps_each": PROBE_STEPS,
            "chosen": self.chosen.name,
            "ns_per_day": self.ns_per_day,
            **({"failed": self.failures} if self.failures else {}),
            **({"stopped_slower": self.stopped} if self.stopped else {}),
        }

    def describe(self) -> str:
        rates = ", ".join(self._rate_text(name, rate) for name, rate in self.ns_per_day.items())
        return f"engine probe ({PROBE_STEPS} steps each): {rates}; the dynamics run on {self.chosen.name}"

    def _rate_text(self, name: str, rate: float | None) -> str:
        if rate is None:
            return f"{name} failed"
        return f"{name} {'at most ' if name in self.stopped else ''}{rate:.3g} ns/day"


def worth_probing(dynamics_steps: int, candidates: int) -> bool:
    """Whether a run of `dynamics_steps` repays a probe of `candidates` engines (module docstring)."""
    return candidates > 1 and dynamics_steps >= REPAY_FACTOR * PROBE_STEPS * candidates


def ns_per_day(steps: int, seconds: float) -> float:
    return steps * TIMESTEP_FS * 1e-6 * 86_400 / seconds


def probe_engines(candidates: list[Candidate], clock: Callable[[], float] = time.perf_counter) -> ProbeResult:
    """Each candidate's rate over PROBE_STEPS steps (timed by `clock`), and the fastest (the first of
    equals: the candidates come in order of preference). A candidate that has taken longer than the
    fastest so far took for all the steps is stopped there: its rate is then an upper bound, and it
    cannot win. Raises when every candidate failed."""
    rates: dict[str, float | None] = {}
    failures: dict[str, str] = {}
    stopped: list[str] = []
    best_s: float | None = None
    for candidate in candidates:
        seconds, failure, was_stopped = _measure(candidate, clock, best_s)
        rates[candidate.name] = ns_per_day(PROBE_STEPS, seconds) if seconds else None
        if failure is not None:
            failures[candidate.name] = failure
        elif was_stopped:
            stopped.append(candidate.name)
        elif seconds:
            best_s = min(seconds, best_s) if best_s is not None else seconds
    measured = [candidate for candidate in candidates if rates[candidate.name] is not None and candidate.name not in stopped]
    if not measured:
        raise RuntimeError("no engine could run the probe: " + "; ".join(f"{name}: {why}" for name, why in failures.items()))
    chosen = max(measured, key=lambda candidate: rates[candidate.name] or 0.0)
    return ProbeResult(chosen, rates, failures, stopped)


def _measure(candidate: Candidate, clock: Callable[[], float], best_s: float | None) -> tuple[float | None, str | None, bool]:
    """The seconds the candidate took for PROBE_STEPS steps or until it was stopped, slower than
    `best_s`; why it failed; whether it was stopped."""
    started = 0.0

    def stop_if_slower() -> None:
        if best_s is not None and clock() - started > best_s:
            raise SlowerThanBest

    try:
        if candidate.prepare is not None:
            candidate.prepare(PROBE_STEPS)
        started = clock()
        candidate.run(PROBE_STEPS, stop_if_slower)
    except SlowerThanBest:
        return clock() - started, None, True
    except EngineError as error:
        if error.code == CANCELLED:
            raise
        return None, error.message, False
    except Exception as error:  # OpenMM's errors are bare Exceptions; any failure drops the candidate
        return None, str(error)[:300], False
    return clock() - started, None, False

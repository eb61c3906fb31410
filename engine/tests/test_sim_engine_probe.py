"""The engine probe: on `auto`, a run long enough to repay it measures OpenMM and mdrun (on the job's
threads and on one) on the job's own minimised system and runs the dynamics on the fastest, with the
choice and every rate in the report and the bundle's README. The engines run for real on a small
melt; only the clock is fake, so that the decision is the test's to set."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import ETHYLENE, homopolymer_job
from openmm import app, unit
from polyforge_engine.bundle.writer import write_bundle
from polyforge_engine.commands.build_system import protocol_of
from polyforge_engine.events import EngineError
from polyforge_engine.job import parse_build_job
from polyforge_engine.parametrise.assemble import ParametrisedSystem, parametrise_system
from polyforge_engine.runtime.allocation import THREADS_ENV, CpuAllocation
from polyforge_engine.runtime.cancellation import CANCELLED
from polyforge_engine.runtime.md_engine import MD_ENGINE_ENV, find_gmx
from polyforge_engine.simulate import engine_probe, run
from polyforge_engine.simulate.engine_probe import Candidate, ProbeResult, SlowerThanBest, ns_per_day, probe_engines, worth_probing
from polyforge_engine.simulate.gromacs import MdrunProbe
from polyforge_engine.simulate.gromacs_run import GromacsInputs
from polyforge_engine.simulate.protocol import Protocol, Stage
from polyforge_engine.simulate.run import SimulationReport, run_protocol
from polymer_samples import PE_UNIT, melt

pytestmark = pytest.mark.skipif(find_gmx() is None, reason="GROMACS (gmx) is not installed")
SHORT_PROBE = 20  # steps per candidate here; the product's PROBE_STEPS are a few hundred


class FakeClock:
    """Time that moves only when a timed run says how long it took."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def timed(self, candidate: Candidate, seconds: float) -> Candidate:
        """`candidate` running for real and taking `seconds` of this clock's time."""

        def run_then_advance(steps: int, check: Callable[[], None]) -> None:
            candidate.run(steps, check)
            self.now += seconds

        return replace(candidate, run=run_then_advance)


def _quiet(*_: object, **__: object) -> None:
    pass


@pytest.fixture(scope="module")
def pe_melt(tmp_path_factory: pytest.TempPathFactory) -> ParametrisedSystem:
    return parametrise_system(melt(PE_UNIT, 10, "PE", 8, 3.0), "gaff2", tmp_path_factory.mktemp("pe_melt"), _quiet)


@pytest.fixture
def short_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Probes of SHORT_PROBE steps, repaid by runs of 5× their steps: small runs in a test."""
    monkeypatch.setattr(engine_probe, "PROBE_STEPS", SHORT_PROBE)
    monkeypatch.setattr(engine_probe, "REPAY_FACTOR", 5)
    monkeypatch.setenv(MD_ENGINE_ENV, "auto")


def _probe_timed(monkeypatch: pytest.MonkeyPatch, seconds: dict[str, float]) -> list[list[str]]:
    """The run's probe with every candidate run for real, each taking `seconds[name]` of a fake clock
    (10 s for one not named); returns the names the run offered, in its order."""
    offered: list[list[str]] = []

    def probe_with_fake_clock(candidates: list[Candidate]) -> ProbeResult:
        offered.append([candidate.name for candidate in candidates])
        clock = FakeClock()
        return probe_engines([clock.timed(candidate, seconds.get(candidate.name, 10.0)) for candidate in candidates], clock)

    monkeypatch.setattr(run, "probe_engines", probe_with_fake_clock)
    return offered


def _run(pe_melt: ParametrisedSystem, workdir: Path, protocol: Protocol) -> SimulationReport:
    workdir.mkdir(parents=True, exist_ok=True)
    files = pe_melt.files
    report, _ = run_protocol(files.amber_prmtop, files.amber_inpcrd, protocol, workdir, _quiet, files.gromacs_top)
    return report


def _readme(report: SimulationReport, protocol: Protocol, workdir: Path) -> str:
    """The README of the bundle the run's report goes into."""
    workdir.mkdir()
    bundle = write_bundle(workdir, "melt", "Melt", [], {"performance": report.performance}, protocol, report.stages, True)
    with zipfile.ZipFile(bundle) as archive:
        return archive.read("README.md").decode()


def test_the_fastest_measured_candidate_is_chosen_and_failures_drop_out() -> None:
    ran: list[tuple[str, int]] = []

    def runs(name: str) -> Candidate:
        return Candidate(name, "openmm", 1, lambda steps, check: ran.append((name, steps)))

    def fails(steps: int, check: Callable[[], None]) -> None:
        raise RuntimeError("mdrun -nt 2 failed: no domain decomposition")

    clock = FakeClock()
    candidates = [clock.timed(runs("a"), 4.0), Candidate("b", "gromacs", 2, fails), clock.timed(runs("c"), 2.0), clock.timed(runs("d"), 2.0)]
    result = probe_engines(candidates, clock)
    assert result.chosen.name == "c"  # the fastest; d is as fast but comes later
    assert ran == [("a", engine_probe.PROBE_STEPS), ("c", engine_probe.PROBE_STEPS), ("d", engine_probe.PROBE_STEPS)]
    assert result.ns_per_day == {
        "a": ns_per_day(engine_probe.PROBE_STEPS, 4.0),
        "b": None,
        "c": ns_per_day(engine_probe.PROBE_STEPS, 2.0),
        "d": ns_per_day(engine_probe.PROBE_STEPS, 2.0),
    }
    assert "no domain decomposition" in result.failures["b"]
    # 200 steps of 2 fs in 2 s: 0.4 ps in 2 s is 17.28 ns/day.
    assert ns_per_day(200, 2.0) == pytest.approx(17.28)


def test_cancellation_stops_the_probe_and_no_candidate_at_all_is_an_error() -> None:
    def cancelled(steps: int, check: Callable[[], None]) -> None:
        raise EngineError(CANCELLED, "cancelled")

    with pytest.raises(EngineError) as stopped:
        probe_engines([Candidate("a", "openmm", 1, cancelled), Candidate("b", "gromacs", 1, lambda steps, check: None)])
    assert stopped.value.code == CANCELLED

    def broken(steps: int, check: Callable[[], None]) -> None:
        raise ValueError("no platform")

    with pytest.raises(RuntimeError, match="no platform"):
        probe_engines([Candidate("a", "openmm", 1, broken)])


def test_a_candidate_slower_than_the_best_so_far_is_stopped_there() -> None:
    clock = FakeClock()
    finished: list[str] = []

    def chunks(name: str, seconds_each: float) -> Candidate:
        """Ten chunks of steps taking `seconds_each` of the clock, checked after each."""

        def run(steps: int, check: Callable[[], None]) -> None:
            for _ in range(10):
                clock.now += seconds_each
                check()
            finished.append(name)

        return Candidate(name, "gromacs", 1, run)

    result = probe_engines([chunks("a", 1.0), chunks("b", 3.0), chunks("c", 0.5)], clock)
    # b passed a's 10 s at its fourth chunk (12 s) and was stopped: its rate is at most that.
    assert finished == ["a", "c"] and result.stopped == ["b"] and result.chosen.name == "c"
    assert result.ns_per_day["b"] == ns_per_day(engine_probe.PROBE_STEPS, 12.0)
    assert result.as_report()["stopped_slower"] == ["b"] and "b at most" in result.describe()


def test_only_runs_that_repay_the_probe_are_probed() -> None:
    steps = engine_probe.PROBE_STEPS * engine_probe.REPAY_FACTOR
    assert worth_probing(3 * steps, 3) and not worth_probing(3 * steps - 1, 3)
    assert not worth_probing(10**9, 1)  # nothing to choose between


def test_mdrun_on_one_thread_measured_fastest_runs_the_dynamics(
    pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_probe: None
) -> None:
    monkeypatch.setenv(THREADS_ENV, "2")
    offered = _probe_timed(monkeypatch, {"mdrun -nt 2 -pin off": 2.0, "mdrun -nt 1 -pin off": 1.0, "OpenMM CPU, 2 threads": 3.0})
    protocol = Protocol(20, 300, 300.0, "NVT", 5)
    report = _run(pe_melt, tmp_path, protocol)
    assert offered == [["mdrun -nt 2 -pin off", "mdrun -nt 1 -pin off", "OpenMM CPU, 2 threads"]]
    performance = report.performance
    assert performance is not None
    assert str(performance["engine"]).startswith("GROMACS") and performance["threads"] == 1 and performance["mdrun_flags"] == "-nt 1 -pin off"
    assert performance["engine_probe"] == {
        "steps_each": SHORT_PROBE,
        "chosen": "mdrun -nt 1 -pin off",
        "ns_per_day": {
            "mdrun -nt 2 -pin off": ns_per_day(SHORT_PROBE, 2.0),
            "mdrun -nt 1 -pin off": ns_per_day(SHORT_PROBE, 1.0),
            "OpenMM CPU, 2 threads": ns_per_day(SHORT_PROBE, 3.0),
        },
    }
    md_log = (tmp_path / "gromacs" / "md.log").read_text()
    assert "Using 1 OpenMP thread" in md_log and "-reprod" not in md_log.split("Command line:", 1)[1].splitlines()[1]
    assert "engine probe (20 steps each)" in (tmp_path / "simulation.log").read_text()
    assert not (tmp_path / "gromacs" / "probe").exists()
    readme = _readme(report, protocol, tmp_path / "bundle")
    assert "chosen by a probe of 20 steps of each on this system" in readme and "mdrun -nt 1 -pin off" in readme
    assert "without `-reprod`" in readme


def test_openmm_measured_fastest_runs_from_the_minimised_state(
    pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_probe: None
) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    offered = _probe_timed(monkeypatch, {"OpenMM CPU, 1 threads": 1.0, "mdrun -nt 1 -pin off": 5.0})
    report = _run(pe_melt, tmp_path, Protocol(20, 200, 300.0, "NVT", 5))
    assert offered == [["mdrun -nt 1 -pin off", "OpenMM CPU, 1 threads"]]
    assert report.performance is not None and str(report.performance["engine"]).startswith("OpenMM")
    energies = np.loadtxt(tmp_path / "energies.csv", delimiter=",", skiprows=1, ndmin=2)
    # The probe's steps were undone: step 0 of the dynamics is the minimised structure at rest.
    assert energies[0, 0] == 0.0
    assert energies[0, 1] == pytest.approx(report.potential_energy_after_minimization_kj_mol, rel=1e-6)


def test_short_and_bit_reproducible_runs_are_not_probed(
    pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, short_probe: None
) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    offered = _probe_timed(monkeypatch, {})
    short = _run(pe_melt, tmp_path / "short", Protocol(20, 150, 300.0, "NVT", 5))  # under 5 × 2 × 20 steps
    assert short.performance is not None
    assert short.performance["engine_probe"] == {"skipped": "150 steps do not repay a probe of 2 engines"}
    reproducible = Protocol(20, 300, 300.0, "NVT", 5, bit_reproducible=True)
    exact = _run(pe_melt, tmp_path / "exact", reproducible)
    assert exact.performance is not None and offered == []
    assert exact.performance["mdrun_flags"] == "-reprod -ntmpi 1 -ntomp 1 -pin off"
    command_line = (tmp_path / "exact" / "gromacs" / "md.log").read_text().split("Command line:", 1)[1].splitlines()[1]
    assert "-reprod" in command_line and "-ntmpi 1" in command_line
    _run(pe_melt, tmp_path / "again", reproducible)  # asked for bit-reproducible dynamics: a rerun repeats them to the bit
    assert (tmp_path / "again" / "energies.csv").read_bytes() == (tmp_path / "exact" / "energies.csv").read_bytes()
    readme = _readme(exact, reproducible, tmp_path / "bundle")
    assert "the protocol asked for bit-reproducible dynamics" in readme and "not measured against each other: bit-reproducible" in readme


def test_the_job_asks_for_bit_reproducible_dynamics_and_is_off_by_default() -> None:
    job = homopolymer_job(ETHYLENE, 10, 2, density=0.5, seed=3)
    job["simulation_protocol"].update(dynamics=True, dynamics_steps=100, temperature=300, ensemble="NVT")
    assert protocol_of(parse_build_job(job), 3).bit_reproducible is False
    job["simulation_protocol"]["bit_reproducible"] = True
    assert protocol_of(parse_build_job(job), 3).bit_reproducible is True
    job["simulation_protocol"]["bit_reproducible"] = "yes"
    with pytest.raises(EngineError):
        parse_build_job(job)


def test_a_stopped_mdrun_probe_ends_its_mdrun(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    gmx = find_gmx()
    assert gmx is not None
    top = pe_melt.files.gromacs_top
    inputs = GromacsInputs(gmx, top, top.with_suffix(".gro"), CpuAllocation(1, False, "one thread"))
    start_nm = app.AmberInpcrdFile(str(pe_melt.files.amber_inpcrd)).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    steps = 1_000_000  # far more than the run may take before it is stopped
    probe = MdrunProbe(inputs, Protocol(0, steps, 300.0, "NVT", 5), Stage("NVT", 300.0, None, steps), (np.asarray(start_nm), (3.0, 3.0, 3.0)), tmp_path)
    probe.prepare(steps)
    checks: list[int] = []

    def slower_after_a_few_seconds() -> None:
        checks.append(1)
        if len(checks) == 20:  # checked every half second: mdrun has been stepping for a while
            raise SlowerThanBest

    with pytest.raises(SlowerThanBest):
        probe.runner(inputs.cpus)(steps, slower_after_a_few_seconds)
    # mdrun was stopped (SIGTERM, then SIGKILL if it lingers) before the run's end, and ended before
    # the probe went on.
    text = (tmp_path / "probe.log").read_text()
    assert f"Statistics over {steps + 1} steps" not in text
    assert "Received the TERM signal" in text or "Statistics over" not in text

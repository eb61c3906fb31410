"""The dynamics on GROMACS's mdrun where the engine setting chooses it, with the outputs of the
OpenMM path. The same short NVT of a small GAFF2 melt through both paths gives the same mean potential
energy and temperature within their statistical errors (block averages of each series); the engine
and thread settings are followed; a cancelled run leaves no mdrun behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import ETHYLENE, homopolymer_job
from engine_cli import run_engine
from openmm import app
from polyforge_engine.parametrise.assemble import ParametrisedSystem, parametrise_system
from polyforge_engine.runtime.allocation import THREADS_ENV
from polyforge_engine.runtime.md_engine import MD_ENGINE_ENV, choose_md_engine, find_gmx, gromacs_refusal
from polyforge_engine.simulate.equilibration import dynamics_stages
from polyforge_engine.simulate.gromacs_files import continuous, read_trr
from polyforge_engine.simulate.mdp import dynamics_mdp
from polyforge_engine.simulate.protocol import Protocol, gromacs_seed
from polyforge_engine.simulate.run import SimulationReport, run_protocol
from polymer_samples import PE_UNIT, melt

ENGINE_DIR = Path(__file__).resolve().parents[1]
needs_gmx = pytest.mark.skipif(find_gmx() is None, reason="GROMACS (gmx) is not installed")
BLOCKS = 5
# Student's t for the difference of two means of BLOCKS block averages each (about 2 × (BLOCKS - 1)
# degrees of freedom), two-sided at 99.9 %: the bound below is that many standard errors.
T_999 = 5.04


def _quiet(*_: object) -> None:
    pass


@pytest.fixture(scope="module")
def pe_melt(tmp_path_factory: pytest.TempPathFactory) -> ParametrisedSystem:
    return parametrise_system(melt(PE_UNIT, 10, "PE", 8, 3.0), "gaff2", tmp_path_factory.mktemp("pe_melt"), _quiet)


def _run(pe_melt: ParametrisedSystem, workdir: Path, protocol: Protocol) -> tuple[SimulationReport, np.ndarray]:
    workdir.mkdir(parents=True, exist_ok=True)
    files = pe_melt.files
    report, written = run_protocol(files.amber_prmtop, files.amber_inpcrd, protocol, workdir, _quiet, files.gromacs_top)
    return report, np.loadtxt(written.energies_csv, delimiter=",", skiprows=1, ndmin=2)


def _mean_and_error(series: np.ndarray) -> tuple[float, float]:
    """The mean and its standard error from BLOCKS block averages (the samples are correlated)."""
    blocks = np.array([block.mean() for block in np.array_split(series, BLOCKS)])
    return float(series.mean()), float(blocks.std(ddof=1) / np.sqrt(BLOCKS))


def test_the_setting_chooses_the_engine() -> None:
    def found() -> str:
        return "/usr/bin/gmx"

    def missing() -> None:
        return None

    assert choose_md_engine(None, "auto", found, lambda: False).engine == "gromacs"
    assert choose_md_engine(None, "auto", found, lambda: True).engine == "openmm"  # a GPU: OpenMM CUDA/OpenCL
    assert choose_md_engine(None, "auto", missing, lambda: False).engine == "openmm"
    assert choose_md_engine(None, " OpenMM ", found, lambda: False).engine == "openmm"
    assert choose_md_engine(None, "gromacs", found, lambda: True).engine == "gromacs"
    fallback = choose_md_engine(None, "gromacs", missing, lambda: False)
    assert (fallback.engine, fallback.note) == ("openmm", "asked for GROMACS, but gmx was not found; ran on OpenMM")
    walls = gromacs_refusal(True, True, False)
    assert walls is not None and choose_md_engine(walls, "gromacs", found, lambda: False).note == f"asked for GROMACS: {walls}"
    assert gromacs_refusal(False, False, False) is not None and gromacs_refusal(True, False, True) is not None
    assert gromacs_refusal(True, False, False) is None
    unknown = choose_md_engine(None, "lammps", found, lambda: False)
    assert unknown.engine == "openmm" and unknown.note is not None and "lammps" in unknown.note


@needs_gmx
@pytest.mark.parametrize(("engine", "threads"), [("gromacs", 2), ("openmm", 1)])
def test_the_run_follows_the_engine_and_thread_settings(
    pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str, threads: int
) -> None:
    monkeypatch.setenv(MD_ENGINE_ENV, engine)
    monkeypatch.setenv(THREADS_ENV, str(threads))
    report, energies = _run(pe_melt, tmp_path, Protocol(20, 100, 300.0, "NVT", 5))
    assert report.performance is not None
    assert str(report.performance["engine"]).startswith("GROMACS" if engine == "gromacs" else "OpenMM")
    assert report.performance["threads"] == threads and report.performance["md_engine_setting"] == engine
    assert energies.shape == (3, 10) and energies[-1, 0] == pytest.approx(0.2)  # steps 0, 50 and 100
    mdrun_log = tmp_path / "gromacs" / "md.log"
    assert mdrun_log.exists() == (engine == "gromacs")
    if engine == "gromacs":
        assert f"Using {threads} OpenMP threads" in mdrun_log.read_text()


@needs_gmx
def test_both_engines_sample_the_same_nvt(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    protocol = Protocol(100, 3000, 300.0, "NVT", 9)
    runs = {}
    for engine in ("openmm", "gromacs"):
        monkeypatch.setenv(MD_ENGINE_ENV, engine)
        runs[engine] = _run(pe_melt, tmp_path / engine, protocol)
    (openmm_report, openmm), (gromacs_report, gromacs) = runs["openmm"], runs["gromacs"]
    assert gromacs.shape == openmm.shape  # the same rows: steps 0, 50, …, 3000
    np.testing.assert_allclose(gromacs[:, 0], openmm[:, 0])
    # The same minimised coordinates at step 0: one force field, cutoff and PME splitting (single precision).
    assert gromacs[0, 1] == pytest.approx(openmm[0, 1], rel=1e-3, abs=1.0)
    for column, name in ((1, "potential energy"), (4, "temperature")):
        (a, a_error), (b, b_error) = (_mean_and_error(series[len(series) // 2 :, column]) for series in (openmm, gromacs))
        assert abs(a - b) <= T_999 * np.hypot(a_error, b_error), f"{name}: OpenMM {a:.1f} ± {a_error:.1f}, GROMACS {b:.1f} ± {b_error:.1f}"
    # The final structure is GROMACS's last frame, molecules whole: OpenMM's energy of it is mdrun's last.
    assert gromacs_report.final_potential_energy_kj_mol == pytest.approx(gromacs[-1, 1], rel=1e-3, abs=1.0)
    assert openmm_report.stages == gromacs_report.stages


@needs_gmx
def test_frames_are_continuous_and_the_dcd_matches_the_trr(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MD_ENGINE_ENV, "gromacs")
    report, _ = _run(pe_melt, tmp_path, Protocol(20, 130, 300.0, "NVT", 5))  # the last step is off the 50-step interval
    dcd = (tmp_path / "trajectory.dcd").read_bytes()
    assert int.from_bytes(dcd[8:12], "little") == 3  # steps 50, 100 and 130, as the OpenMM path records
    assert not list((tmp_path / "gromacs").glob("*.trr"))  # converted, then removed
    # mdrun wraps atoms into the box; the engine's positions keep every molecule whole, as OpenMM's do.
    bonds = np.array([(bond[0].index, bond[1].index) for bond in app.AmberPrmtopFile(str(pe_melt.files.amber_prmtop)).topology.bonds()])
    lengths = np.linalg.norm(report.final_positions[bonds[:, 0]] - report.final_positions[bonds[:, 1]], axis=1)
    assert lengths.max() < 2.0
    box = (3.0, 3.0, 3.0)
    assert np.allclose(continuous(report.final_positions / 10, report.final_positions / 10 - box, box), report.final_positions / 10)


def test_any_seed_a_job_may_give_is_one_grompp_reads() -> None:
    protocol = Protocol(0, 100, 300.0, "NVT", 2**53 - 1)  # the contracts' largest seed
    mdp = dynamics_mdp(protocol, dynamics_stages(protocol)[0])
    assert 0 <= gromacs_seed(protocol.seed) < 2**31 - 1 and f"gen-seed        = {gromacs_seed(protocol.seed)}" in mdp
    assert gromacs_seed(12345) == 12345


def test_trr_frames_are_read_as_gromacs_wrote_them(tmp_path: Path) -> None:
    atoms = 4
    header = (1993).to_bytes(4, "big") + (13).to_bytes(4, "big") + (12).to_bytes(4, "big") + b"GMX_trn_file"
    sizes = [0, 0, 36, 0, 0, 0, 0, 12 * atoms, 0, 0, atoms, 150, 0]
    box = np.diag([3.0, 3.1, 3.2]).astype(">f4")
    positions = (np.arange(3 * atoms).reshape(atoms, 3) / 7).astype(">f4")
    frame = header + np.array(sizes, ">i4").tobytes() + np.array([0.3, 0.0], ">f4").tobytes() + box.tobytes() + positions.tobytes()
    (tmp_path / "two.trr").write_bytes(frame + frame)
    frames = list(read_trr(tmp_path / "two.trr"))
    assert [f.step for f in frames] == [150, 150]
    assert frames[1].box_nm == pytest.approx((3.0, 3.1, 3.2)) and np.allclose(frames[1].positions_nm, positions)


@needs_gmx
def test_a_job_on_either_engine_gives_the_same_files_and_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = homopolymer_job(ETHYLENE, 10, 6, cell_sides=[22.0, 22.0, 22.0], density=None, seed=3)
    job["system_setup"]["cell_dimension_selector"] = "cell_sides"
    job["simulation_protocol"].update(minimization_steps=20, dynamics=True, dynamics_steps=200, temperature=300, ensemble="NPT")
    seen = {}
    for engine in ("openmm", "gromacs"):
        monkeypatch.setenv(MD_ENGINE_ENV, engine)
        code, events = run_engine("build-system", job, tmp_path / engine)
        assert code == 0, events[-1]
        dynamics = [event for event in events if event.get("stage") == "dynamics"]
        assert dynamics and {"simulated_ns", "total_ns", "remaining_s"} <= dynamics[-1].keys()
        with zipfile.ZipFile(tmp_path / engine / events[-1]["files"]["bundle"]) as bundle:
            readme = bundle.read("README.md").decode()
            header = (tmp_path / engine / "simulation" / "energies.csv").read_text().splitlines()[0]
            seen[engine] = (events[-1]["files"].keys(), sorted(bundle.namelist()), header)
        performance = events[-1]["summary"]["performance"]
        assert str(performance["engine"]).startswith("GROMACS" if engine == "gromacs" else "OpenMM") and performance["ns_per_day"] > 0
        assert ("dynamics on GROMACS" in readme) == (engine == "gromacs")
    assert seen["openmm"] == seen["gromacs"]


@needs_gmx
def test_sigterm_stops_mdrun_with_the_engine(tmp_path: Path) -> None:
    job = homopolymer_job(ETHYLENE, 10, 4, density=0.1)
    job["simulation_protocol"].update(dynamics=True, dynamics_steps=5_000_000, temperature=300, ensemble="NVT")
    (tmp_path / "job.json").write_text(json.dumps(job))
    command = [sys.executable, "-m", "polyforge_engine", "build-system", "--input", str(tmp_path / "job.json"), "--workdir", str(tmp_path / "work")]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", MD_ENGINE_ENV: "gromacs"}
    process = subprocess.Popen(command, cwd=ENGINE_DIR, stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    for line in process.stdout:
        if json.loads(line).get("stage") == "dynamics":
            break
    assert _mdrun_processes(tmp_path), "mdrun runs the dynamics"
    process.send_signal(signal.SIGTERM)
    last = json.loads(process.stdout.read().strip().splitlines()[-1])
    assert process.wait(timeout=120) != 0 and last["code"] == "CANCELLED"  # a hang guard, not a speed claim
    assert not _mdrun_processes(tmp_path)


def _mdrun_processes(under: Path) -> list[int]:
    """Processes whose working directory lies under `under` and that run gmx."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if cwd.startswith(str(under)) and b"mdrun" in cmdline:
            found.append(int(pid))
    return found

"""OpenMM protocol on a parametrised PE-10 melt: minimisation, NVT, NVE, seeds, walls, SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ETHYLENE, homopolymer_job
from openmm import app
from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.assemble import ParametrisedSystem, parametrise_system
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.simulate.run import run_protocol
from polymer_samples import PE_UNIT, melt

ENGINE_DIR = Path(__file__).resolve().parents[1]


def _no_progress(stage: str, percent: float, *_: object) -> None:
    pass


@pytest.fixture(scope="module")
def pe_melt(tmp_path_factory: pytest.TempPathFactory) -> ParametrisedSystem:
    system = melt(PE_UNIT, 10, "PE", 8, 3.0)
    return parametrise_system(system, "gaff2", tmp_path_factory.mktemp("pe_melt"), _no_progress)


def _run(pe_melt: ParametrisedSystem, workdir: Path, **settings: object) -> tuple[object, np.ndarray]:
    workdir.mkdir(parents=True, exist_ok=True)
    defaults: dict[str, object] = {
        "minimization_steps": 100,
        "dynamics_steps": 1000,
        "temperature_k": 300.0,
        "ensemble": "NVT",
        "seed": 11,
    }
    protocol = Protocol(**{**defaults, **settings})  # type: ignore[arg-type]
    report, files = run_protocol(pe_melt.files.amber_prmtop, pe_melt.files.amber_inpcrd, protocol, workdir, _no_progress)
    energies = np.loadtxt(files.energies_csv, delimiter=",", skiprows=1, ndmin=2) if protocol.dynamics_steps else np.empty((0, 6))
    return report, energies


def test_minimisation_lowers_the_potential_energy(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    report, _ = _run(pe_melt, tmp_path, dynamics_steps=0)
    assert report.potential_energy_after_minimization_kj_mol < report.potential_energy_before_minimization_kj_mol
    assert (tmp_path / "minimized.pdb").is_file()
    assert not (tmp_path / "trajectory.dcd").exists()


def test_nvt_holds_the_temperature(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    report, energies = _run(pe_melt, tmp_path, ensemble="NVT")
    assert np.isfinite(energies).all()
    second_half = energies[len(energies) // 2 :, 4]
    assert abs(second_half.mean() - 300) <= 30
    assert energies[-1, 0] == pytest.approx(2.0)  # 1000 steps of 2 fs
    assert energies[:, 5] == pytest.approx(energies[0, 5])  # constant volume: constant density
    assert report.final_temperature_k == pytest.approx(energies[-1, 4], rel=1e-3)
    assert (tmp_path / "trajectory.dcd").read_bytes()[4:8] == b"CORD"  # a DCD header


def test_nve_conserves_total_energy(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    _, energies = _run(pe_melt, tmp_path, ensemble="NVE")
    # Row 0 is the state as set up (full-step velocities); the leapfrog reports half-step
    # velocities from then on, so conservation is measured over the integrated steps.
    total = energies[1:, 3]
    assert np.isfinite(total).all()
    assert abs(total.mean()) > 100  # a meaningful reference for a relative bound
    assert (total.max() - total.min()) <= 0.01 * abs(total.mean())
    assert energies[:, 4].mean() > 100  # velocities were drawn at the temperature


def test_same_seed_gives_the_same_trajectory(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    runs = {}
    for name, seed in (("first", 5), ("again", 5), ("other", 6)):
        _run(pe_melt, tmp_path / name, dynamics_steps=200, seed=seed)
        # the files' headers carry creation times; compare what the dynamics produced
        atoms = [line for line in (tmp_path / name / "final.pdb").read_text().splitlines() if line.startswith(("ATOM", "HETATM"))]
        runs[name] = ((tmp_path / name / "energies.csv").read_text(), atoms)
    assert runs["first"] == runs["again"]
    assert runs["first"][0] != runs["other"][0]


def test_walls_keep_atoms_inside_the_cell(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    _run(pe_melt, tmp_path, potential_wall_z=True, dynamics_steps=500)
    cell_height = float(pe_melt.structure.box[2])
    final = app.PDBFile(str(tmp_path / "final.pdb"))
    z = np.array([position.z for position in final.positions.value_in_unit(final.positions.unit)]) * 10  # Å
    assert z.min() > -1.0
    assert z.max() < cell_height + 1.0


def test_cell_smaller_than_twice_the_cutoff_is_refused(tmp_path: Path) -> None:
    system = melt(PE_UNIT, 3, "PE", 1, 1.5)
    parametrised = parametrise_system(system, "gaff2", tmp_path / "topology", _no_progress)
    with pytest.raises(EngineError) as error:
        run_protocol(
            parametrised.files.amber_prmtop,
            parametrised.files.amber_inpcrd,
            Protocol(10, 0, 300.0, "NVT", 1),
            tmp_path,
            _no_progress,
        )
    assert error.value.code == "CELL_TOO_SMALL"


def test_sigterm_stops_build_system_promptly_with_cancelled(tmp_path: Path) -> None:
    job = homopolymer_job(ETHYLENE, 10, 4, density=0.1)
    job["simulation_protocol"].update(dynamics=True, dynamics_steps=5_000_000, temperature=300, ensemble="NVT")
    (tmp_path / "job.json").write_text(json.dumps(job))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "polyforge_engine",
            "build-system",
            "--input",
            str(tmp_path / "job.json"),
            "--workdir",
            str(tmp_path / "work"),
        ],
        cwd=ENGINE_DIR,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(json.loads(line))
        if lines[-1].get("stage") == "dynamics":
            break
    assert lines[-1].get("stage") == "dynamics", lines[-1]
    process.send_signal(signal.SIGTERM)
    rest = process.stdout.read()
    code = process.wait(timeout=120)  # a hang guard, not a speed claim
    last = json.loads(rest.strip().splitlines()[-1])
    assert code != 0
    assert last["event"] == "error" and last["code"] == "CANCELLED"
    assert not list((tmp_path / "work").glob("*_files.zip"))

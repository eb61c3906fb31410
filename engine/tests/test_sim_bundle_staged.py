"""The bundle of a melt-equilibration run: every stage's inputs carry their own seed; the Amber inputs
run in a cell the barostat has shrunk (where sander's default pair-list skin is refused); the final
state restarts, velocities and cell included; no file names the machine, its user or the job's
directory. Also what the README says of NVE and the pair-list skins, from the writer alone."""

from __future__ import annotations

import getpass
import os
import re
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import parmed
import pytest
from conftest import ETHYLENE, homopolymer_job
from engine_cli import build_unpacked_bundle
from polyforge_engine.bundle.writer import amber_skins, write_bundle
from polyforge_engine.simulate.equilibration import dynamics_stages
from polyforge_engine.simulate.protocol import Protocol, Stage
from restart_files import final_state_temperature_k

ENGINE_DIR = Path(__file__).resolve().parents[1]
SEED = 7
STAGES = 21


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """12 C20 chains at 0.4 g/cm³ (a 24 Å cell, just above twice sander's cutoff plus skin), the
    melt equilibration at its minimum of 420 steps; (unpacked bundle, job directory, result)."""
    work = tmp_path_factory.mktemp("staged")
    job = homopolymer_job(ETHYLENE, 10, 12, density=0.4, seed=SEED)
    job["system"]["name"] = "PE staged"
    job["simulation_protocol"].update(dynamics=True, dynamics_steps=420, temperature=300, ensemble="NPT", equilibration="melt_21_step")
    unpacked, workdir, result = build_unpacked_bundle(job, work)
    return unpacked, workdir, result


def _sander(where: Path, inp: str, start: str, name: str) -> subprocess.CompletedProcess:
    (where / f"{name}.in").write_text(inp)
    return subprocess.run(
        ["sander", "-O", "-i", f"{name}.in", "-p", "system.prmtop", "-c", start, "-o", f"{name}.out", "-r", f"{name}.rst7"],
        cwd=where,
        capture_output=True,
        text=True,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "OMP_NUM_THREADS": "1", "HOME": str(where), "AMBERHOME": os.environ.get("AMBERHOME", "")},
    )


def test_every_stage_has_its_own_seed(staged: tuple[Path, Path, dict]) -> None:
    where, _, result = staged
    assert result["seed"] == SEED
    ld, gen, ig = [], [], []
    for number in range(1, STAGES + 1):
        mdp = (where / f"equilibration_{number:02d}.mdp").read_text()
        ld += [int(value) for value in re.findall(r"^ld-seed\s*=\s*(\d+)", mdp, re.M)]
        gen += [int(value) for value in re.findall(r"^gen-seed\s*=\s*(\d+)", mdp, re.M)]
        ig += [int(value) for value in re.findall(r"\big=(\d+)", (where / f"equilibration_{number:02d}.in").read_text())]
    assert ld == ig == [SEED + index for index in range(STAGES)]  # every stage is thermostatted
    assert gen == [SEED]  # velocities are drawn once, at the first stage


def test_readme_openmm_snippet_runs_with_the_runs_seed(staged: tuple[Path, Path, dict]) -> None:
    """The README's OpenMM lines run (10 steps here, not the 1,000 it shows) with OpenMM's seed of
    the run: OpenMM takes seed 0 as 'draw one', so the engine adds 1."""
    where, _, _ = staged
    block = re.search(r"## Continue in OpenMM\n.*?```python\n(.*?)```", (where / "README.md").read_text(), re.S)
    assert block and f"integrator.setRandomNumberSeed({SEED + 1})" in block.group(1)
    code = block.group(1).replace("simulation.step(1000)", "simulation.step(10)")
    run = subprocess.run([sys.executable, "-c", code], cwd=where, capture_output=True, text=True, env={**os.environ, "OPENMM_CPU_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-3000:]


def _molecule_centres_scaled(restart: parmed.amber.Rst7, atoms_per_molecule: list[int], side_a: float) -> parmed.amber.Rst7:
    """`restart` in a cubic cell of `side_a`: each molecule moved whole with its centre scaled, as a
    barostat compresses a melt."""
    coordinates = restart.coordinates.reshape(-1, 3).copy()
    factor = side_a / float(restart.box[0])
    start = 0
    for count in atoms_per_molecule:
        molecule = coordinates[start : start + count]
        centre = molecule.mean(axis=0)
        coordinates[start : start + count] = molecule + centre * (factor - 1)
        start += count
    compressed = parmed.amber.Rst7(natom=restart.natom, title="compressed")
    compressed.coordinates = coordinates
    compressed.box = [side_a] * 3 + [90.0] * 3
    return compressed


MINIMISE_IN = """Minimise the compressed cell
 &cntrl
  imin=1, maxcyc=300, ncyc=100, ntb=1, cut=10.0, ntxo=1,
 /
 &ewald skinnb=0.0, /
"""


def test_amber_stages_run_after_the_cell_shrank(staged: tuple[Path, Path, dict]) -> None:
    """From the run's final state compressed to a 23.3 Å cell (below the 24 Å that sander's default
    2 Å skin needs with a 10 Å cutoff; the cell where sander stopped at stage 10) and minimised
    there, stage 10 (the NVT after the 50 kbar stage) and stage 21 (NPT) run as written; the same
    stage without the bundle's skin is refused, so the cell does test the skin."""
    where, _, _ = staged
    restart = parmed.amber.Rst7.open(str(where / "final.rst7"))
    molecules = list(parmed.amber.AmberParm(str(where / "system.prmtop")).parm_data["ATOMS_PER_MOLECULE"])
    assert sum(molecules) == restart.natom and float(restart.box[0]) > 23.5
    _molecule_centres_scaled(restart, molecules, 23.3).write(str(where / "compressed_start.rst7"))
    minimised = _sander(where, MINIMISE_IN, "compressed_start.rst7", "compressed_min")
    assert minimised.returncode == 0, (where / "compressed_min.out").read_text()[-3000:]
    relaxed = parmed.amber.Rst7.open(str(where / "compressed_min.rst7"))
    compressed = parmed.amber.Rst7(natom=restart.natom, title="compressed")
    compressed.coordinates = relaxed.coordinates
    compressed.vels = restart.vels  # the run's thermal velocities
    compressed.box = relaxed.box
    compressed.write(str(where / "compressed.rst7"))
    for number in (10, 21):
        inp = (where / f"equilibration_{number:02d}.in").read_text()
        run = _sander(where, inp, "compressed.rst7", f"compressed_{number}")
        out = (where / f"compressed_{number}.out").read_text()
        assert run.returncode == 0, out[-3000:]
        assert "A V E R A G E S   O V E R      20 S T E P S" in out
    default_skin = re.sub(r"^ &ewald.*\n", "", (where / "equilibration_10.in").read_text(), flags=re.M)
    refused = _sander(where, default_skin, "compressed.rst7", "default_skin")
    assert refused.returncode != 0
    assert "skinnb+cutoffnb" in (where / "default_skin.out").read_text()


def test_readme_amber_loop_runs_every_stage(staged: tuple[Path, Path, dict]) -> None:
    where, _, _ = staged
    block = re.search(r"## Continue in Amber\n.*?```\n(.*?)```", (where / "README.md").read_text(), re.S)
    assert block and "for stage in 01 02" in block.group(1)
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.group(1)],
        cwd=where,
        capture_output=True,
        text=True,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "OMP_NUM_THREADS": "1", "HOME": str(where), "AMBERHOME": os.environ.get("AMBERHOME", "")},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    for number in range(1, STAGES + 1):
        assert "A V E R A G E S   O V E R      20 S T E P S" in (where / f"equilibration_{number:02d}.out").read_text(), number


def test_the_final_state_restarts_with_velocities_and_cell(staged: tuple[Path, Path, dict]) -> None:
    """final.gro and final.rst7 hold the same positions, velocities and cell; the temperature of
    their velocities is the run's last recorded one (OpenMM's, from the same velocities)."""
    where, _, result = staged
    assert final_state_temperature_k(where) == pytest.approx(result["summary"]["final_temperature_k"], rel=0.01)


def test_no_file_names_the_machine(staged: tuple[Path, Path, dict]) -> None:
    """Every text file of the bundle, ParmEd's system.top included, is free of the job's directory,
    the engine's, the user name and the host name."""
    _, workdir, result = staged
    paths = {str(workdir), str(workdir.resolve()), str(workdir.parent), str(ENGINE_DIR), str(ENGINE_DIR.parent)}
    words = {getpass.getuser(), socket.gethostname()}
    texts = 0
    with zipfile.ZipFile(workdir / result["files"]["bundle"]) as archive:
        for name in archive.namelist():
            try:
                text = archive.read(name).decode()
            except UnicodeDecodeError:
                continue  # trajectory.dcd
            texts += 1
            for fragment in paths:
                assert fragment not in text, (name, fragment)
            for word in words:
                assert not re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w.-])", text), (name, word)
    assert texts > 50  # README, the 42 stage inputs, the topologies, coordinates, log and report


def _readme(tmp_path: Path, stages: list[Stage], protocol: Protocol) -> str:
    bundle = write_bundle(tmp_path, "x", "x", [], {}, protocol, stages, periodic=True, cell_a=np.array([30.0, 30.0, 30.0]))
    with zipfile.ZipFile(bundle) as archive:
        return archive.read("README.md").decode()


def test_readme_says_nve_is_not_thermalised(tmp_path: Path) -> None:
    nve = Protocol(0, 100, 300.0, "NVE", 1)
    assert "NVE is not thermalised first" in _readme(tmp_path, dynamics_stages(nve), nve)
    nvt = Protocol(0, 100, 300.0, "NVT", 1)
    assert "NVE is not thermalised" not in _readme(tmp_path, dynamics_stages(nvt), nvt)


def test_amber_skin_fits_the_smallest_cell_each_stage_can_meet() -> None:
    """Half the smallest side minus the 10 Å cutoff, at most sander's default (None), up to the first
    NPT stage; none from there on (the cell may shrink to twice the cutoff)."""
    stages = dynamics_stages(Protocol(0, 420, 300.0, "NPT", 1, equilibration="melt_21_step"))
    skins = amber_skins(stages, np.array([23.3, 25.0, 25.0]))
    assert skins[:2] == [pytest.approx(23.3 / 2 - 10 - 0.05), pytest.approx(23.3 / 2 - 10 - 0.05)]
    assert skins[2:] == [0.0] * (STAGES - 2)  # stage 3 is the first NPT stage
    assert amber_skins(stages[:2], np.array([40.0, 40.0, 40.0])) == [None, None]
    assert amber_skins(stages, None) == [None] * STAGES

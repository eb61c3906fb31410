"""generate-potential on whole uploaded systems against whole-system peers (issue 21, bench/README.md
section "Potentials"), side by side in one run:

- inputs, as a user uploads them (.gro): a box of 1,000 ethanol molecules (9,000 atoms, one
  ethanol from convert-smiles tiled on a 10 x 10 x 10 grid, 5 nm cube), and one ~2,000-atom
  polyethylene chain (PE-333) built by the engine's build-structure;
- PolyForge: `python -m polyforge_engine generate-potential` (GAFF2, AM1-BCC, net charge 0, 0
  minimisation steps), the whole command;
- one whole-system antechamber run (`-c bcc -at gaff2 -nc 0`) on the same structure as .pdb;
- acpype (PyPI, in a bench-only venv given by --acpype; it calls the same antechamber) on the same .pdb.
Peers are capped at --cap seconds (their whole process group is killed then).

Run from the repository root:
    python3 -m venv /tmp/bench-acpype && /tmp/bench-acpype/bin/pip install acpype
    .venv/bin/python bench/potentials/run.py --acpype /tmp/bench-acpype/bin/acpype --cap 120
Results: bench/potentials/out/results.json (not committed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "engine" / "tests"))
from conftest import ETHYLENE, homopolymer_job  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
ENGINE = [sys.executable, "-m", "polyforge_engine"]
TOOLS = Path(sys.executable).parent  # antechamber, sqm, parmchk2 of the engine's environment


def timed(command: list[str], cwd: Path, cap: float) -> dict:
    """Runs `command` in its own process group; wall time, exit code and the last lines it printed."""
    cwd.mkdir(parents=True, exist_ok=True)
    own = Path(command[0]).parent  # acpype's venv holds the obabel it calls
    env = {**os.environ, "PATH": f"{own}:{TOOLS}:{os.environ.get('PATH', '/usr/bin:/bin')}", "PYTHONPATH": str(REPO / "engine"), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    with open(cwd / "stdout.txt", "w") as out, open(cwd / "stderr.txt", "w") as err:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err, env=env, start_new_session=True)
        try:
            code = process.wait(timeout=cap)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code, timed_out = None, True
    wall = time.perf_counter() - start
    tail = ((cwd / "stdout.txt").read_text() + (cwd / "stderr.txt").read_text()).strip().splitlines()[-6:]
    return {"wall_s": round(wall, 2), "exit_code": code, "timed_out": timed_out, "tail": tail}


def engine(command: str, job: dict, workdir: Path, cap: float = 3600) -> dict:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "job.json").write_text(json.dumps(job))
    run = timed([*ENGINE, command, "--input", "job.json", "--workdir", "."], workdir, cap)
    lines = [line for line in (workdir / "stdout.txt").read_text().splitlines() if line.startswith("{")]
    run["result"] = json.loads(lines[-1]) if lines else None
    return run


def ethanol_box(workdir: Path) -> Path:
    made = engine("convert-smiles", {"smiles": "CCO"}, workdir / "ethanol")
    assert made["exit_code"] == 0, made
    lines = (workdir / "ethanol" / "structure.gro").read_text().splitlines()
    atoms = lines[2 : 2 + int(lines[1])]
    xyz = np.array([[float(row[20 + 8 * k : 28 + 8 * k]) for k in range(3)] for row in atoms])
    xyz -= xyz.mean(axis=0)
    rows, spacing = [], 0.5  # nm
    for number, cell in enumerate(np.ndindex(10, 10, 10)):
        point = (np.array(cell) + 0.5) * spacing
        for index, (row, p) in enumerate(zip(atoms, xyz + point, strict=True)):
            residue = (number + 1) % 100000
            atom = (9 * number + index + 1) % 100000
            rows.append(f"{residue:5d}{'ETH':<5}{row[10:15]}{atom:5d}" + "".join(f"{v:8.3f}" for v in p))
    path = workdir / "ethanol_1000.gro"
    path.write_text("\n".join(["1000 ethanol", f"{len(rows):5d}", *rows, f"{10 * spacing:10.5f}" * 3]) + "\n")
    return path


def pe_chain(workdir: Path) -> Path:
    job = homopolymer_job(ETHYLENE, 333, 1, density=0.05)
    built = engine("build-structure", job, workdir / "pe")
    assert built["exit_code"] == 0, built
    path = workdir / "pe_333.gro"
    shutil.copy(workdir / "pe" / "system.gro", path)
    return path


def as_pdb(gro: Path) -> Path:
    pdb = gro.with_suffix(".pdb")
    subprocess.run(["gmx", "-quiet", "editconf", "-f", str(gro), "-o", str(pdb)], check=True, capture_output=True)
    return pdb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", type=float, default=120.0, help="seconds each peer may run")
    parser.add_argument("--acpype", default=None, help="acpype executable of a bench-only venv")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    inputs = {"ethanol_1000": ethanol_box(OUT / "inputs"), "pe_333": pe_chain(OUT / "inputs")}
    results: dict = {"cap_s": args.cap, "load_before": os.getloadavg(), "systems": {}}
    for name, gro in inputs.items():
        atoms = int(gro.read_text().splitlines()[1])
        pdb = as_pdb(gro)
        row: dict = {"atoms": atoms}
        job = {"structure_file": str(gro), "force_field": "GAFF2", "charge": 0, "minimization_steps": 0,
               "system": {"name": name, "sanitized_name": name}}  # fmt: skip
        run = engine("generate-potential", job, OUT / name / "polyforge")
        summary = (run.pop("result") or {}).get("summary") or {}
        run["parametrisation_s"] = (summary.get("performance") or {}).get("parametrisation_s")
        run["molecules"] = summary.get("molecules")
        row["polyforge"] = run
        row["antechamber"] = timed(
            [str(TOOLS / "antechamber"), "-i", str(pdb), "-fi", "pdb", "-o", "whole.mol2", "-fo", "mol2",
             "-c", "bcc", "-nc", "0", "-at", "gaff2", "-pf", "y"],
            OUT / name / "antechamber", args.cap,
        )  # fmt: skip
        if args.acpype:
            row["acpype"] = timed([args.acpype, "-i", str(pdb), "-c", "bcc", "-n", "0", "-a", "gaff2", "-o", "gmx"], OUT / name / "acpype", args.cap)
        results["systems"][name] = row
        print(name, json.dumps(row, indent=1), flush=True)
    results["load_after"] = os.getloadavg()
    (OUT / "results.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

"""MD speed as PolyForge runs it against plain `gmx mdrun` on the same bundle (issue 27).

1. The engine's `build-system` builds and parametrises a PE-100 melt (16 chains, 9,632 atoms, 0.8 g/cm³,
   GAFF2), minimises it and writes its bundle (system.top, md.mdp, minimized.gro, system.prmtop,
   minimized.rst7).
2. The same dynamics (NVT 300 K, PME 1.0 nm, H-bond constraints, 2 fs; STEPS steps) run alternately,
   at 1 and at 2 threads, REPEATS times each:
   - OpenMM as the engine runs it: `run_protocol` from minimized.rst7, recording included
     (energies.csv and trajectory.dcd), POLYFORGE_ENGINE_THREADS set, POLYFORGE_MD_ENGINE=openmm;
     ns/day from its report;
   - PolyForge on GROMACS: the same `run_protocol` with POLYFORGE_MD_ENGINE=gromacs and the bundle's
     system.top (grompp, mdrun -reprod, gmx energy and the DCD conversion all inside its dynamics
     time); ns/day from its report (wall time of the whole dynamics stage) and mdrun's own figure;
   - GROMACS: `gmx grompp` with the bundle's md.mdp and minimized.gro, `gmx mdrun -nt N -nsteps STEPS`
     (defaults otherwise); ns/day from md.log.
   Ratios are each PolyForge engine over plain GROMACS, taken between runs next to each other, so that
   the shared machine's load moves both.

Run from the repository root (gmx from Debian: `make gromacs`):
    .venv/bin/python bench/md/run_bench.py [--steps 1000] [--repeats 2]
Results: bench/md/out/results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "engine"))
sys.path.insert(0, str(REPO / "engine" / "tests"))

from conftest import ETHYLENE, homopolymer_job  # noqa: E402
from engine_cli import run_engine  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"


def build_bundle(workdir: Path, chains: int = 16) -> Path:
    """A PE-100 melt of `chains` chains at 0.8 g/cm³, built and unpacked in `workdir`/bundle."""
    job = homopolymer_job(ETHYLENE, 100, chains, density=0.8, seed=1)
    job["simulation_protocol"].update(minimization_steps=200, dynamics=True, dynamics_steps=100, temperature=300, ensemble="NVT")
    code, events = run_engine("build-system", job, workdir)
    if code != 0:
        raise SystemExit(f"build-system failed: {events[-1]}")
    bundle = workdir / "bundle"
    with zipfile.ZipFile(workdir / events[-1]["files"]["bundle"]) as archive:
        archive.extractall(bundle)
    return bundle


def run_polyforge(bundle: Path, steps: int, threads: int, workdir: Path, engine: str) -> dict[str, object]:
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from polyforge_engine.simulate.protocol import Protocol\n"
        "from polyforge_engine.simulate.run import run_protocol\n"
        "b, w = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "w.mkdir(parents=True, exist_ok=True)\n"
        f"report, _ = run_protocol(b / 'system.prmtop', b / 'minimized.rst7', Protocol(0, {steps}, 300.0, 'NVT', 7), w, lambda *_: None,"
        " b / 'system.top')\n"
        "print(json.dumps(report.performance))\n"
    )
    env = {**os.environ, "POLYFORGE_ENGINE_THREADS": str(threads), "POLYFORGE_MD_ENGINE": engine}
    run = subprocess.run(
        [sys.executable, "-c", code, str(bundle), str(workdir)],
        cwd=REPO / "engine",
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def run_gromacs(bundle: Path, steps: int, threads: int, workdir: Path) -> dict[str, object]:
    workdir.mkdir(parents=True, exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "OMP_NUM_THREADS": str(threads)}
    subprocess.run(
        ["gmx", "-quiet", "grompp", "-f", bundle / "md.mdp", "-c", bundle / "minimized.gro", "-p", bundle / "system.top",
         "-o", workdir / "md.tpr", "-po", workdir / "mdout.mdp", "-maxwarn", "0"],
        cwd=bundle, capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    started = time.monotonic()
    subprocess.run(
        ["gmx", "-quiet", "mdrun", "-s", workdir / "md.tpr", "-deffnm", workdir / "md", "-nt", str(threads),
         "-nsteps", str(steps)],
        cwd=workdir, capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    wall = time.monotonic() - started
    log = (workdir / "md.log").read_text()
    match = re.search(r"^Performance:\s+([\d.]+)", log, re.M)
    simd = re.search(r"^SIMD instructions selected:\s+(.+)$", log, re.M)
    return {
        "ns_per_day": float(match.group(1)) if match else None,
        "wall_s": round(wall, 2),
        "simd": simd.group(1).strip() if simd else None,
    }


def summarise(runs: list[dict[str, object]], threads_run: list[int], engines: list[str]) -> dict[str, object]:
    """Per thread count: each engine's median ns/day, and each PolyForge engine over plain GROMACS in
    the same repeat (runs next to each other)."""
    summary: dict[str, object] = {}
    for threads in threads_run:
        mine = [run for run in runs if run["threads"] == threads]
        speed = {engine: [float(run["ns_per_day"]) for run in mine if run["engine"] == engine and run["ns_per_day"]] for engine in engines}
        entry: dict[str, object] = {f"{engine}_ns_per_day": statistics.median(values) for engine, values in speed.items() if values}
        plain = {run["repeat"]: float(run["ns_per_day"]) for run in mine if run["engine"] == "gromacs" and run["ns_per_day"]}
        for engine in engines:
            if engine != "gromacs":
                ours = {run["repeat"]: float(run["ns_per_day"]) for run in mine if run["engine"] == engine and run["ns_per_day"]}
                entry[f"{engine}_over_gromacs_each_repeat"] = [round(ours[r] / plain[r], 3) for r in sorted(ours) if r in plain]
        summary[str(threads)] = entry
    return summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--engines", nargs="+", default=["polyforge-openmm", "polyforge-gromacs", "gromacs"])
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    work = OUT / "work"
    bundle = work / "bundle" if (work / "bundle" / "md.mdp").exists() else build_bundle(work)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    results: dict[str, object] = {
        "commit": commit,
        "machine": f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} CPUs",
        "load_at_start": os.getloadavg()[0],
        "steps": args.steps,
        "runs": [],
    }
    runs: list[dict[str, object]] = results["runs"]  # type: ignore[assignment]
    for repeat in range(args.repeats):
        for threads in args.threads:
            for engine in args.engines:
                where = work / f"{engine}_{threads}_{repeat}"
                if engine == "gromacs":
                    measured = run_gromacs(bundle, args.steps, threads, where)
                else:
                    measured = run_polyforge(bundle, args.steps, threads, where, engine.removeprefix("polyforge-"))
                reported = {("reported_engine" if key == "engine" else key): value for key, value in measured.items()}
                runs.append({"engine": engine, "threads": threads, "repeat": repeat, "load": os.getloadavg()[0], **reported})
                print(json.dumps(runs[-1]), flush=True)
                (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    results["summary"] = summarise(runs, args.threads, args.engines)
    results["load_at_end"] = os.getloadavg()[0]
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results["summary"], indent=2))


if __name__ == "__main__":
    main()

"""mdrun's flags at the CPUs a job has: the product's flags before and now against plain `gmx mdrun`
and OpenMM on one small bundle, in rounds that alternate the variants so that the shared machine's
load moves them all (the load is written beside each run).

The bundle: the engine's `build-system` of a PE-100 melt (6 chains, 3,612 atoms, 0.8 g/cm³, GAFF2),
minimised. Each variant runs the bundle's md.mdp dynamics (NVT 300 K, PME, 2 fs) for STEPS steps:
- `before`: the product's flags until now, `-reprod -ntmpi 1 -ntomp N -pin off` (OMP_NUM_THREADS=N);
- `now`: the product's flags from runtime/allocation.py (`job_cpus().mdrun_args()`), OMP_NUM_THREADS unset;
- `nt`: plain `gmx mdrun -nt N` (mdrun's defaults otherwise);
- `ntomp1`: `gmx mdrun -ntmpi 1 -ntomp 1`;
- `openmm`: the engine's OpenMM path (`run_protocol`, POLYFORGE_MD_ENGINE=openmm, N threads), recording included.
mdrun's ns/day from its md.log (the step loop), OpenMM's from the run's report (the dynamics' wall time).

Run from the repository root:
    .venv/bin/python bench/md/flags.py [--steps 300] [--rounds 2]
Results: bench/md/out/flags.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "engine"))
sys.path.insert(0, str(REPO / "engine" / "tests"))

from polyforge_engine.runtime.allocation import THREADS_ENV, CpuAllocation, JobView, job_cpus  # noqa: E402
from run_bench import build_bundle  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
VARIANTS = ("before", "now", "nt", "ntomp1", "openmm")


def allocation() -> CpuAllocation:
    """The job's CPUs as the product reads them with no runner setting (the tests' conftest sets one)."""
    this = JobView.of_this_process()
    return job_cpus(JobView({key: value for key, value in this.environ.items() if key != THREADS_ENV}, this.affinity, this.online_cpus))


def mdrun_flags(variant: str, threads: int) -> tuple[list[str], dict[str, str]]:
    """The variant's mdrun flags and the environment it adds."""
    if variant == "before":
        return ["-reprod", "-ntmpi", "1", "-ntomp", str(threads), "-pin", "off"], {"OMP_NUM_THREADS": str(threads)}
    if variant == "now":
        return allocation().mdrun_args(), {}
    if variant == "nt":
        return ["-nt", str(threads)], {}
    return ["-ntmpi", "1", "-ntomp", "1"], {}


def run_mdrun(tpr: Path, variant: str, threads: int, steps: int, workdir: Path) -> dict[str, object]:
    workdir.mkdir(parents=True, exist_ok=True)
    flags, extra = mdrun_flags(variant, threads)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), **extra}
    started = time.monotonic()
    subprocess.run(
        ["gmx", "-quiet", "mdrun", "-s", tpr, "-deffnm", workdir / "md", "-nsteps", str(steps), *flags],
        cwd=workdir, capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    wall = time.monotonic() - started
    log = (workdir / "md.log").read_text()
    match = re.search(r"^Performance:\s+([\d.]+)", log, re.M)
    split = re.findall(r"^Using (\d+) (MPI threads?|OpenMP threads?)", log, re.M)
    return {"flags": " ".join(flags), "ns_per_day": float(match.group(1)) if match else None, "wall_s": round(wall, 2), "split": split}


def run_openmm(bundle: Path, steps: int, threads: int, workdir: Path) -> dict[str, object]:
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from polyforge_engine.simulate.protocol import Protocol\n"
        "from polyforge_engine.simulate.run import run_protocol\n"
        "b, w = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "w.mkdir(parents=True, exist_ok=True)\n"
        f"report, _ = run_protocol(b / 'system.prmtop', b / 'minimized.rst7', Protocol(0, {steps}, 300.0, 'NVT', 7), w, lambda *_: None)\n"
        "print(json.dumps(report.performance))\n"
    )
    env = {**os.environ, "POLYFORGE_ENGINE_THREADS": str(threads), "POLYFORGE_MD_ENGINE": "openmm"}
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-c", code, str(bundle), str(workdir)], cwd=REPO / "engine", capture_output=True, text=True, env=env, check=True)
    performance = json.loads(run.stdout.strip().splitlines()[-1])
    return {"flags": f"OpenMM CPU, {threads} threads", "ns_per_day": performance["ns_per_day"], "wall_s": round(time.monotonic() - started, 2)}


def summarise(runs: list[dict[str, object]]) -> dict[str, dict[str, float]]:
    """Per round: each variant's ns/day over the best of that round (runs next to each other)."""
    summary: dict[str, dict[str, float]] = {}
    for round_number in sorted({int(str(run["round"])) for run in runs}):
        rates = {str(run["variant"]): float(str(run["ns_per_day"])) for run in runs if run["round"] == round_number and run["ns_per_day"]}
        best = max(rates.values())
        summary[f"round {round_number}"] = {variant: round(rate / best, 3) for variant, rate in rates.items()}
    return summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    args = parser.parse_args()
    work = OUT / "flags_work"
    work.mkdir(parents=True, exist_ok=True)
    bundle = work / "bundle" if (work / "bundle" / "md.mdp").exists() else build_bundle(work, chains=6)
    tpr = work / "md.tpr"
    subprocess.run(
        ["gmx", "-quiet", "grompp", "-f", bundle / "md.mdp", "-c", bundle / "minimized.gro", "-p", bundle / "system.top", "-o", tpr,
         "-po", work / "mdout.mdp", "-maxwarn", "0"],
        cwd=bundle, capture_output=True, text=True, check=True,
    )  # fmt: skip
    threads = allocation().threads
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    results: dict[str, object] = {"commit": commit, "cpus": str(allocation()), "steps": args.steps, "runs": []}
    runs: list[dict[str, object]] = results["runs"]  # type: ignore[assignment]
    for round_number in range(args.rounds):
        for variant in args.variants:
            load = os.getloadavg()[0]
            where = work / f"{variant}_{round_number}"
            measured = run_openmm(bundle, args.steps, threads, where) if variant == "openmm" else run_mdrun(tpr, variant, threads, args.steps, where)
            runs.append({"variant": variant, "round": round_number, "load_before": load, **measured})
            print(json.dumps(runs[-1]), flush=True)
            (OUT / "flags.json").write_text(json.dumps(results, indent=2) + "\n")
    results["summary"] = summarise(runs)
    (OUT / "flags.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results["summary"], indent=2))


if __name__ == "__main__":
    main()

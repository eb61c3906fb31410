"""Start -> Completed, stage by stage, for a ~10 k-atom melt (issue 27).

The engine's whole `build-system` command (build the structure, parametrise, minimise, dynamics,
bundle: what a job runs after Start) on PE-100 x 17 at 0.85 g/cm³ (10,234 atoms, GAFF2, seed 1,
200 minimisation steps, NVT 300 K, recording as the app does), for up to three engines:
- `base`: the engine before the GROMACS path (an export of an earlier commit, C extensions built in
  place: `git archive 77ec35a engine | tar -x -C /tmp/x && cd /tmp/x/engine && python setup.py
  build_ext --inplace`), given with --base; PYTHONPATH points at it, as bench/chains/run.py does;
- `openmm`: today's engine with POLYFORGE_MD_ENGINE=openmm;
- `gromacs`: today's engine with POLYFORGE_MD_ENGINE=auto (gmx mdrun on CPUs);
- `gromacs-em`: the same with POLYFORGE_MINIMISE_ENGINE=gromacs (the minimisation on mdrun too).
Each repeat runs every variant once, the order rotated between repeats, so that all meet the same
spells of a shared machine. Every variant gets the same POLYFORGE_ENGINE_THREADS.

Stage times come from the progress lines: stdout is read line by line and each line stamped on
arrival; a stage lasts from its first line to the first line of the next stage (the last one to the
process's exit): the stages as the user's progress bar shows them (on GROMACS the dynamics' first line
comes when mdrun starts, so grompp falls under minimisation there). Startup is process start to the first line.
`cpu_s` is the CPU time of the run (the engine and the gmx processes it waited for), which a shared
machine's load moves far less than wall time. report.json's `performance` fields
(the engine's own minimisation_s, dynamics_s, ns_per_day, ...) are kept beside them, and the
1-minute load average before and after each run.

With --steps below the 10,000 of the target, `start_to_completed_10k_s` extrapolates: the measured
total plus the dynamics stage's seconds per step (report.json's dynamics_s: for GROMACS grompp, mdrun,
`gmx energy` and the DCD conversion) times the missing steps (the dynamics' fixed costs
scaled along, so it overstates a 10,000-step run slightly, for every variant alike).

Run from the repository root (gmx from Debian: `make gromacs`):
    .venv/bin/python bench/pipeline/run_bench.py --base /tmp/stages-base/engine [--steps 10000] [--repeats 2] [--threads 1]
Results: bench/pipeline/out/results.json (not committed; --out elsewhere); a markdown table on stdout.
--today runs the openmm and gromacs variants from another engine directory (e.g. an export of the
working tree, so that a shared tree changing under a long run does not change what is measured).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "engine" / "tests"))

from conftest import ETHYLENE, homopolymer_job  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
STAGES = ("packing", "parametrising", "minimisation", "dynamics", "bundling")
TARGET_STEPS = 10_000
REPORTED = ("build_s", "parametrisation_s", "minimisation_s", "dynamics_s", "ns_per_day", "mdrun_ns_per_day")


def job(steps: int, chains: int, density: float) -> dict[str, Any]:
    spec = homopolymer_job(ETHYLENE, 100, chains, density=density, seed=1)
    spec["simulation_protocol"].update(minimization_steps=200, dynamics=True, dynamics_steps=steps, temperature=300, ensemble="NVT")
    return spec


def run_variant(
    name: str, engine_dir: Path, md_engine: str | None, spec: dict[str, Any], threads: int, workdir: Path, minimise_engine: str | None = None
) -> dict[str, Any]:
    """One `build-system` run; each stdout line stamped as it arrives."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    (workdir / "job.json").write_text(json.dumps(spec))
    env = dict(os.environ, PYTHONPATH=str(engine_dir), POLYFORGE_ENGINE_THREADS=str(threads))
    env.pop("POLYFORGE_MD_ENGINE", None)
    env.pop("POLYFORGE_MINIMISE_ENGINE", None)
    if md_engine is not None:
        env["POLYFORGE_MD_ENGINE"] = md_engine
    if minimise_engine is not None:
        env["POLYFORGE_MINIMISE_ENGINE"] = minimise_engine
    load_before = os.getloadavg()[0]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "polyforge_engine", "build-system", "--input", "job.json", "--workdir", "."],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    lines: list[tuple[float, dict[str, Any]]] = []
    for line in process.stdout:
        lines.append((time.perf_counter() - start, json.loads(line)))
    code = process.wait()
    total = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the engine and the gmx it waited for
    if code != 0:
        raise SystemExit(f"{name}: build-system exited {code}: {lines[-1][1] if lines else 'no output'}")
    first: dict[str, float] = {}
    for stamp, event in lines:
        if event.get("event") == "progress":
            first.setdefault(event["stage"], stamp)
    seen = [stage for stage in STAGES if stage in first]
    stages = {stage: round((first[seen[i + 1]] if i + 1 < len(seen) else total) - first[stage], 2) for i, stage in enumerate(seen)}
    report = json.loads((workdir / "report.json").read_text())
    record = {
        "variant": name,
        "md_engine_setting": md_engine,
        "threads": threads,
        "atoms": report.get("atoms"),
        "steps": spec["simulation_protocol"]["dynamics_steps"],
        "startup_s": round(min(first.values()), 2),
        "stages_s": stages,
        "start_to_completed_s": round(total, 2),
        "cpu_s": round(cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime, 1),
        "performance": report.get("performance"),
        "energies": report.get("energies"),
        "minimization": report.get("minimization"),
        "gromacs_minimised_energy": _gromacs_minimised_energy(workdir),
        "load_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }
    steps = record["steps"]
    dynamics_s = float((record["performance"] or {}).get("dynamics_s") or 0.0)
    if steps and steps < TARGET_STEPS and dynamics_s:
        record["start_to_completed_10k_s"] = round(total + dynamics_s / steps * (TARGET_STEPS - steps), 1)
    else:
        record["start_to_completed_10k_s"] = round(total, 1)
    return record


def _gromacs_minimised_energy(workdir: Path) -> float | None:
    """GROMACS's own potential energy of the structure it minimised (simulation.log), if it did."""
    for log in workdir.glob("**/simulation.log"):
        for line in log.read_text().splitlines():
            if line.startswith("GROMACS's potential energy of the minimised structure"):
                return float(line.rsplit(":", 1)[1].split()[0])
    return None


def table(records: list[dict[str, Any]], variants: list[str]) -> str:
    """Medians per variant, and each over the first variant's (the base)."""
    header = ["variant", "runs", "startup", *STAGES, "Start→Completed", "at 10,000 steps", "ns/day (report)", "load"]
    rows = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    medians: dict[str, dict[str, float]] = {}
    for variant in variants:
        runs = [r for r in records if r["variant"] == variant]
        if not runs:
            continue
        m = {stage: statistics.median(r["stages_s"].get(stage, 0.0) for r in runs) for stage in STAGES}
        m["startup"] = statistics.median(r["startup_s"] for r in runs)
        m["total"] = statistics.median(r["start_to_completed_s"] for r in runs)
        m["total10k"] = statistics.median(r["start_to_completed_10k_s"] for r in runs)
        speeds = [float(r["performance"]["ns_per_day"]) for r in runs if (r["performance"] or {}).get("ns_per_day")]
        m["ns_per_day"] = statistics.median(speeds) if speeds else float("nan")
        medians[variant] = m
        loads = [load for r in runs for load in r["load_1min"]]
        rows.append(
            f"| {variant} | {len(runs)} | {m['startup']:.1f} s | "
            + " | ".join(f"{m[stage]:.1f} s" for stage in STAGES)
            + f" | {m['total']:.1f} s | {m['total10k']:.0f} s | {m['ns_per_day']:.3f} | {min(loads):.0f}-{max(loads):.0f} |"
        )
    base = medians.get(variants[0])
    if base:
        for variant, m in medians.items():
            if variant == variants[0]:
                continue
            rows.append(
                f"| {variants[0]} / {variant} | | {base['startup'] / m['startup']:.2f}× | "
                + " | ".join(f"{base[stage] / m[stage]:.2f}×" if m[stage] else "—" for stage in STAGES)
                + f" | {base['total'] / m['total']:.2f}× | {base['total10k'] / m['total10k']:.2f}× | {m['ns_per_day'] / base['ns_per_day']:.2f}× | |"
            )
    rows += ["", "report.json `performance` (medians):", "", "| variant | " + " | ".join(REPORTED) + " |", "|---" * (len(REPORTED) + 1) + "|"]
    for variant in variants:
        runs = [r for r in records if r["variant"] == variant]
        if runs:
            values = [[float(v) for r in runs if (v := (r["performance"] or {}).get(key)) is not None] for key in REPORTED]
            rows.append(f"| {variant} | " + " | ".join(f"{statistics.median(v):.2f}" if v else "—" for v in values) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, default=None, help="engine directory of the build before (variant base)")
    parser.add_argument("--steps", type=int, default=TARGET_STEPS)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--chains", type=int, default=17)
    parser.add_argument("--density", type=float, default=0.85)
    parser.add_argument("--variants", nargs="*", default=["base", "openmm", "gromacs"])
    parser.add_argument("--today", type=Path, default=REPO / "engine", help="engine directory of the openmm and gromacs variants")
    parser.add_argument("--out", type=Path, default=OUT, help="directory of results.json")
    args = parser.parse_args()
    variants = [v for v in args.variants if v != "base" or args.base is not None]
    engines = {
        "base": (args.base, None, None),
        "openmm": (args.today, "openmm", None),
        "gromacs": (args.today, "auto", None),
        "gromacs-em": (args.today, "auto", "gromacs"),
    }
    spec = job(args.steps, args.chains, args.density)
    args.out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="pipeline-bench-"))
    records: list[dict[str, Any]] = []
    for repeat in range(args.repeats):
        order = variants[repeat % len(variants) :] + variants[: repeat % len(variants)]
        for name in order:
            engine_dir, md_engine, minimise_engine = engines[name]
            record = run_variant(name, engine_dir, md_engine, spec, args.threads, scratch / name, minimise_engine) | {"repeat": repeat + 1}
            records.append(record)
            print(json.dumps(record), flush=True)
            (args.out / "results.json").write_text(json.dumps({"steps": args.steps, "threads": args.threads, "runs": records}, indent=1))
    shutil.rmtree(scratch, ignore_errors=True)
    print(table(records, variants))


if __name__ == "__main__":
    main()

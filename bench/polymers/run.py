"""Builds (and optionally parametrises) every polymer of bench/polymers/set.csv as chains × units
linear chains capped with hydrogens, at 0.3 g/cm³ and at its experimental amorphous density, each
build as its own engine process with a time limit.

- `build`: `python -m polyforge_engine build-structure` (construct/ only): built or failed, with the
  engine's error code and message, wall time and wall time per atom.
- `--parametrise`: `build-system` without minimisation or dynamics instead (build, GAFF2 typing,
  AM1-BCC charges per fragment, topology files): much slower, for small selections.

Results go to <out>/results.json (one record per polymer and density, appended as they finish, so
a run stopped early keeps what it measured); `table` prints bench/README.md's summary from it.

Usage (niced; the machine is shared):
  nice -n 10 .venv/bin/python bench/polymers/run.py build --densities 0.3 --out /tmp/polymers
  nice -n 10 .venv/bin/python bench/polymers/run.py build --densities experimental --only adipate,sebacate --out /tmp/polymers
  .venv/bin/python bench/polymers/run.py table --out /tmp/polymers
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
SET = Path(__file__).with_name("set.csv")
SOURCES = {
    "MARK": "J. E. Mark (ed.), Physical Properties of Polymers Handbook, 2nd ed., Springer 2007, ch. 7 (R. A. Orwoll, densities of amorphous polymers)",
    "PH": "J. Brandrup, E. H. Immergut, E. A. Grulke (eds.), Polymer Handbook, 4th ed., Wiley 1999, section VI (physical constants of polymers)",
    "VK": "D. W. van Krevelen, K. te Nijenhuis, Properties of Polymers, 4th ed., Elsevier 2009, ch. 4 (amorphous densities)",
}


def polymers() -> list[dict[str, str]]:
    with SET.open() as handle:
        return list(csv.DictReader(handle))


def job(unit: str, name: str, chains: int, units: int, density: float, seed: int, parametrise: bool) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "engine" / "tests"))
    from conftest import homopolymer_job

    built = homopolymer_job(unit, units, chains, density=density, seed=seed)
    built["polymers"][0]["name"] = name
    if parametrise:  # build-system then stops after the topology (build-structure reads no protocol)
        built["simulation_protocol"].update(minimization=False, minimization_steps=None)
    return built


def run_engine(command: str, raw: dict[str, Any], workdir: Path, timeout: float) -> dict[str, Any]:
    """One engine process; its last result or error event, or a timeout record, with the wall time."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "job.json").write_text(json.dumps(raw))
    start = time.monotonic()
    process = subprocess.Popen(
        [str(PYTHON), "-m", "polyforge_engine", command, "--input", str(workdir / "job.json"), "--workdir", str(workdir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # the whole group is stopped on a timeout
        env={**os.environ, "POLYFORGE_ENGINE_THREADS": "1"},
    )
    try:
        stdout, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return {"status": "failed", "code": "TIMEOUT", "message": f"stopped after {timeout:.0f} s", "seconds": timeout}
    seconds = time.monotonic() - start
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    final = next((event for event in reversed(events) if event.get("event") in ("result", "error")), None)
    if final is None:
        return {"status": "failed", "code": "NO_RESULT", "message": f"exit code {process.returncode}", "seconds": seconds}
    if final["event"] == "error":
        return {"status": "failed", "code": final["code"], "message": final["message"], "seconds": seconds}
    report = json.loads((workdir / "report.json").read_text())
    built = report["build"] if command == "build-system" else report  # build-system nests the build's report
    return {
        "status": "parametrised" if command == "build-system" else "built",
        "seconds": seconds,
        "atoms": built["atoms"],
        "ms_per_atom": 1000.0 * seconds / built["atoms"],
        "density": built["density"],
        "min_inter": built["min_intermolecular_distance"],
        "min_intra": built["min_intramolecular_nonbonded_distance"],
        **({"build_s": report["performance"]["build_s"], "parametrisation_s": report["performance"]["parametrisation_s"]} if command == "build-system" else {}),
    }


def build(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else []
    done = {(r["name"], r["target"]) for r in results}
    wanted = [w.strip().lower() for w in args.only.split(",")] if args.only else None
    command = "build-system" if args.parametrise else "build-structure"
    for polymer in polymers():
        if wanted and not any(w in polymer["name"].lower() for w in wanted):
            continue
        for which in args.densities.split(","):
            target = float(polymer["density"]) if which == "experimental" else float(which)
            key = (polymer["name"], f"{which}:{target}")
            if key in done:
                continue
            raw = job(polymer["unit"], polymer["name"], args.chains, args.units, target, args.seed, args.parametrise)
            workdir = out / "runs" / f"{len(results):03d}"
            record = run_engine(command, raw, workdir, args.timeout)
            record.update(name=polymer["name"], family=polymer["family"], target=key[1], load=os.getloadavg()[0])
            results.append(record)
            results_path.write_text(json.dumps(results, indent=1))
            print(f"{polymer['name']:<48} {key[1]:<18} {record['status']:<12} {record['seconds']:7.1f} s {record.get('code', '')}", flush=True)


def table(args: argparse.Namespace) -> None:
    """The summary for bench/README.md per density: counts, time per atom, every failure with its
    reason, the slowest builds, and the median time per family."""
    results = json.loads((Path(args.out) / "results.json").read_text())
    for which in sorted({r["target"].split(":")[0] for r in results}):
        rows = [r for r in results if r["target"].split(":")[0] == which]
        ok = [r for r in rows if r["status"] != "failed"]
        heading = "experimental density" if which == "experimental" else f"{which} g/cm³"
        print(f"\n**{heading}**: {len(ok)} of {len(rows)} {'parametrised' if ok and ok[0]['status'] == 'parametrised' else 'built'}.")
        for r in rows:
            if r["status"] == "failed":
                print(f"- failed: {r['name']} ({r['target'].split(':')[1]} g/cm³): {r['code']}, {r['message']}")
        if not ok:
            continue
        per_atom = sorted(r["ms_per_atom"] for r in ok)
        print(f"\nWall time per atom: median {per_atom[len(per_atom) // 2]:.1f} ms, largest {per_atom[-1]:.1f} ms.\n")
        print("| slowest | g/cm³ | atoms | s | ms/atom |\n|---|---:|---:|---:|---:|")
        for r in sorted(ok, key=lambda r: -r["seconds"])[:8]:
            print(f"| {r['name']} | {r['target'].split(':')[1]} | {r['atoms']} | {r['seconds']:.1f} | {r['ms_per_atom']:.1f} |")
        print("\n| family | built | median s | median ms/atom |\n|---|---:|---:|---:|")
        for family in sorted({r["family"] for r in rows}):
            of = [r for r in ok if r["family"] == family]
            if of:
                seconds = sorted(r["seconds"] for r in of)[len(of) // 2]
                ms = sorted(r["ms_per_atom"] for r in of)[len(of) // 2]
                print(f"| {family} | {len(of)} of {sum(r['family'] == family for r in rows)} | {seconds:.1f} | {ms:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("build", "table"))
    parser.add_argument("--out", required=True)
    parser.add_argument("--densities", default="0.3,experimental", help="comma-separated: numbers (g/cm³) and/or 'experimental'")
    parser.add_argument("--only", default="", help="comma-separated parts of names")
    parser.add_argument("--chains", type=int, default=10)
    parser.add_argument("--units", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--parametrise", action="store_true")
    args = parser.parse_args()
    build(args) if args.what == "build" else table(args)


if __name__ == "__main__":
    main()

"""PolyForge build-structure against Packmol and polyply (gen_coords) on the same machine, in one run.

    .venv/bin/python bench/engine/run_bench.py [--million]

Peers live in bench/.venv-bench (see bench/README.md). Every tool runs as a separate process under
/usr/bin/time -v (wall time, peak memory); every output is measured by the same code (PolyForge's
report.measure_contacts): smallest distance between atoms of different molecules and between atoms of one molecule more
than three bonds apart. Raw results go to bench/engine/out/results.json; bench/README.md gets the
tables and ratios.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "engine"))

from polyforge_engine.construct.assembly import pairs_within_three_bonds  # noqa: E402
from polyforge_engine.construct.report import measure_contacts  # noqa: E402

OUT = ROOT / "bench" / "engine" / "out"
ENGINE_PYTHON = ROOT / ".venv" / "bin" / "python"
PEERS = ROOT / "bench" / ".venv-bench" / "bin"
PEER_TIMEOUT = 600  # s; a peer still running after this is reported as unfinished
REPEATS = 3  # runs per measurement (the median is reported); Packmol and the 1 M-atom build run once
TOLERANCE = 2.0  # Å between atoms of different molecules, for every tool
README_START = "<!-- engine build-structure benchmark: written by bench/engine/run_bench.py -->"
README_END = "<!-- end of engine build-structure benchmark -->"
UNITS = {"PE": "[*:1]CC[*:2]", "PEO": "[*:1]CCO[*:2]"}

# polyply libraries: PEO all-atom (OPLS-AA, LigParGen); PE only exists united-atom (2016H66).
POLYPLY = {
    "PEO": {
        "lib": "oplsaaLigParGen",
        "block": "PEO",
        "atomtypes": "[ defaults ]\n1 3 yes 0.5 0.5\n\n[ atomtypes ]\n"
        "opls_135 C 6 12.011 0.0 A 3.50000e-01 2.76144e-01\n"
        "opls_140 H 1 1.008 0.0 A 2.50000e-01 1.25520e-01\n"
        "opls_179 O 8 15.999 0.0 A 2.90000e-01 5.85760e-01\n",
    },
    "PE": {
        "lib": "2016H66",
        "block": "PE",
        "atomtypes": "[ defaults ]\n1 1 no 1.0 1.0\n\n[ atomtypes ]\n"
        "CH2 6 14.027 0.0 A 0.0074684164 3.3965584e-05\n"
        "CH3 6 15.035 0.0 A 0.0096138025 2.6646244e-05\n"
        # GROMOS bonded macros the 2016H66 PE blocks use (values of the GROMOS 54A7 tables).
        "#define gb_27 0.1530 7.1500e+06\n#define ga_15 111.00 530.00\n#define gd_34 0.000 5.92 3\n",
    },
}


def timed(command: list[str], workdir: Path, timeout: float, stdin: Path | None = None) -> dict[str, Any]:
    """Run under /usr/bin/time -v: wall seconds, peak resident memory (MB), exit code, output tail, and
    the seconds from start at which the first and the last line of standard output arrived (PolyForge's
    first progress line and its result line: what comes before is start-up, between them the build).
    `stdin` is a file (Packmol refuses a pipe)."""
    workdir.mkdir(parents=True, exist_ok=True)
    lines: list[tuple[float, str]] = []
    started = time.perf_counter()
    with open(stdin or "/dev/null") as source, tempfile.TemporaryFile("w+") as errors:
        # Own process group: on timeout the tool itself is killed, not only /usr/bin/time (a peer
        # left running would slow every later measurement).
        proc = subprocess.Popen(
            ["/usr/bin/time", "-v", *command],
            cwd=workdir,
            stdin=source,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            start_new_session=True,
        )

        def read_lines() -> None:
            for line in proc.stdout:
                lines.append((time.perf_counter() - started, line))

        reader = threading.Thread(target=read_lines, daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join()
            return {"ok": False, "wall_s": timeout, "error": f"did not finish within {timeout:.0f} s"}
        wall = time.perf_counter() - started
        reader.join()
        errors.seek(0)
        stderr = errors.read()
    peak_kb = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return {
        "ok": proc.returncode == 0,
        "wall_s": wall,
        "peak_mb": int(peak_kb.group(1)) / 1024 if peak_kb else None,
        "exit_code": proc.returncode,
        "tail": ("".join(line for _, line in lines) + stderr)[-600:],
        "first_line_s": lines[0][0] if lines else None,
        "last_line_s": lines[-1][0] if lines else None,
    }


def timed_median(command: list[str], workdir: Path, timeout: float, runs: int) -> dict[str, Any]:
    """`timed` `runs` times: the run with the median wall time, with every wall time listed. Wall times
    on a shared virtual machine vary by tens of percent between identical runs, so one run per tool
    would compare noise as much as tools. A run that times out counts with the timeout as its time
    (polyply once hung on a build it otherwise finishes in ~20 s); any other failure ends the series."""
    done = []
    for _ in range(runs):
        done.append(timed(command, workdir, timeout))
        if not done[-1]["ok"] and done[-1]["wall_s"] < timeout:
            return done[-1]
    median = sorted(done, key=lambda run: run["wall_s"])[len(done) // 2]
    return {**median, "walls_s": [round(run["wall_s"], 2) for run in done]}


def polyforge_job(unit: str, length: int, copies: int, density: float, seed: int = 1) -> dict[str, Any]:
    block, segment, polymer = (str(uuid.uuid4()) for _ in range(3))
    return {
        "system": {"id": str(uuid.uuid4()), "name": "bench", "sanitized_name": "bench"},
        "blocks": [
            {
                "id": block,
                "name": "Unit",
                "type": "linear",
                "data": {"repeating_unit": unit, "head_repeating_unit": "[*:2][H]", "tail_repeating_unit": "[*:1][H]"},
            }
        ],
        "segments": [
            {
                "id": segment,
                "name": "S",
                "type": "linear_block",
                "data": {"total_building_blocks": length},
                "blocks": [{"building_block_id": block, "order": 0, "occurrence": length}],
            }
        ],
        "polymers": [{"id": polymer, "name": "P", "force_field": "gaff2", "segments": [{"segment_id": segment, "occurrence": 1, "order": 0}]}],
        "system_setup": {
            "cell_dimension_selector": "density",
            "density": density,
            "cell_sides": None,
            "potential_wall_z": False,
            "construction_order": "as_listed_in_components",
            "polymers": [{"polymer_id": polymer, "order": 0, "occurrence": copies}],
        },
        "simulation_protocol": {
            "simulation": "MD",
            "random_seed": seed,
            "minimization": False,
            "minimization_steps": None,
            "dynamics": False,
            "dynamics_steps": None,
            "temperature": None,
            "ensemble": None,
        },
    }


def read_pdb(path: Path) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Coordinates and CONECT bonds (0-based) of a PDB file with decimal serials."""
    xyz, bonds = [], set()
    for line in path.read_text().splitlines():
        if line.startswith(("ATOM", "HETATM")):
            xyz.append((float(line[30:38]), float(line[38:46]), float(line[46:54])))
        elif line.startswith("CONECT"):
            fields = [int(line[i : i + 5]) - 1 for i in range(6, len(line.rstrip()), 5)]
            bonds |= {tuple(sorted((fields[0], other))) for other in fields[1:]}
    return np.array(xyz), sorted(bonds)


def read_gro(path: Path) -> tuple[np.ndarray, np.ndarray]:
    lines = path.read_text().splitlines()
    count = int(lines[1])
    xyz = np.array([(float(line[20:28]), float(line[28:36]), float(line[36:44])) for line in lines[2 : 2 + count]]) * 10.0
    box = np.array([float(v) for v in lines[2 + count].split()[:3]]) * 10.0
    return xyz, box


def itp_bonds(path: Path) -> tuple[int, list[tuple[int, int]]]:
    section, atoms, bonds = "", 0, []
    for line in path.read_text().splitlines():
        text = line.split(";")[0].strip()
        if text.startswith("["):
            section = text.strip("[] ")
        elif text and section == "atoms":
            atoms += 1
        elif text and section == "bonds":
            a, b = text.split()[:2]
            bonds.append((int(a) - 1, int(b) - 1))
    return atoms, bonds


def contacts(xyz: np.ndarray, box: np.ndarray, molecule_size: int, molecule_bonds: list[tuple[int, int]]) -> dict[str, Any]:
    """Smallest distances for copies of one molecule laid out one after another."""
    molecules = len(xyz) // molecule_size
    close = pairs_within_three_bonds(np.array(molecule_bonds, dtype=np.int64).reshape(-1, 2), molecule_size)
    offsets = np.arange(molecules, dtype=np.int64) * molecule_size
    inter, intra, limit = measure_contacts(xyz, box, False, [molecule_size], [close], [0] * molecules, offsets)
    return {"min_inter": inter, "min_intra_nonbonded": intra, "search_limit": limit}


def run_polyforge(name: str, unit: str, length: int, copies: int, density: float, runs: int = REPEATS) -> dict[str, Any]:
    """Build with seeds 1 … runs, one run each, and report the median run. The growth path (back-offs,
    and for dense cells the minimiser's work) and so the time depend on the seed as well as on the
    machine: with one version of the code the dense PEO cell took 4.1 to 5.3 s of CPU over seeds 1-5."""
    base = OUT / name / "polyforge"
    shutil.rmtree(base, ignore_errors=True)
    done = []
    for seed in range(1, runs + 1):
        workdir = base / f"seed-{seed}"
        workdir.mkdir(parents=True)
        (workdir / "job.json").write_text(json.dumps(polyforge_job(unit, length, copies, density, seed=seed)))
        run = timed(
            [str(ENGINE_PYTHON), "-m", "polyforge_engine", "build-structure", "--input", "job.json", "--workdir", "."],
            workdir,
            timeout=7200,
        )
        if not run["ok"]:
            return run
        done.append((run, workdir))
    run, workdir = sorted(done, key=lambda pair: pair[0]["wall_s"])[len(done) // 2]
    run = {**run, "walls_s": [round(each["wall_s"], 2) for each, _ in done]}
    # Start-up: interpreter, imports, the job read and validated (until the first progress line). Build:
    # from there to the result line (conformers, assembly, growth, relaxation, measuring, writing).
    run.update(startup_s=run["first_line_s"], build_s=run["last_line_s"] - run["first_line_s"])
    report = json.loads((workdir / "report.json").read_text())
    run.update(atoms=report["atoms"], box=report["box"], density=report["density"], grown_in_cell=report["grown_in_cell"])
    xyz, bonds = read_pdb(workdir / "system.pdb") if report["atoms"] <= 99_999 else (None, None)
    if xyz is not None:
        size = report["polymers"][0]["atoms_per_molecule"]
        run.update(contacts(xyz, np.array(report["box"]), size, [b for b in bonds if b[0] < size and b[1] < size]))
    else:  # hexadecimal serials beyond 99,999 atoms: take the engine's own measurement (same code)
        run.update(min_inter=report["min_intermolecular_distance"], min_intra_nonbonded=report["min_intramolecular_nonbonded_distance"])
    return run


def run_packmol(name: str, unit: str, length: int, copies: int, box: list[float]) -> dict[str, Any]:
    packmol = PEERS / "packmol"
    if not packmol.exists():
        return {"ok": False, "error": f"{packmol} not found"}
    workdir = OUT / name / "packmol"
    shutil.rmtree(workdir, ignore_errors=True)
    # The molecule Packmol copies: one chain built by PolyForge alone in a dilute cell (not timed).
    single = OUT / name / "single-chain"
    shutil.rmtree(single, ignore_errors=True)
    single.mkdir(parents=True)
    (single / "job.json").write_text(json.dumps(polyforge_job(unit, length, 1, 0.01)))
    subprocess.run(
        [str(ENGINE_PYTHON), "-m", "polyforge_engine", "build-structure", "--input", "job.json", "--workdir", "."],
        cwd=single,
        check=True,
        capture_output=True,
    )
    chain_xyz, chain_bonds = read_pdb(single / "system.pdb")
    workdir.mkdir(parents=True)
    shutil.copy(single / "system.pdb", workdir / "chain.pdb")
    a, b, c = box
    (workdir / "pack.inp").write_text(
        f"tolerance {TOLERANCE}\nfiletype pdb\noutput packed.pdb\nseed 1\npbc 0. 0. 0. {a:.3f} {b:.3f} {c:.3f}\n"
        f"structure chain.pdb\n  number {copies}\n  inside box 0. 0. 0. {a:.3f} {b:.3f} {c:.3f}\nend structure\n"
    )
    run = timed([str(packmol)], workdir, PEER_TIMEOUT, stdin=workdir / "pack.inp")
    packed = workdir / "packed.pdb"
    if not packed.exists():
        packed = workdir / "packed.pdb_FORCED"
    if packed.exists():
        xyz, _ = read_pdb(packed)
        run.update(atoms=len(xyz), output=packed.name)
        run.update(contacts(xyz, np.array(box), len(chain_xyz), chain_bonds))
    return run


def run_polyply(name: str, kind: str, length: int, copies: int, density: float) -> dict[str, Any]:
    polyply = PEERS / "polyply"
    if not polyply.exists():
        return {"ok": False, "error": f"{polyply} not found"}
    spec = POLYPLY[kind]
    workdir = OUT / name / "polyply"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    params = subprocess.run(
        [str(polyply), "gen_params", "-lib", spec["lib"], "-seq", f"{spec['block']}:{length}", "-o", "mol.itp", "-name", kind],
        cwd=workdir,
        capture_output=True,
        text=True,
    )
    if params.returncode != 0:
        return {"ok": False, "error": params.stderr[-600:]}
    (workdir / "topol.top").write_text(f'{spec["atomtypes"]}\n#include "mol.itp"\n\n[ system ]\nbench\n\n[ molecules ]\n{kind} {copies}\n')
    run = timed_median(
        [str(polyply), "gen_coords", "-p", "topol.top", "-o", "out.gro", "-name", kind, "-dens", str(density * 1000)],
        workdir,
        PEER_TIMEOUT,
        REPEATS,
    )
    if (workdir / "out.gro").exists():
        xyz, box = read_gro(workdir / "out.gro")
        size, bonds = itp_bonds(workdir / "mol.itp")
        run.update(atoms=len(xyz), box=box.tolist(), force_field=spec["lib"])
        run.update(contacts(xyz, box, size, bonds))
    return run


def _cell(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def _speed_ratio(ours: dict[str, Any], peer: dict[str, Any]) -> tuple[float, bool] | None:
    """PolyForge's atoms per second over the peer's, and whether that is only a lower bound (the peer
    did not finish within PEER_TIMEOUT, so its rate is below the system's atoms per PEER_TIMEOUT)."""
    if not ours.get("ok") or not ours.get("atoms"):
        return None
    rate = ours["atoms"] / ours["wall_s"]
    if peer.get("ok") and peer.get("atoms"):
        return rate / (peer["atoms"] / peer["wall_s"]), False
    if str(peer.get("error", "")).startswith("did not finish"):
        return rate / (ours["atoms"] / PEER_TIMEOUT), True
    return None


def _ratio_text(ratio: tuple[float, bool] | None) -> str:
    if ratio is None:
        return "no ratio (no finished structure)"
    value, lower_bound = ratio
    return f"at least {value:,.1f}× (it did not finish within {PEER_TIMEOUT} s)" if lower_bound else f"{value:,.1f}×"


def _row(tool: str, run: dict[str, Any]) -> str:
    if not run.get("atoms"):
        return f"| {tool} | – | – | – | – | – | – | – | {run.get('error') or 'failed (exit ' + str(run.get('exit_code')) + ')'} |"
    rate = f"{run['atoms'] / run['wall_s']:,.0f}" if run.get("ok") else "–"
    runs = ", ".join(f"{wall:.1f}" for wall in run["walls_s"]) if run.get("walls_s") else "one run"
    note = run.get("error") or ("" if run.get("ok") else f"exit {run.get('exit_code')}")
    if run.get("output") == "packed.pdb_FORCED" or (run.get("output") and not run.get("ok")):
        note = (note + "; " if note else "") + "packing not converged (structure measured as written)"
    if run.get("force_field"):
        note = (note + "; " if note else "") + f"library {run['force_field']}"
    return (
        f"| {tool} | {run['atoms']:,} | {_cell(run['wall_s'], 1)} | {runs} | {rate} | {_cell(run.get('peak_mb'), 0)} | "
        f"{_cell(run.get('min_inter'))} | {_cell(run.get('min_intra_nonbonded'))} | {note} |"
    )


def write_readme(results: dict[str, Any]) -> None:
    header = (
        "| tool | atoms | wall s (median) | every run, s | atoms/s | peak MB | min inter Å | min intra (>3 bonds) Å | notes |\n"
        "|---|---:|---:|---|---:|---:|---:|---:|---|"
    )
    sections = []
    comparisons = {name: entry for name, entry in results.items() if name not in ("machine", "commit", "scaling", "load")}
    for name, entry in comparisons.items():
        ratios = [
            f"PolyForge vs {peer}: **{_ratio_text(_speed_ratio(entry['polyforge'], entry[peer]))}** the atoms per second" for peer in ("packmol", "polyply")
        ]
        rows = "\n".join(_row(tool, entry[tool]) for tool in ("polyforge", "packmol", "polyply"))
        sections.append(f"#### {name}\n\n{header}\n{rows}\n\nRatios — " + "; ".join(ratios) + ".\n")
    scaling = results.get("scaling", {})
    scale_rows = []
    built = [run for run in scaling.values() if run.get("atoms")]
    for name, run in scaling.items():
        if run.get("atoms"):
            scale_rows.append(
                f"| {name} | {run['atoms']:,} | {run['wall_s']:,.2f} | {run['startup_s']:.2f} | {run['build_s']:,.2f} | "
                f"{run['wall_s'] / run['atoms'] * 1e6:,.1f} | {run['build_s'] / run['atoms'] * 1e6:,.1f} | "
                f"{_cell(run.get('peak_mb'), 0)} | "
                f"{_cell(run.get('peak_mb') / run['atoms'] * 1e6 / 1024 if run.get('peak_mb') else None)} | "
                f"{_cell(run.get('min_inter'))} | {_cell(run.get('min_intra_nonbonded'))} |"
            )
        else:
            scale_rows.append(f"| {name} | – | – | – | – | – | – | – | – | – | – | {run.get('error', 'failed')}")

    def spread(per_atom: list[float]) -> float | None:
        """Largest time per atom over the smallest."""
        return max(per_atom) / min(per_atom) if len(per_atom) > 1 else None

    wall_per_atom = [run["wall_s"] / run["atoms"] for run in built]
    build_spread = spread([run["build_s"] / run["atoms"] for run in built])
    wall_spread = spread(wall_per_atom)
    falls = all(later <= earlier for earlier, later in itertools.pairwise(wall_per_atom))
    wall_trend = "falls as the size grows" if falls else "does not fall steadily with size"
    targets = []
    for name, entry in comparisons.items():
        for peer, goal in (("polyply", 10.0), ("packmol", 3.0)):
            ratio = _speed_ratio(entry["polyforge"], entry[peer])
            verdict = "no verdict" if ratio is None else "met" if ratio[0] >= goal else "**not met**"
            targets.append(f"- {name}: ≥ {goal:g}× {peer} — {_ratio_text(ratio)}, {verdict}.")
    if build_spread is not None:
        targets.append(
            f"- Time per atom 10 k → 1 M within 2× — {build_spread:.2f} for the build, {'met' if build_spread <= 2 else '**not met**'} "
            f"({wall_spread:.2f} for the whole command, whose fixed start-up of {built[0]['startup_s']:.2f} s weighs on the "
            f"{built[0]['atoms']:,}-atom build alone; the whole command's time per atom {wall_trend})."
        )
    largest = max(built, key=lambda run: run["atoms"], default=None)
    if largest and largest.get("peak_mb"):
        per_million = largest["peak_mb"] / 1024 / largest["atoms"] * 1e6
        targets.append(
            f"- Under 2 GB per million atoms — {per_million:.2f} GB per million at {largest['atoms']:,} atoms, {'met' if per_million < 2 else '**not met**'}."
        )
    template = (OUT.parent / "README.template.md").read_text()
    text = template.format(
        machine=results.get("machine", "?"),
        comparisons="\n".join(sections),
        scaling="\n".join(scale_rows),
        build_spread=f"{build_spread:.2f}" if build_spread is not None else "–",
        wall_spread=f"{wall_spread:.2f}" if wall_spread is not None else "–",
        startups=", ".join(f"{run['startup_s']:.2f}" for run in built) or "–",
        targets="\n".join(targets),
        commit=results.get("commit", "?"),
        load=" → ".join(f"{value:.1f}" for value in results.get("load", [])) or "?",
    )
    # Only this section of bench/README.md is ours: other benchmarks keep theirs.
    readme = ROOT / "bench" / "README.md"
    current = readme.read_text() if readme.exists() else "# Benchmarks\n"
    if README_START in current and README_END in current:
        before, rest = current.split(README_START, 1)
        after = rest.split(README_END, 1)[1]
    else:
        before, after = current.rstrip("\n") + "\n\n", "\n"
    readme.write_text(f"{before}{README_START}\n{text.strip()}\n{README_END}{after}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--million", action="store_true", help="also build ~1 M atoms with PolyForge")
    parser.add_argument("--readme-only", action="store_true", help="rewrite bench/README.md from out/results.json")
    args = parser.parse_args()
    if args.readme_only:
        write_readme(json.loads((OUT / "results.json").read_text()))
        return
    OUT.mkdir(parents=True, exist_ok=True)
    # Time the engine as installed, its modules byte-compiled (as `make bootstrap` leaves them), not
    # compiled afresh by every run when the machine sets PYTHONDONTWRITEBYTECODE.
    subprocess.run([str(ENGINE_PYTHON), "-m", "compileall", "-q", str(ROOT / "engine" / "polyforge_engine")], check=True)
    results: dict[str, Any] = {
        "machine": subprocess.run(["uname", "-srm"], capture_output=True, text=True).stdout.strip(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip(),
        "load": [os.getloadavg()[0]],  # 1-minute load average at the start (and, below, at the end)
    }
    comparisons = [("PE-100x20_d0.1", "PE", 100, 20, 0.1), ("PEO-100x50_d0.8", "PEO", 100, 50, 0.8)]
    for name, kind, length, copies, density in comparisons:
        print(f"== {name}", flush=True)
        entry = {"polyforge": run_polyforge(name, UNITS[kind], length, copies, density)}
        print("polyforge", {k: v for k, v in entry["polyforge"].items() if k != "tail"}, flush=True)
        entry["packmol"] = run_packmol(name, UNITS[kind], length, copies, entry["polyforge"]["box"])
        print("packmol", {k: v for k, v in entry["packmol"].items() if k != "tail"}, flush=True)
        entry["polyply"] = run_polyply(name, kind, length, copies, density)
        print("polyply", {k: v for k, v in entry["polyply"].items() if k != "tail"}, flush=True)
        results[name] = entry
    scaling = [("PE-100x17_d0.1", 17), ("PE-100x166_d0.1", 166)] + ([("PE-100x1661_d0.1", 1661)] if args.million else [])
    results["scaling"] = {}
    for name, copies in scaling:
        print(f"== {name}", flush=True)
        results["scaling"][name] = run_polyforge(name, UNITS["PE"], 100, copies, 0.1, runs=1 if copies > 1000 else REPEATS)
        print({k: v for k, v in results["scaling"][name].items() if k != "tail"}, flush=True)
    results["load"].append(os.getloadavg()[0])
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    write_readme(results)


if __name__ == "__main__":
    main()

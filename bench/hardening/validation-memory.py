"""Peak memory and time of validate-structure and validate-topology on hostile uploads, before and
after their bounds, in one run: each engine command runs as its own process under /usr/bin/time -v,
on the engine of two trees (a `git archive` of each commit under /tmp, imported through PYTHONPATH
with this checkout's .venv), alternating before / after in every round.

    .venv/bin/python bench/hardening/validation-memory.py [--before d0f33f2] [--after HEAD] [--rounds 2]

The files (written under --work, never in the repository):
- point.pdb: 6,000 carbon atoms at one point (0.47 MB): every pair within bonding reach;
- conect.pdb: 2 atoms and 42 MB of CONECT records naming them;
- long-line.pdb: a 256 MB REMARK line, then 3 atoms;
- includes.top + structure.gro: 20,000 `#include "structure.gro"` lines (0.5 MB) before a valid
  topology of 2,000 waters (a 270 KB .gro);
- water.gro: 300,000 waters (900,000 atoms, 40 MB) on a lattice, a valid file, as the reference
  that the bounds cost a valid file nothing.
One JSON line per measurement goes to --out (default bench/hardening/validation-memory-<date>.jsonl);
bench/README.md has the figures ("Validation of hostile uploads").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "engine" / "tests"))

from test_structures_topology_includes import waters_top  # noqa: E402  (the tests' water topology)

PYTHON = ROOT / ".venv" / "bin" / "python"
MB = 1024 * 1024


def atom_line(serial: int, xyz: tuple[float, float, float], name: str = "C1", residue: str = "MOL", element: str = "C") -> str:
    x, y, z = xyz
    return f"HETATM{serial:5d} {name:<4} {residue:>3} A{1:4d}    {x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {element:>2}\n"


def write_files(work: Path) -> dict[str, dict[str, Any]]:
    """The hostile files and the reference, each with its engine command and job."""
    work.mkdir(parents=True, exist_ok=True)
    point = work / "point.pdb"
    point.write_text("".join(atom_line(i + 1, (1.0, 1.0, 1.0)) for i in range(6000)) + "END\n")
    conect = work / "conect.pdb"
    with conect.open("w") as out:
        out.write(atom_line(1, (0.0, 0.0, 0.0)) + atom_line(2, (1.5, 0.0, 0.0)))
        record = "CONECT    1    2    2    2    2\n"
        out.write(record * (42 * MB // len(record)))
        out.write("END\n")
    long_line = work / "long-line.pdb"
    with long_line.open("w") as out:
        out.write("REMARK ")
        chunk = "A" * MB
        for _ in range(256):
            out.write(chunk)
        out.write("\n" + "".join(atom_line(i + 1, (1.5 * i, 0.0, 0.0)) for i in range(3)) + "END\n")
    waters = 2000
    structure = work / "structure.gro"
    structure.write_text(water_gro(waters, 13))
    top = work / "includes.top"
    top.write_text('#include "structure.gro"\n' * 20_000 + waters_top(waters))
    reference = work / "water.gro"
    reference.write_text(water_gro(300_000, 67))
    return {
        "point.pdb (6,000 atoms at one point)": {"command": "validate-structure", "job": {"file": str(point)}},
        "conect.pdb (2 atoms, 42 MB of CONECT)": {"command": "validate-structure", "job": {"file": str(conect)}},
        "long-line.pdb (one 256 MB line)": {"command": "validate-structure", "job": {"file": str(long_line)}},
        "includes.top (20,000 includes of the structure)": {
            "command": "validate-topology",
            "job": {"topology_file": str(top), "structure_file": str(structure)},
        },
        "water.gro (900,000 atoms, valid)": {"command": "validate-structure", "job": {"file": str(reference)}},
    }


def water_gro(waters: int, side: int) -> str:
    """`waters` SPC-like waters on a cubic lattice of 0.31 nm, `side` sites along an edge."""
    lines = ["waters on a lattice", f"{3 * waters}"]
    for index in range(waters):
        i, j, k = index % side, (index // side) % side, index // (side * side)
        x, y, z = 0.31 * i + 0.1, 0.31 * j + 0.1, 0.31 * k + 0.1
        residue = (index + 1) % 100000
        for offset, (name, dx, dy) in enumerate((("OW", 0.0, 0.0), ("HW1", 0.0957, 0.0), ("HW2", -0.024, 0.0927))):
            number = (3 * index + offset + 1) % 100000
            lines.append(f"{residue:5d}{'SOL':<5}{name:>5}{number:5d}{x + dx:8.3f}{y + dy:8.3f}{z:8.3f}")
    edge = 0.31 * side + 0.2
    layers = -(-waters // (side * side))
    lines.append(f"{edge:10.5f}{edge:10.5f}{0.31 * layers + 0.2:10.5f}")
    return "\n".join(lines) + "\n"


def tree_of(commit: str, trees: Path) -> Path:
    """The engine of `commit`, extracted once under `trees`."""
    directory = trees / commit
    if not (directory / "engine" / "polyforge_engine").is_dir():
        directory.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "engine"], capture_output=True, check=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(directory, filter="data")
    return directory / "engine"


def measure(engine: Path, command: str, job: dict[str, Any], work: Path, timeout: float) -> dict[str, Any]:
    workdir = work / "run"
    workdir.mkdir(exist_ok=True)
    job_path = workdir / "job.json"
    job_path.write_text(json.dumps(job))
    environment = {**os.environ, "PYTHONPATH": str(engine)}
    started = time.perf_counter()
    try:
        process = subprocess.run(
            ["/usr/bin/time", "-v", str(PYTHON), "-m", "polyforge_engine", command, "--input", str(job_path), "--workdir", str(workdir)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environment,
            cwd=workdir,
        )
    except subprocess.TimeoutExpired:
        return {"wall_s": round(time.perf_counter() - started, 2), "answer": f"stopped after {timeout:.0f} s"}
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", process.stderr)
    cpu = sum(float(value) for value in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", process.stderr))
    last = process.stdout.strip().splitlines()[-1] if process.stdout.strip() else "{}"
    try:
        event = json.loads(last)
    except json.JSONDecodeError:
        event = {}
    if event.get("event") == "result":
        answer = "valid" if event.get("valid") else f"invalid: {str(event.get('message'))[:120]}"
    else:
        answer = f"{event.get('code', 'no answer')}: {str(event.get('message', process.stderr[-200:]))[:120]}"
    return {
        "wall_s": round(time.perf_counter() - started, 2),
        "cpu_s": round(cpu, 2),
        "peak_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "answer": answer,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="d0f33f2")
    parser.add_argument("--after", default="HEAD")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--work", type=Path, default=Path("/tmp/polyforge-validation-memory"))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "hardening" / f"validation-memory-{time.strftime('%Y-%m-%d')}.jsonl")
    args = parser.parse_args()
    commits = {
        label: subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], capture_output=True, text=True, check=True).stdout.strip()
        for label, ref in (("before", args.before), ("after", args.after))
    }
    engines = {label: tree_of(commit, args.work / "trees") for label, commit in commits.items()}
    files = write_files(args.work / "files")
    load = os.getloadavg()[0]
    with args.out.open("a") as out:
        for round_ in range(1, args.rounds + 1):
            for name, spec in files.items():
                for label in ("before", "after"):
                    figures = measure(engines[label], spec["command"], spec["job"], args.work, args.timeout)
                    line = {"file": name, "tree": label, "commit": commits[label], "round": round_, "load_1min": round(load, 2), **figures}
                    load = os.getloadavg()[0]
                    out.write(json.dumps(line) + "\n")
                    out.flush()
                    print(json.dumps(line), file=sys.stderr)


if __name__ == "__main__":
    main()

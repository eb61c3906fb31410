"""validate-structure on large generated .pdb and .gro files against MDAnalysis and ParmEd reading
the same files, and convert-smiles times, in one run.

    .venv/bin/python bench/structures/run_bench.py [--size-mb 2000] [--small-mb 250] [--work /tmp/h2-structures]

The files: a PolyForge melt (PE-100 x 10 at 0.80 g/cm3, built by build-structure, not timed) tiled
in a grid of cells until the file reaches the size, written as the engine writes (PDB: hexadecimal
serials past 99,999, CONECT for every bond, END; GRO: numbers wrapping at 100,000). They are written
under --work (never in the repository) and removed at the end unless --keep.

Every reader runs as its own process under /usr/bin/time -v (wall time, peak resident memory):
- PolyForge: `python -m polyforge_engine validate-structure` (read, bonds, molecules, kinds, summary);
- MDAnalysis: `mda.Universe(path)` and one pass over its positions (topology and coordinates read,
  no bonds guessed: less work than validate-structure does);
- ParmEd: `parmed.load_file(path)` (atoms, residues, CONECT bonds for a PDB).
Each peer reads the small file first; it reads the large file only when its memory per atom on the
small one, times the large file's atoms, fits under --peer-memory-gb, and the README says so when not.
Raw results: bench/structures/out/results.json; bench/README.md gets the section between its markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "engine"))

from polyforge_engine.construct.writers import _pdb_index  # noqa: E402
from polyforge_engine.structures.readers import read_structure  # noqa: E402


def polyforge_job(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The build-structure job of the build benchmark (bench/engine/run_bench.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("engine_bench", ROOT / "bench" / "engine" / "run_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.polyforge_job(*args, **kwargs)


PYTHON = ROOT / ".venv" / "bin" / "python"
OUT = ROOT / "bench" / "structures" / "out"
README_START = "<!-- structures benchmark: written by bench/structures/run_bench.py -->"
README_END = "<!-- end of structures benchmark -->"
MB = 1024 * 1024
PEER_SCRIPTS = {
    "mdanalysis": "import sys, MDAnalysis as mda\nu = mda.Universe(sys.argv[1])\nprint(len(u.atoms), float(u.atoms.positions.sum()))",
    "parmed": "import sys, parmed\ns = parmed.load_file(sys.argv[1])\nprint(len(s.atoms), len(s.bonds))",
}
# Peers that are programs rather than Python packages: GROMACS reads the file as a trajectory frame.
PEER_COMMANDS = {"gmx": ["gmx", "-quiet", "check", "-f"]}
PEERS = (*PEER_SCRIPTS, *PEER_COMMANDS)
# A ~200-heavy-atom molecule: melittin (26 residues), SMILES from its sequence by RDKit.
MELITTIN = "GIGAVLKVLTTGLPALISWIKRKRQQ"
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


def timed(command: list[str], cwd: Path, timeout: float = 7200) -> dict[str, Any]:
    started = time.perf_counter()
    process = subprocess.run(["/usr/bin/time", "-v", *command], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - started
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", process.stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", process.stderr))
    return {
        "ok": process.returncode == 0,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "peak_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "stdout_tail": process.stdout.strip().splitlines()[-1] if process.stdout.strip() else "",
        "stderr_tail": "" if process.returncode == 0 else process.stderr.strip()[-600:],
    }


def build_tile(work: Path) -> Path:
    tile = work / "tile"
    if (tile / "system.pdb").is_file():
        return tile
    tile.mkdir(parents=True, exist_ok=True)
    (tile / "job.json").write_text(json.dumps(polyforge_job("[*:1]CC[*:2]", 100, 10, 0.8)))
    run = timed([str(PYTHON), "-m", "polyforge_engine", "build-structure", "--input", "job.json", "--workdir", "."], tile)
    if not run["ok"]:
        raise SystemExit(f"the tile could not be built: {run['stderr_tail']}")
    return tile


def tile_grid(copies: int) -> tuple[int, int, int]:
    side = round(copies ** (1 / 3))
    nz = -(-copies // (side * side))
    return side, side, nz


def write_tiled(tile: Path, target: Path, size_mb: float) -> dict[str, Any]:
    """The tile repeated on a grid of cells until the file reaches about `size_mb`."""
    atoms = read_structure(tile / "system.pdb")
    xyz = atoms.xyz().astype(np.float64)
    box = np.array([float(np.linalg.norm(row)) for row in atoms.cell])
    names = [atoms.names.values[code] for code in atoms.name_of_atom]
    residues = [atoms.residue_names.values[atoms.name_of_residue[r]] for r in atoms.residue_of_atom]
    residue_of = np.frombuffer(atoms.residue_of_atom, dtype=np.int32)
    elements = atoms.element_symbols()
    bonds = np.unique(np.sort(np.asarray(atoms.bonds), axis=1), axis=0)  # CONECT lists each bond from both atoms
    count = atoms.count
    per_atom = {"pdb": 81 + 5 + 5 * 2 * len(bonds) / count + 6, "gro": 45}[target.suffix[1:]]
    copies = max(1, int(size_mb * MB / (per_atom * count)))
    nx, ny, nz = tile_grid(copies)
    partners: list[list[int]] = [[] for _ in range(count)]
    for a, b in bonds.tolist():
        partners[a].append(b)
        partners[b].append(a)
    started = time.perf_counter()
    with target.open("w") as out:
        if target.suffix == ".pdb":
            out.write(f"CRYST1{box[0] * nx:9.3f}{box[1] * ny:9.3f}{box[2] * nz:9.3f}  90.00  90.00  90.00 P 1           1\n")
            template = "".join(
                f"ATOM  %5s {(f' {n:<3}' if len(n) < 4 else n)} {r:>3} A%4d    %8.3f%8.3f%8.3f  1.00  0.00          {e:>2}\n"
                for n, r, e in zip(names, residues, elements, strict=True)
            )
        else:
            out.write(f"tiled PolyForge melt\n{copies * count:5d}\n")
            template = "".join(f"%5d{r:<5}{n:>5}%5d%8.3f%8.3f%8.3f\n" for n, r in zip(names, residues, strict=True))
        for copy in range(copies):
            shift = box * np.array([copy % nx, (copy // nx) % ny, copy // (nx * ny)])
            placed = (xyz + shift).tolist()
            first = copy * count
            if target.suffix == ".pdb":
                serials = [_pdb_index(first + i + 1, 5) for i in range(count)]
                numbers = [(copy * (int(residue_of[-1]) + 1) + r) % 9999 + 1 for r in residue_of.tolist()]
                out.write(template % tuple(v for i in range(count) for v in (serials[i], numbers[i], *placed[i])))
            else:
                out.write(
                    template
                    % tuple(
                        v
                        for i in range(count)
                        for v in ((copy * (residue_of[-1] + 1) + residue_of[i] + 1) % 100000, (first + i + 1) % 100000, *(c / 10 for c in placed[i]))
                    )
                )
        if target.suffix == ".pdb":
            for copy in range(copies):
                first = copy * count
                out.write(
                    "".join(
                        "CONECT" + _pdb_index(first + i + 1, 5) + "".join(_pdb_index(first + p + 1, 5) for p in partners[i][k : k + 4]) + "\n"
                        for i in range(count)
                        for k in range(0, len(partners[i]), 4)
                    )
                )
            out.write("END\n")
        else:
            out.write(f"{box[0] * nx / 10:10.5f}{box[1] * ny / 10:10.5f}{box[2] * nz / 10:10.5f}\n")
    return {
        "file": target.name,
        "atoms": copies * count,
        "size_mb": round(target.stat().st_size / MB, 1),
        "tiles": copies,
        "grid": [nx, ny, nz],
        "write_s": round(time.perf_counter() - started, 1),
    }


def run_polyforge(path: Path, work: Path) -> dict[str, Any]:
    workdir = work / f"validate-{path.stem}-{path.suffix[1:]}"
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "job.json").write_text(json.dumps({"file": str(path), "viewer_file": str(workdir / "viewer.pdb")}))
    run = timed([str(PYTHON), "-m", "polyforge_engine", "validate-structure", "--input", "job.json", "--workdir", "."], workdir)
    if run["ok"]:
        result = json.loads(run["stdout_tail"])
        run["ok"] = bool(result.get("valid"))
        run["answer"] = {key: result.get(key) for key in ("valid", "atoms", "molecules", "type", "message")}
        run["answer"]["kinds"] = len(result.get("kinds") or [])
        run["stdout_tail"] = run["stdout_tail"][:300]
    return run


def run_peer(peer: str, path: Path, work: Path) -> dict[str, Any]:
    if peer in PEER_COMMANDS:
        return timed([*PEER_COMMANDS[peer], str(path)], work)
    script = work / f"peer_{peer}.py"  # not parmed.py: it would shadow the package it imports
    script.write_text(PEER_SCRIPTS[peer])
    return timed([str(PYTHON), str(script), str(path)], work)


def convert_smiles_times(work: Path) -> dict[str, Any]:
    from rdkit import Chem

    melittin = Chem.MolToSmiles(Chem.MolFromSequence(MELITTIN))
    results = {}
    for name, smiles in (("aspirin", ASPIRIN), ("melittin", melittin)):
        heavy = Chem.MolFromSmiles(smiles).GetNumHeavyAtoms()
        runs = []
        for attempt in range(3):
            workdir = work / f"smiles-{name}-{attempt}"
            workdir.mkdir(parents=True, exist_ok=True)
            (workdir / "job.json").write_text(json.dumps({"smiles": smiles}))
            runs.append(timed([str(PYTHON), "-m", "polyforge_engine", "convert-smiles", "--input", "job.json", "--workdir", "."], workdir))
        walls = sorted(run["wall_s"] for run in runs)
        results[name] = {"heavy_atoms": heavy, "walls_s": walls, "median_s": walls[1], "ok": all(run["ok"] for run in runs)}
    return results


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=float, default=2000)
    parser.add_argument("--small-mb", type=float, default=250)
    parser.add_argument("--work", type=Path, default=Path("/tmp/h2-structures"))
    parser.add_argument("--peer-memory-gb", type=float, default=12)
    parser.add_argument("--peer-max-mb", type=float, default=1e9, help="files larger than this are read by PolyForge only")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--note", default="", help="a sentence for the README about this run")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--readme-only", action="store_true", help="rewrite the README section from out/results.json")
    parser.add_argument("--polyforge-again", nargs="*", default=[], help="e.g. small.pdb: PolyForge measured again, peers kept")
    parser.add_argument("--polyforge-only-mb", type=float, default=0, help="add files of this size read by PolyForge alone")
    parser.add_argument("--peers", nargs="*", default=list(PEERS), choices=PEERS, help="the peers to run (default: all)")
    parser.add_argument("--results", type=Path, default=OUT / "results.json", help="where the raw figures go")
    parser.add_argument("--no-readme", action="store_true", help="leave bench/README.md alone (figures written by hand)")
    parser.add_argument("--skip-smiles", action="store_true", help="no convert-smiles times")
    parser.add_argument("--formats", nargs="*", default=["pdb", "gro"], choices=["pdb", "gro"], help="the file formats to write and read")
    return parser.parse_args()


def head_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def add_polyforge_only(args: argparse.Namespace, tile: Path) -> None:
    """One more size, PolyForge alone, added to the last run's results."""
    results = json.loads((OUT / "results.json").read_text())
    for suffix in ("pdb", "gro"):
        path = args.work / f"melt-xl.{suffix}"
        info = write_tiled(tile, path, args.polyforge_only_mb)
        print(f"wrote {path.name}: {info}", flush=True)
        entry = {**info, "polyforge": run_polyforge(path, args.work)}
        for peer in PEER_SCRIPTS:
            entry[peer] = {"ok": False, "skipped": "not run at this size: PolyForge alone, after the main run"}
        results["files"][f"xl.{suffix}"] = entry
        print(f"  polyforge {entry['polyforge']}", flush=True)
        path.unlink()
        (OUT / "results.json").write_text(json.dumps(results, indent=2))
        write_readme(results)


def measure_polyforge_again(args: argparse.Namespace, tile: Path) -> None:
    """PolyForge measured again on files of the last run, the peers' figures kept."""
    results = json.loads((OUT / "results.json").read_text())
    for key in args.polyforge_again:
        label, suffix = key.split(".")
        path = args.work / f"melt-{label}.{suffix}"
        info = write_tiled(tile, path, args.small_mb if label == "small" else args.size_mb)
        entry = results["files"][key]
        assert info["atoms"] == entry["atoms"], "not the same file as the last run"
        entry["polyforge"] = run_polyforge(path, args.work)
        entry["polyforge_commit"] = head_commit()
        print(f"  polyforge {entry['polyforge']}", flush=True)
        path.unlink()
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    write_readme(results)


def peer_skip_reason(args: argparse.Namespace, results: dict[str, Any], label: str, suffix: str, peer: str, info: dict[str, Any]) -> str | None:
    """Why a peer is not run on this file: over the size cap, or projected from the small file to need too much memory."""
    if info["size_mb"] > args.peer_max_mb:
        return f"not run: files over {args.peer_max_mb:g} MB are read by PolyForge only in this run"
    small_file = results["files"].get(f"small.{suffix}", {})
    small = small_file.get(peer)
    if label == "large" and small and small.get("ok") and small.get("peak_mb"):
        projected = small["peak_mb"] / small_file["atoms"] * info["atoms"] / 1024
        if projected > args.peer_memory_gb:
            return f"not run: projected {projected:.0f} GB of memory (> {args.peer_memory_gb:g} GB)"
    return None


def measure_all(args: argparse.Namespace, tile: Path) -> None:
    """Every size and format, PolyForge then each peer, saved after every measurement."""
    load_start = os.getloadavg()[0]
    results: dict[str, Any] = {"machine": f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores"}
    results.update(commit=head_commit(), files={}, convert_smiles={}, note=args.note)

    def save() -> None:  # after every measurement: a run cut short still reports what it measured
        results["load_average"] = [round(load_start, 2), round(os.getloadavg()[0], 2)]
        args.results.write_text(json.dumps(results, indent=2))
        if not args.no_readme:
            write_readme(results)

    sizes = [("small", args.small_mb)] + ([] if args.skip_large else [("large", args.size_mb)])
    for label, size in sizes:
        for suffix in args.formats:
            path = args.work / f"melt-{label}.{suffix}"
            info = write_tiled(tile, path, size)
            print(f"wrote {path.name}: {info}", flush=True)
            entry = {**info, "polyforge": run_polyforge(path, args.work)}
            results["files"][f"{label}.{suffix}"] = entry
            print(f"  polyforge {entry['polyforge']}", flush=True)
            save()
            for peer in args.peers:
                reason = peer_skip_reason(args, results, label, suffix, peer, info)
                entry[peer] = {"ok": False, "skipped": reason} if reason else run_peer(peer, path, args.work)
                print(f"  {peer} {entry[peer]}", flush=True)
                save()
            if not args.keep:
                path.unlink()
        if label == "small" and not args.skip_smiles:
            results["convert_smiles"] = convert_smiles_times(args.work)
            save()


def main() -> None:
    args = parse_args()
    if args.readme_only:
        results = json.loads((OUT / "results.json").read_text())
        results["note"] = args.note or results.get("note", "")
        write_readme(results)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    OUT.mkdir(parents=True, exist_ok=True)
    tile = build_tile(args.work)
    if args.polyforge_only_mb:
        add_polyforge_only(args, tile)
    elif args.polyforge_again:
        measure_polyforge_again(args, tile)
    else:
        measure_all(args, tile)


def _rate(entry: dict[str, Any], run: dict[str, Any]) -> tuple[str, str, str]:
    if not run:
        return ("—", "—", "not run")
    if not run.get("ok"):
        return ("—", "—", run.get("skipped") or "failed: " + (run.get("stderr_tail") or str(run.get("answer")))[-120:].replace("\n", " ").replace("|", "/"))
    speed = entry["size_mb"] / run["cpu_s"]
    per_million = run["peak_mb"] / (entry["atoms"] / 1e6)
    return (f"{speed:.1f}", f"{per_million:.0f}", f"{run['cpu_s']:.1f} s CPU ({run['wall_s']:.0f} s wall), peak {run['peak_mb'] / 1024:.2f} GB")


def write_readme(results: dict[str, Any]) -> None:
    """The README section from a run's results (also: `--readme-only` from out/results.json)."""
    lines = [
        README_START,
        "## Engine: validate-structure on large files (PolyForge vs MDAnalysis and ParmEd)",
        "",
        f"Written by `bench/structures/run_bench.py` from its last run (raw figures: `bench/structures/out/results.json`, "
        f"not committed), engine at commit `{results['commit']}`. Machine: {results['machine']} of a shared virtual machine "
        f"(1-minute load average {results['load_average'][0]} → {results['load_average'][1]} from start to end).",
        "",
        "Files: a PolyForge PE melt (PE-100 × 10, 0.80 g/cm³, 6,020 atoms) tiled on a grid of cells and written as the engine "
        "writes (PDB: hexadecimal serials past 99,999, CONECT for every bond, END; GRO: numbers wrapping at 100,000), under "
        "/tmp, never committed. Each reader is its own process under `/usr/bin/time -v`; MB/s is file size / CPU time "
        "(user + system, start-up included: on a shared machine CPU time is steadier than wall time, and every reader here "
        "runs on one core), memory is the peak resident size per million atoms. PolyForge does more than the peers: it "
        "also perceives bonds (from CONECT, or from distances through the periodic cell for the GRO), finds the molecules "
        "and their kinds, and writes nothing but its summary for files past 99,999 atoms. MDAnalysis: `Universe(path)` and "
        "one pass over positions. ParmEd: `load_file(path)`.",
        "",
        "Reproduce: `.venv/bin/pip install mdanalysis` (ParmEd is an engine dependency), then "
        "`.venv/bin/python bench/structures/run_bench.py` (defaults: peers and PolyForge on 250 MB files, PolyForge "
        "and, where their projected memory fits, the peers on 2000 MB files; about an hour on 2 quiet cores; ~4 GB of "
        "/tmp). " + results.get("note", ""),
        "",
        "| file | atoms | MB | reader | MB/s | peak MB per million atoms | CPU time (wall), peak | peer / PolyForge (CPU time; peak memory) |",
        "|---|---:|---:|---|---:|---:|---|---|",
    ]
    for key, entry in results["files"].items():
        ours = entry["polyforge"]
        for reader in ("polyforge", *PEERS):
            run = entry.get(reader, {})
            speed, memory, note = _rate(entry, run)
            ratio = ""
            if reader != "polyforge" and run.get("ok") and ours.get("ok"):
                ratio = f"{run['cpu_s'] / ours['cpu_s']:.2f}; {run['peak_mb'] / ours['peak_mb']:.2f}"
            if reader == "polyforge" and entry.get("polyforge_commit"):
                note += f" (measured again at `{entry['polyforge_commit']}`)"
            lines.append(f"| {key} | {entry['atoms']:,} | {entry['size_mb']:,.0f} | {reader} | {speed} | {memory} | {note} | {ratio} |")
    lines += [
        "",
        "convert-smiles (whole command: start-up, ETKDG embedding, MMFF minimisation, writing PDB/GRO/SDF), three runs:",
        "",
        "| molecule | heavy atoms | median s | runs, s |",
        "|---|---:|---:|---|",
    ]
    for name, run in results["convert_smiles"].items():
        lines.append(f"| {name} | {run['heavy_atoms']} | {run['median_s']:.2f} | {', '.join(f'{w:.2f}' for w in run['walls_s'])} |")
    lines.append(README_END)
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text()
    block = "\n".join(lines) + "\n"
    if README_START in text:
        text = text[: text.index(README_START)] + block + text[text.index(README_END) + len(README_END) + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    readme.write_text(text)


if __name__ == "__main__":
    main()

"""Chain statistics of built melts against unperturbed single chains and literature, and build time
against the engine before these changes, in one run.

    .venv/bin/python bench/chains/run.py [--seeds 5] [--base /tmp/h4-base/engine]

For PE, atactic PS, PEO and atactic PMMA (100-unit chains): melts at 0.85, 1.04, 1.1 and 1.17 g/cm³
and single chains (8 per cell at 0.002 g/cm³, where they hardly meet), each built with seeds 1..N by `build_structure` in this
process; measured from the coordinates alone (bench/chains/measure.py): C(m) = <R²(m)> / (m l²)
over every pair of backbone atoms m bonds apart, backbone torsion populations per bond kind, meso
fraction. Timing: the `build-structure` command of this engine and of `--base` (an export of the
engine before, with its compiled modules built) on the same jobs, alternating, each its own process;
"now" with this engine's store on disk filled by an untimed build first, "now_cold" with it empty.
Writes bench/chains/out/results.json (not committed) and bench/chains/cm.png.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# The engine tests' conftest runs every build on one thread; a timed build runs as a job does, on the
# threads it is given (every CPU unless POLYFORGE_ENGINE_THREADS was set before this script).
THREADS = os.environ.get("POLYFORGE_ENGINE_THREADS")
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "engine" / "tests"))
sys.path.insert(0, str(Path(__file__).parent))

import measure  # noqa: E402
from conftest import homopolymer_job  # noqa: E402
from polyforge_engine.construct.chain_statistics import BUILD_TEMPERATURE  # noqa: E402
from polyforge_engine.construct.structure import build_structure  # noqa: E402
from polyforge_engine.job import parse_build_job  # noqa: E402

POLYMERS = {
    # name: unit, melt density g/cm³, chains in the melt, literature C∞ range (unperturbed)
    "PE": ("[*:1]CC[*:2]", 0.85, 10, (6.7, 8.3)),
    "aPS": ("[*:1]CC([*:2])c1ccccc1", 1.04, 6, (9.5, 10.0)),
    "PEO": ("[*:1]CCO[*:2]", 1.1, 10, (4.1, 5.6)),
    "aPMMA": ("[*:1]CC(C(=O)OC)(C)[*:2]", 1.17, 6, (8.0, 9.0)),
}
UNITS = 100
SINGLE_DENSITY = 0.002  # g/cm³: chains in a cell far larger than they are, which they hardly ever meet
SINGLE_CHAINS = 8


def chain_measures(result) -> dict:
    return {
        **backbone_measures(result.kinds[0], result.positions, result.molecule_offsets),
        "meso_fraction": result.report["polymers"][0]["meso_fraction"],
        "density": result.report["density"],
        "min_inter": result.report["min_intermolecular_distance"],
        "min_intra": result.report["min_intramolecular_nonbonded_distance"],
    }


def backbone_measures(kind, positions: np.ndarray, offsets) -> dict:
    """C(m) data and torsion populations of the backbones of molecules of one kind starting at `offsets`."""
    path = measure.backbone(kind.mol, *kind.end_atoms)
    symbols = [kind.mol.GetAtomWithIdx(a).GetSymbol() for a in path]
    r2, l2, phis = [], [], []
    for start in (int(offset) for offset in offsets):
        xyz = positions[start : start + kind.atom_count]
        ms, r = measure.internal_distances(xyz, path)
        r2.append(r)
        l2.append(measure.mean_square_bond(xyz, path))
        phis.append(measure.dihedrals(xyz, path))
    states = measure.states(np.array(phis))
    by_kind: dict[str, list[int]] = {}
    for i in range(states.shape[1]):
        by_kind.setdefault("-".join(symbols[i : i + 4]), []).append(i)
    opposite = ((states[:, :-1] == 1) & (states[:, 1:] == 2)) | ((states[:, :-1] == 2) & (states[:, 1:] == 1))
    return {
        "m": ms.tolist(),
        "r2": np.mean(r2, axis=0).tolist(),
        "l2": float(np.mean(l2)),
        "trans": float((states == 0).mean()),
        "gauche_opposite_pairs": float(opposite.mean()),
        "torsions": {key: {"trans": float((states[:, cols] == 0).mean()), "gauche": float((states[:, cols] != 0).mean())} for key, cols in by_kind.items()},
    }


def c_of_m(runs: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    m = np.array(runs[0]["m"])
    r2 = np.mean([run["r2"] for run in runs], axis=0)
    l2 = np.mean([run["l2"] for run in runs])
    return m, r2 / (m * l2)


def c_infinity(m: np.ndarray, c: np.ndarray) -> float:
    """The plateau: mean C(m) over m from 40 % to 80 % of the backbone (beyond, few pairs)."""
    window = (m >= 0.4 * m.max()) & (m <= 0.8 * m.max())
    return float(c[window].mean())


def timed(engine_dir: Path, job: dict, workdir: Path, cache: Path | None = None) -> float:
    """Wall seconds of one build-structure run; `cache`: the relaxed-torsion store it sees (an empty
    one for a first build of that chemistry on the machine), else the one this run filled."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "job.json").write_text(json.dumps(job))
    env = dict(os.environ, PYTHONPATH=str(engine_dir))
    if THREADS is None:
        env.pop("POLYFORGE_ENGINE_THREADS", None)
    if cache is not None:
        env["POLYFORGE_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "polyforge_engine", "build-structure", "--input", "job.json", "--workdir", "."],
        cwd=workdir,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--base", type=Path, default=None, help="engine directory of the build before, for timing")
    parser.add_argument("--only", nargs="*", default=list(POLYMERS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out", help="directory for results.json")
    parser.add_argument(
        "--merge", type=Path, default=None, help="results.json of an earlier run: its polymers not measured here, and its timing if none here, are kept"
    )
    parser.add_argument("--timing", nargs="*", default=None, help="with --base: only these timing jobs (labels)")
    parser.add_argument("--reference", type=Path, default=None, help="reference.json of bench/chains/reference.py: its ideal chains drawn too")
    args = parser.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {"build_temperature": BUILD_TEMPERATURE, "units": UNITS, "polymers": {}, "timing": []}
    scratch = Path(tempfile.mkdtemp(prefix="h4-chains-"))
    # Relaxed torsion scans (construct/relaxed_torsions.py) stored for this run only: the builds below
    # fill it, and the timed "now" builds find it filled, as on a machine that built these before.
    os.environ["POLYFORGE_CACHE_DIR"] = str(scratch / "cache")
    for name in args.only:
        unit, density, chains, literature = POLYMERS[name]
        entry = {"literature": literature, "melt": [], "single": [], "melt_seconds": []}
        for seed in range(1, args.seeds + 1):
            started = time.perf_counter()
            melt = build_structure(parse_build_job(homopolymer_job(unit, UNITS, chains, density=density, seed=seed)), scratch / "w")
            entry["melt_seconds"].append(time.perf_counter() - started)
            entry["melt"].append(chain_measures(melt))
            single = build_structure(parse_build_job(homopolymer_job(unit, UNITS, SINGLE_CHAINS, density=SINGLE_DENSITY, seed=seed)), scratch / "w")
            entry["single"].append(chain_measures(single))
            print(name, seed, f"melt {entry['melt_seconds'][-1]:.1f} s", flush=True)
        for which in ("melt", "single"):
            m, c = c_of_m(entry[which])
            entry[f"{which}_c_inf"] = c_infinity(m, c)
            entry[f"{which}_trans"] = float(np.mean([run["trans"] for run in entry[which]]))
            entry[f"{which}_gauche_opposite_pairs"] = float(np.mean([run["gauche_opposite_pairs"] for run in entry[which]]))
            keys = entry[which][0]["torsions"].keys()
            entry[f"{which}_torsions"] = {key: float(np.mean([run["torsions"][key]["trans"] for run in entry[which]])) for key in keys}
            meso = [run["meso_fraction"] for run in entry[which] if run["meso_fraction"] is not None]
            entry[f"{which}_meso"] = float(np.mean(meso)) if meso else None
        results["polymers"][name] = entry
        print(name, {k: v for k, v in entry.items() if k.endswith(("c_inf", "trans", "pairs", "meso", "torsions"))}, flush=True)
    trans, pairs, ris_c = measure.ris_polyethylene(BUILD_TEMPERATURE)
    results["ris_pe"] = {"trans": trans, "gauche_opposite_pairs": pairs, "c_inf": ris_c}
    if args.base:
        # label: (job, alternating rounds)
        jobs = {
            "PE-100x17_d0.1": (homopolymer_job(POLYMERS["PE"][0], 100, 17, density=0.1, seed=1), 3),
            "PE-100x166_d0.1": (homopolymer_job(POLYMERS["PE"][0], 100, 166, density=0.1, seed=1), 3),
            "PEO-100x50_d0.8": (homopolymer_job(POLYMERS["PEO"][0], 100, 50, density=0.8, seed=1), 5),
            "PE-100x17_d0.85": (homopolymer_job(POLYMERS["PE"][0], 100, 17, density=0.85, seed=1), 3),
            "aPS-100x6_d1.04": (homopolymer_job(POLYMERS["aPS"][0], 100, 6, density=1.04, seed=1), 3),
            "PS-100x10_d0.8": (homopolymer_job(POLYMERS["aPS"][0], 100, 10, density=0.8, seed=1), 3),
            "aPS-100x60_d1.04": (homopolymer_job(POLYMERS["aPS"][0], 100, 60, density=1.04, seed=1), 2),
            "aPMMA-100x6_d1.17": (homopolymer_job(POLYMERS["aPMMA"][0], 100, 6, density=1.17, seed=1), 3),
        }
        for label, (job, rounds) in jobs.items():
            if args.timing and label not in args.timing:
                continue
            times = {"before": [], "now": [], "now_cold": []}
            # Untimed, so that every timed "now" build finds this chemistry's store filled, as stated
            # (with --seeds 0 no melt filled it and the first "now" was a cold build).
            timed(ROOT / "engine", job, scratch / "now")
            for _ in range(rounds):  # alternating, so both meet the same spells of the shared machine
                times["before"].append(timed(args.base, job, scratch / "before"))
                times["now"].append(timed(ROOT / "engine", job, scratch / "now"))
                # The first build of a chemistry on a machine computes its relaxed torsion scans.
                times["now_cold"].append(timed(ROOT / "engine", job, scratch / "cold", Path(tempfile.mkdtemp(prefix="chains-cold-", dir=scratch))))
            results["timing"].append({"system": label, **times})
            print(label, times, flush=True)
    if args.merge:
        earlier = json.loads(args.merge.read_text())
        for name, entry in earlier["polymers"].items():
            results["polymers"].setdefault(name, entry)
        results["polymers"] = {name: results["polymers"][name] for name in POLYMERS if name in results["polymers"]}
        results["timing"] = results["timing"] or earlier["timing"]
    if args.reference:
        results["reference"] = json.loads(args.reference.read_text())
    (out / "results.json").write_text(json.dumps(results, indent=1))
    if results["polymers"]:
        plot(results, Path(__file__).parent / "cm.png")


# Reference chains of reference.py drawn in cm.png where measured: its label, legend, line style.
REFERENCE_CURVES = (
    ("local 4", "EV within 4 units only, 0.93 Å", (0, (1, 1))),
    ("local 4 scale 1", "EV within 4 units only, 1.53 Å", (0, (4, 2))),
    ("phantom", "lone phantom chain, 0.93 Å at all ranges", "-."),
)


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results["polymers"])
    columns = min(2, len(names))
    rows = -(-len(names) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5.5 * columns, 4.0 * rows), squeeze=False)
    for axis, name in zip(axes.ravel(), names, strict=False):
        entry = results["polymers"][name]
        for which, style in (("single", "-"), ("melt", "--")):
            m, c = c_of_m(entry[which])
            axis.plot(m, c, style, label=f"{which} (C∞ ≈ {entry[f'{which}_c_inf']:.1f})")
        for label, legend, style in REFERENCE_CURVES:
            reference = results.get("reference", {}).get(name, {}).get(label)
            if reference:
                m, c = c_of_m(reference["runs"])
                axis.plot(m, c, ls=style, color="k", lw=1.0, label=f"{legend} ({reference['c_inf']:.1f})")
        low, high = entry["literature"]
        axis.axhspan(low, high, color="0.85", label="literature C∞")
        if name == "PE":
            axis.axhline(results["ris_pe"]["c_inf"], color="tab:red", lw=0.8, ls=":", label=f"RIS (Flory) {results['ris_pe']['c_inf']:.1f}")
        axis.set_title(name)
        axis.set_xlabel("m (backbone bonds)")
        axis.set_ylabel("C(m)")
        axis.legend(fontsize=7)
    for axis in axes.ravel()[len(names) :]:
        axis.remove()
    figure.tight_layout()
    figure.savefig(path, dpi=80)


if __name__ == "__main__":
    main()

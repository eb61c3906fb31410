"""Unperturbed reference chains: C(m) of lone ideal chains with the builder's own local statistics.

    .venv/bin/python bench/chains/reference.py [--chains 40] [--seeds 2] [--local 2 4] [--only aPS aPMMA]

The melt C(m) of bench/chains/run.py is held against this. Chains are grown by the engine's own
`SystemGrower` (construct/growth.py) in its phantom mode, as PE and PEO melts are placed before their
push-off (structure.py): states drawn from the same transfer tables (relaxed-torsion corrections,
pairs up to four bonds apart, 400 K, atactic meso 0.5), molecules blind to one another (inter = 0),
the softer limits of phantom placement (SOFT_LIMIT_SCALE: 0.93 Å within a molecule, look-ahead
points 0.8 Å more), in a 500 Å cell where a chain never meets its images. Two kinds of reference:

- "phantom": the engine's phantom mode as it is: every pair of atoms of a chain more than three bonds
  apart keeps 0.93 Å, however far apart along the chain (a weak long-range excluded volume);
- "local K": only atoms in units at most K apart along the chain keep it (the same limit), pairs
  farther apart along the chain may overlap: an ideal chain with excluded volume between near
  neighbours only (for polystyrene, phenyls of neighbouring units cannot interpenetrate), which is
  the unperturbed chain of RIS theory. Done by the grower's `window` (K units), the mode in which
  melts are placed (structure.PHANTOM_WINDOW = 4): 'local 4' as ring-free chains are, 'local 4 scale 1'
  (the full limits) as chains with rings are.

Writes --out/reference.json; run.py --reference draws its curves into cm.png.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import run  # also puts engine/ and engine/tests on the path
from conftest import homopolymer_job
from polyforge_engine.construct.growth import SystemGrower, Tolerances
from polyforge_engine.construct.report import meso_fraction
from polyforge_engine.construct.structure import SOFT_LIMIT_SCALE, STARTS, _assemble_kinds, _molecule_order
from polyforge_engine.job import parse_build_job

BOX = 500.0  # Å a side


def grow_reference(unit: str, units: int, chains: int, seed: int, units_apart: int | None, scale: float) -> tuple[dict, float]:
    """`chains` lone chains of `units` units grown in phantom mode; measured as run.py measures melts."""
    job = parse_build_job(homopolymer_job(unit, units, chains, cell_sides=[BOX, BOX, BOX], seed=seed))
    rng = np.random.default_rng(seed)
    templates, kinds, kind_index = _assemble_kinds(job, rng, lambda stage, percent: None)
    order = _molecule_order(job, kind_index, rng)
    total_atoms = sum(kinds[k].atom_count for k in order)
    grower = SystemGrower(
        kinds, templates, np.full(3, BOX), False, rng, Tolerances(), total_atoms, starts=STARTS, limit_scale=scale, phantom=True, window=units_apart
    )
    started = time.perf_counter()
    positions = grower.grow(order, lambda fraction: None)
    seconds = time.perf_counter() - started
    offsets = grower.molecule_offsets
    measures = run.backbone_measures(kinds[0], positions, offsets)
    measures["meso_fraction"] = meso_fraction(positions, kinds[0], list(offsets), templates)
    measures["backoffs"] = int(grower._backoffs)
    return measures, seconds


PICKS = (10, 20, 40, 80, 120, 180)  # m of the table


def curve_with_error(runs: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """m, C(m) of the pooled runs, its standard error over the runs (seeds), C∞ and its error."""
    m, c = run.c_of_m(runs)
    each = np.array([np.array(r["r2"]) / (m * r["l2"]) for r in runs])
    plateaus = [run.c_infinity(m, row) for row in each]
    return m, c, each.std(axis=0, ddof=1) / np.sqrt(len(runs)), run.c_infinity(m, c), float(np.std(plateaus, ddof=1) / np.sqrt(len(runs)))


def compare(results_path: Path, reference_path: Path, names: list[str], labels: list[str]) -> None:
    """Markdown rows: C(m) at PICKS and C∞ of the melts (run.py) and of the references, ± one standard error over seeds."""
    melts = json.loads(results_path.read_text())["polymers"]
    references = json.loads(reference_path.read_text())
    print("| polymer | chains | " + " | ".join(f"C({k})" for k in PICKS) + " | C∞ |")
    print("|---|---|" + "---:|" * (len(PICKS) + 1))
    for name in names:
        rows = [("melt", melts[name]["melt"]), ("single", melts[name]["single"])] + [
            (label, references[name][label]["runs"]) for label in labels if label in references.get(name, {})
        ]
        for label, runs in rows:
            _, c, error, plateau, plateau_error = curve_with_error(runs)
            cells = [f"{c[k - 1]:.2f} ± {error[k - 1]:.2f}" for k in PICKS]
            print(f"| {name} | {label} | " + " | ".join(cells) + f" | {plateau:.2f} ± {plateau_error:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chains", type=int, default=40, help="chains per seed")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--units", type=int, default=run.UNITS)
    parser.add_argument("--local", type=int, nargs="*", default=[2], help="K of the 'local K' references")
    parser.add_argument("--scale", type=float, default=SOFT_LIMIT_SCALE, help="limit scale (phantom placement's; 1: the full limits)")
    parser.add_argument("--no-phantom", action="store_true", help="skip the engine's phantom mode as it is")
    parser.add_argument("--only", nargs="*", default=["aPS", "aPMMA"])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--compare", type=Path, default=None, help="results.json of run.py: print the table of melts against reference.json, grow nothing")
    parser.add_argument("--labels", nargs="*", default=["phantom", "local 2"], help="references in the --compare table")
    args = parser.parse_args()
    if args.compare:
        compare(args.compare, args.out / "reference.json", args.only, args.labels)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "reference.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    variants: list[int | None] = ([] if args.no_phantom else [None]) + list(args.local)
    for name in args.only:
        unit = run.POLYMERS[name][0]
        for units_apart in variants:
            label = "phantom" if units_apart is None else f"local {units_apart}"
            label += "" if args.scale == SOFT_LIMIT_SCALE else f" scale {args.scale:g}"
            label += "" if args.units == run.UNITS else f" {args.units} units"
            runs, seconds = [], []
            for seed in range(1, args.seeds + 1):
                measures, took = grow_reference(unit, args.units, args.chains, seed, units_apart, args.scale)
                runs.append(measures)
                seconds.append(took)
                print(name, label, seed, f"{took:.1f} s, {measures['backoffs']} back-offs", flush=True)
            m, c = run.c_of_m(runs)
            entry = {
                "units": args.units,
                "chains": args.chains * args.seeds,
                "runs": runs,
                "c_inf": run.c_infinity(m, c),
                "trans": float(np.mean([r["trans"] for r in runs])),
                "meso": float(np.mean([r["meso_fraction"] for r in runs if r["meso_fraction"] is not None] or [np.nan])),
                "seconds": seconds,
            }
            results.setdefault(name, {})[label] = entry
            picks = {int(k): round(float(c[k - 1]), 2) for k in (10, 20, 40, 80, 120, 180) if k <= len(c)}
            print(name, label, f"C∞ {entry['c_inf']:.2f} trans {entry['trans']:.3f} meso {entry['meso']:.3f}", picks, flush=True)
            path.write_text(json.dumps(results))


if __name__ == "__main__":
    main()

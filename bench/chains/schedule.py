"""Melt statistics and build time for a variant of the relaxation schedule (construct/compress.py).

    .venv/bin/python bench/chains/schedule.py [--set NAME=VALUE ...] [--only PE aPS PEO aPMMA] [--seeds 10] [--first 1]

Builds the melts of run.py (100-unit chains at their melt densities) with `build_structure` in this
process, on one thread (the engine tests' setting: a seed's structure is the same on any number),
after setting compress.py's constants as given (`--set RING_GROWTH_ITERATIONS=100`, values as Python
literals), and prints per polymer over the seeds: C∞ (run.py's window), backbone trans fraction and
consecutive g±g∓ pairs (measure.py), torsion populations per bond kind, the junction staggering (mean
cos 3φ about bonds between units, engine/tests/test_build_structure.py), how many placements the
builds took (a second one: the first push-off missed the limits) and the median build seconds.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import run  # also puts engine/ and engine/tests on the path
from conftest import homopolymer_job
from polyforge_engine.construct import compress, structure
from polyforge_engine.job import parse_build_job
from test_build_structure import junction_staggering


def counting_placements() -> list[int]:
    """Counts structure._relax calls (one per placement that reached the relaxation) in the list returned."""
    calls = [0]
    relax = structure._relax

    def counted(*args, **kwargs):
        calls[0] += 1
        return relax(*args, **kwargs)

    structure._relax = counted
    return calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE", help="compress.py constants to change")
    parser.add_argument("--only", nargs="*", default=list(run.POLYMERS))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first", type=int, default=1, help="first seed")
    args = parser.parse_args()
    for assignment in args.set:
        name, value = assignment.split("=", 1)
        if not hasattr(compress, name):
            raise SystemExit(f"compress.py has no {name}")
        setattr(compress, name, ast.literal_eval(value))
    placements = counting_placements()
    workdir = Path(tempfile.mkdtemp(prefix="schedule-"))
    for name in args.only:
        unit, density, chains, _ = run.POLYMERS[name]
        runs, seconds, staggering = [], [], []
        placements[0] = 0
        for seed in range(args.first, args.first + args.seeds):
            started = time.perf_counter()
            result = structure.build_structure(parse_build_job(homopolymer_job(unit, run.UNITS, chains, density=density, seed=seed)), workdir)
            seconds.append(time.perf_counter() - started)
            runs.append(run.chain_measures(result))
            staggering.append(junction_staggering(result))
        m, c = run.c_of_m(runs)
        summary = {
            "c_inf": round(run.c_infinity(m, c), 2),
            "trans": round(float(np.mean([r["trans"] for r in runs])), 3),
            "gauche_opposite_pairs": round(float(np.mean([r["gauche_opposite_pairs"] for r in runs])), 4),
            "torsions": {key: round(float(np.mean([r["torsions"][key]["trans"] for r in runs])), 3) for key in runs[0]["torsions"]},
            "junction_cos3phi": round(float(np.mean(staggering)), 3),
            "junction_cos3phi_by_seed": [round(value, 2) for value in staggering],
            "placements": placements[0],
            "median_seconds": round(float(np.median(seconds)), 2),
        }
        print(name, json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()

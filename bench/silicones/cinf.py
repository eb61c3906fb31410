"""PDMS chain dimensions as the builder places them (MMFF94 torsion statistics, which have silicon):
C(m) = <R²(m)> / (m l²) along the Si-O backbone and its plateau C∞, measured with bench/chains'
tools on melts at 0.97 g/cm³ and on lone chains (0.002 g/cm³), several seeds.

  nice -n 10 .venv/bin/python bench/silicones/cinf.py --seeds 3 --units 100 --out /tmp/si/cinf"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "chains"))
sys.path.insert(0, str(ROOT / "engine" / "tests"))

from conftest import homopolymer_job  # noqa: E402
from polyforge_engine.build.structure import build_structure  # noqa: E402
from polyforge_engine.job import parse_build_job  # noqa: E402
from run import backbone_measures, c_infinity, c_of_m  # noqa: E402

PDMS_UNIT = "[*:1][Si](C)(C)O[*:2]"
SETTINGS = {"melt 0.97 g/cm³": (0.97, 6), "lone chains 0.002 g/cm³": (0.002, 8)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    results = {}
    for label, (density, chains) in SETTINGS.items():
        runs = []
        for seed in range(1, args.seeds + 1):
            job = homopolymer_job(PDMS_UNIT, args.units, chains, density=density, seed=seed)
            workdir = args.out / f"{density}_{seed}"
            workdir.mkdir(parents=True, exist_ok=True)
            built = build_structure(parse_build_job(job), workdir, lambda *_, **__: None)
            runs.append(backbone_measures(built.kinds[0], built.positions, built.molecule_offsets))
        m, c = c_of_m(runs)
        per_seed = [c_infinity(*c_of_m([run])) for run in runs]
        results[label] = {
            "c_infinity": round(c_infinity(m, c), 2),
            "per_seed": [round(value, 2) for value in per_seed],
            "C(m) at m=10,20,40,80": {int(k): round(float(c[m == k][0]), 2) for k in (10, 20, 40, 80) if k in m},
            "bond_length_a": round(float(np.sqrt(np.mean([run["l2"] for run in runs]))), 3),
            "torsions": runs[0]["torsions"],
        }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cinf.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""What the push-off does to phantom-placed chains: C(m) of the same chains as placed and after it.

    .venv/bin/python bench/chains/pushoff.py [--seeds 10] [--only aPS aPMMA PE PEO] [--out /tmp/pushoff]

Melts of run.py (100-unit chains at their melt densities) are placed as `build_structure` places them
(structure._growth_attempts' first attempt: phantom, and for molecules with rings at the full limits
within a window of units), then pushed off by `compress(push_off=True)` as the build does. Both are
measured as run.py measures melts (measure.py): C(m) ratio after/before on the same chains takes the
seed-to-seed noise out, so it shows whether the push-off keeps the chains' shape on every scale (Auhl
et al. 2003). Bonds through rings (rings.py) are counted before and after. Writes --out/pushoff.json.
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
from polyforge_engine.construct.compress import compress
from polyforge_engine.construct.growth import SystemGrower, Tolerances
from polyforge_engine.construct.report import measure_contacts
from polyforge_engine.construct.rings import piercings
from polyforge_engine.construct.structure import (
    PHANTOM_BACKOFFS_PER_UNIT,
    STARTS,
    _assemble_kinds,
    _checked_cell,
    _growth_attempts,
    _keeps_limits,
    _molecule_order,
)
from polyforge_engine.job import parse_build_job

PICKS = (10, 20, 40, 80, 120, 180)


def placed_and_pushed_off(unit: str, density: float, chains: int, seed: int) -> dict:
    """One melt placed phantom and pushed off: both measured, piercings counted, seconds of each step."""
    job = parse_build_job(homopolymer_job(unit, run.UNITS, chains, density=density, seed=seed))
    rng = np.random.default_rng(seed)
    templates, kinds, kind_index = _assemble_kinds(job, rng, lambda stage, percent: None)
    order = _molecule_order(job, kind_index, rng)
    tolerances = Tolerances()
    box, total = _checked_cell(job, kinds, order, tolerances)
    expansion, scale, phantom, window = _growth_attempts(box, total, np.ones(3), kinds, order)[0]
    assert phantom and expansion == 1.0, "a melt's first attempt is phantom placement"
    started = time.perf_counter()
    grower = SystemGrower(kinds, templates, box, False, rng, tolerances, total, STARTS, scale, PHANTOM_BACKOFFS_PER_UNIT, phantom=True, window=window)
    placed = grower.grow(order, lambda fraction: None)
    placing = time.perf_counter() - started
    offsets = np.array(grower.molecule_offsets, dtype=np.int64)
    contacts: list = []

    def kept(positions: np.ndarray) -> bool:
        contacts[:] = measure_contacts(positions, box, False, [k.atom_count for k in kinds], [k.close_pairs for k in kinds], order, offsets)
        return _keeps_limits(tuple(contacts), positions, box, False, tolerances)

    started = time.perf_counter()
    pushed = compress(placed, kinds, order, offsets, box, box, False, tolerances, lambda fraction: None, kept, push_off=True)
    pushing = time.perf_counter() - started
    return {
        "placed": run.backbone_measures(kinds[0], placed, offsets),
        "pushed": run.backbone_measures(kinds[0], pushed, offsets),
        "pierced_placed": len(piercings(placed, kinds, order, offsets, box, False)),
        "pierced_pushed": len(piercings(pushed, kinds, order, offsets, box, False)),
        "limits_kept": kept(pushed),
        "contacts": contacts[:2],
        "seconds": {"placing": placing, "pushing_off": pushing},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--only", nargs="*", default=list(run.POLYMERS))
    parser.add_argument("--out", type=Path, default=Path("/tmp/pushoff"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = {}
    for name in args.only:
        unit, density, chains, _ = run.POLYMERS[name]
        runs = [placed_and_pushed_off(unit, density, chains, seed) for seed in range(1, args.seeds + 1)]
        curves = {which: run.c_of_m([r[which] for r in runs]) for which in ("placed", "pushed")}
        m = curves["placed"][0]
        ratio = curves["pushed"][1] / curves["placed"][1]
        results[name] = {"runs": runs, "c_inf": {which: run.c_infinity(*curves[which]) for which in curves}}
        print(f"{name}: C∞ placed {results[name]['c_inf']['placed']:.2f}, pushed off {results[name]['c_inf']['pushed']:.2f}")
        for pick in PICKS:
            at = m == pick
            print(f"  m={pick}: placed {curves['placed'][1][at][0]:.2f} pushed off {curves['pushed'][1][at][0]:.2f} ratio {ratio[at][0]:.3f}")
        print(
            f"  ratio over all m: {ratio.min():.3f}-{ratio.max():.3f}; pierced placed {[r['pierced_placed'] for r in runs]}, "
            f"pushed off {[r['pierced_pushed'] for r in runs]}; limits kept {sum(r['limits_kept'] for r in runs)}/{len(runs)}; "
            f"trans {np.mean([r['placed']['trans'] for r in runs]):.3f} -> {np.mean([r['pushed']['trans'] for r in runs]):.3f}; "
            f"seconds placing {np.median([r['seconds']['placing'] for r in runs]):.1f}, "
            f"pushing off {np.median([r['seconds']['pushing_off'] for r in runs]):.1f}",
            flush=True,
        )
    (args.out / "pushoff.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

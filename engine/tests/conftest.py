"""Helpers that write polymer-builder job snapshots (the shape of packages/contracts/src/engine-job.ts)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from typing import Any

# Relaxed torsion scans (construct/relaxed_torsions.py) are kept on disk between builds: tests start from
# an empty store of their own, so they compute every scan and never read one a development build left.
if "POLYFORGE_CACHE_DIR" not in os.environ:
    os.environ["POLYFORGE_CACHE_DIR"] = tempfile.mkdtemp(prefix="polyforge-engine-tests-")
    atexit.register(shutil.rmtree, os.environ["POLYFORGE_CACHE_DIR"], True)
# Engine runs in tests repeat their seed bit for bit, which OpenMM does on one CPU thread only
# (runtime/openmm_cpu.py); engines started as processes inherit it. Thread tests set their own.
os.environ.setdefault("POLYFORGE_ENGINE_THREADS", "1")

ETHYLENE = "[*:1]CC[*:2]"
STYRENE = "[*:1]CC([*:2])c1ccccc1"
ETHYLENE_OXIDE = "[*:1]CCO[*:2]"
# Aminoacids as the server seeds them: [*:1] on the backbone N, [*:2] on the carbonyl C.
AMINOACIDS = {
    "G": ("Gly", "[*:1]NCC(=O)[*:2]"),
    "A": ("Ala", "[*:1]N[C@@H](C)C(=O)[*:2]"),
    "S": ("Ser", "[*:1]N[C@@H](CO)C(=O)[*:2]"),
    "K": ("Lys", "[*:1]N[C@@H](CCCCN)C(=O)[*:2]"),
    "F": ("Phe", "[*:1]N[C@@H](Cc1ccccc1)C(=O)[*:2]"),
}


def new_id() -> str:
    return str(uuid.uuid4())


def linear_block(name: str, unit: str, head: str = "[*:2][H]", tail: str = "[*:1][H]") -> dict[str, Any]:
    return {
        "id": new_id(),
        "name": name,
        "type": "linear",
        "data": {"repeating_unit": unit, "head_repeating_unit": head, "tail_repeating_unit": tail},
    }


def aminoacid_block(letter: str) -> dict[str, Any]:
    three, smiles = AMINOACIDS[letter]
    return {
        "id": new_id(),
        "name": three,
        "type": "aminoacid",
        "data": {"one_letter_code": letter, "three_letter_code": three, "smiles": smiles},
    }


def segment(kind: str, blocks: list[tuple[dict[str, Any], int]], **data: Any) -> dict[str, Any]:
    """blocks: (block, occurrence or ratio) in order."""
    key = "ratio" if kind == "linear_random" else "occurrence"
    return {
        "id": new_id(),
        "name": f"{kind} segment",
        "type": kind,
        "data": {"total_building_blocks": data.pop("total", sum(n for _, n in blocks)), **data},
        "blocks": [{"building_block_id": b["id"], "order": i, key: n} for i, (b, n) in enumerate(blocks)],
    }


def polymer(name: str, segments: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": new_id(),
        "name": name,
        "force_field": "gaff2",
        "segments": [{"segment_id": s["id"], "occurrence": 1, "order": i} for i, s in enumerate(segments)],
    }


def job(
    blocks: list[dict[str, Any]],
    segments: list[dict[str, Any]],
    polymers: list[tuple[dict[str, Any], int]],
    *,
    density: float | None = 0.1,
    cell_sides: list[float] | None = None,
    walls: bool = False,
    order: str = "as_listed_in_components",
    seed: int = 7,
) -> dict[str, Any]:
    return {
        "system": {"id": new_id(), "name": "test system", "sanitized_name": "test_system"},
        "blocks": blocks,
        "segments": segments,
        "polymers": [p for p, _ in polymers],
        "system_setup": {
            "cell_dimension_selector": "cell_sides" if cell_sides else "density",
            "density": density,
            "cell_sides": cell_sides,
            "potential_wall_z": walls,
            "construction_order": order,
            "polymers": [{"polymer_id": p["id"], "order": i, "occurrence": n} for i, (p, n) in enumerate(polymers)],
        },
        "simulation_protocol": {
            "simulation": "MD",
            "random_seed": seed,
            "minimization": True,
            "minimization_steps": 100,
            "dynamics": False,
            "dynamics_steps": None,
            "temperature": None,
            "ensemble": None,
        },
    }


def homopolymer_job(unit: str, length: int, copies: int, **setup: Any) -> dict[str, Any]:
    block = linear_block("Unit", unit)
    seg = segment("linear_block", [(block, length)])
    poly = polymer(f"P-{length}", [seg])
    return job([block], [seg], [(poly, copies)], **setup)

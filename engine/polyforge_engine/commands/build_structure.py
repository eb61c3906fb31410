"""`build-structure`: a polymer-builder job snapshot in, system.pdb, system.gro and report.json of
the all-atom system in its periodic cell out (construct/structure.py), with the build's own
progress stages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyforge_engine import events
from polyforge_engine.construct.structure import build_structure
from polyforge_engine.job import parse_build_job

SUMMARY_KEYS = ("atoms", "molecules", "residues", "box", "density", "min_intermolecular_distance", "min_intramolecular_nonbonded_distance", "seed")


def run(raw_job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command `build-structure`: progress lines while building, then the result payload."""
    job = parse_build_job(raw_job)
    result = build_structure(job, workdir, lambda stage, percent: events.progress(stage, percent))
    return {
        "files": {name: path.name for name, path in result.files.items()},
        "summary": {key: result.report[key] for key in SUMMARY_KEYS},
    }

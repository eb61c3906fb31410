"""`validate-structure`: is an uploaded .pdb or .gro a usable structure? What it holds and a PDB for
the viewer (structures/validate_structure.py), or the problem and its line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyforge_engine.job import job_file
from polyforge_engine.structures.readers import StructureError
from polyforge_engine.structures.validate_structure import validate_structure


def run(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"file": "<path>", "viewer_file": "<path>"}` -> `{"valid": true, atoms,
    residues, molecules, kinds, formula, net_charge, box, type, viewer_file}` or `{"valid": false,
    "error_code", "message", "line"}` (an invalid file is an answer, not a failure)."""
    path = job_file(job, workdir)
    viewer = job_file(job, workdir, "viewer_file") if job.get("viewer_file") else None
    try:
        summary = validate_structure(path, viewer)
    except StructureError as exc:
        return {"valid": False, "error_code": exc.code, "message": exc.message, "line": exc.line}
    return {"valid": True, **summary}

"""`validate-topology`: does an uploaded GROMACS .top describe its structure file
(structures/validate_topology.py)? An invalid topology is an answer, not a failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyforge_engine.events import EngineError
from polyforge_engine.job import job_file
from polyforge_engine.structures.validate_topology import validate_topology


def run(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"topology_file", "structure_file"}` -> `{"valid": true, atoms, molecules,
    molecule_types}` or `{"valid": false, "error_code", "message"}`."""
    topology_path = job_file(job, workdir, "topology_file")
    structure_path = job_file(job, workdir, "structure_file")
    try:
        summary = validate_topology(topology_path, structure_path)
    except EngineError as exc:
        if exc.code == "INVALID_INPUT":
            raise
        return {"valid": False, "error_code": exc.code, "message": exc.message}
    return {"valid": True, **summary}

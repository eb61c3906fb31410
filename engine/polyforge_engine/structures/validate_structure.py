"""`validate-structure`: is an uploaded .pdb or .gro file a usable structure? Answers valid with
its atoms, residues, molecules, box and system type, or invalid with the line and the problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyforge_engine import protocol
from polyforge_engine.protocol import EngineError
from polyforge_engine.structures.molecules import molecule_labels, system_type
from polyforge_engine.structures.readers import INVALID_STRUCTURE, read_structure

MAX_FILE_BYTES = 2000 * 1024 * 1024  # SPEC §9: system definition file up to 2000 MB


def job_file(job: dict[str, Any], workdir: Path, key: str = "file") -> Path:
    """A file named by the job, relative to the working directory unless absolute."""
    value = job.get(key)
    if not isinstance(value, str) or not value:
        raise EngineError("INVALID_INPUT", f"The job does not name the {key.replace('_', ' ')} to use.")
    path = Path(value)
    return path if path.is_absolute() else workdir / path


def validate_structure(path: Path) -> dict[str, Any]:
    if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
        raise EngineError(INVALID_STRUCTURE, "The file exceeds the maximum size of 2000 MB")
    protocol.progress("reading", 0)
    atoms = read_structure(path)
    protocol.progress("finding molecules", 60)
    labels = molecule_labels(atoms)
    molecules, kind = system_type(atoms, labels)
    return {
        "atoms": len(atoms.names),
        "residues": len(atoms.residues),
        "molecules": molecules,
        "box": [round(side, 4) for side in atoms.box] if atoms.box else None,
        "type": kind,
    }


def run_validate_structure(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"file": "<path>"}` -> `{"valid": true, atoms, residues, molecules, box, type}`
    or `{"valid": false, "error_code", "message"}` (an invalid file is an answer, not a failure)."""
    path = job_file(job, workdir)
    try:
        summary = validate_structure(path)
    except EngineError as exc:
        if exc.code == "INVALID_INPUT":
            raise
        return {"valid": False, "error_code": exc.code, "message": exc.message}
    return {"valid": True, **summary}

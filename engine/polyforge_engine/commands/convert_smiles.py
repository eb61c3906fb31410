"""`convert-smiles`: a SMILES without connection markers -> structure.pdb/.gro/.sdf and the summary
validate-structure gives an upload (structures/convert_smiles.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyforge_engine import events
from polyforge_engine.events import EngineError
from polyforge_engine.structures.convert_smiles import INVALID_SMILES, convert_smiles


def run(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"smiles": "..."}` -> structure.pdb/.gro/.sdf and the structure summary of
    validate-structure (atoms, residues, molecules, kinds, formula, net_charge, box, type) with
    `files` and `viewer_file` (structure.pdb)."""
    smiles = job.get("smiles")
    if not isinstance(smiles, str):
        raise EngineError(INVALID_SMILES, "Invalid SMILES format")
    result = convert_smiles(smiles, workdir)
    events.progress("converting", 100)
    return result

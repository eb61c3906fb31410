"""Which force fields the engine parametrises, by the spellings SPEC §3 allows."""

from __future__ import annotations

from typing import Literal

from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.errors import FORCE_FIELD_NOT_SUPPORTED

AtomTypeSet = Literal["gaff", "gaff2"]

_GLYCAM_SPELLINGS = {"glycam_06j", "glycam06j", "extended_glycam_06j", "extended glycam06j"}


def atom_type_set(force_field: str) -> AtomTypeSet:
    """Map a polymer's or potential's force field (any SPEC spelling, any case) to antechamber's
    atom type set. GLYCAM is refused rather than silently replaced by GAFF."""
    name = force_field.strip().lower()
    if name == "gaff":
        return "gaff"
    if name == "gaff2":
        return "gaff2"
    if name in _GLYCAM_SPELLINGS:
        raise EngineError(
            FORCE_FIELD_NOT_SUPPORTED,
            f"The force field {force_field} (GLYCAM) is not supported yet; choose GAFF or GAFF2.",
        )
    raise EngineError(FORCE_FIELD_NOT_SUPPORTED, f"The force field {force_field!r} is unknown; choose GAFF or GAFF2.")

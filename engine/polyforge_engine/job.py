"""What the server hands the engine: the job snapshot of a polymer-builder system, and the files a
job names.

These pydantic models mirror packages/contracts/src/engine-job.ts, whose JSON Schema is committed in
schemas/build_job.schema.json; tests/test_build_job_schema.py checks that both accept and reject the
same jobs. Unknown keys are ignored, as the JSON Schema (input side) allows them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from polyforge_engine.events import EngineError

# The same shape as zod's z.guid(): 8-4-4-4-12 hexadecimal digits.
Id = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")]
Smiles = Annotated[str, Field(min_length=1)]
Name = Annotated[str, Field(min_length=1)]
Count = Annotated[int, Field(ge=1)]
Index = Annotated[int, Field(ge=0)]
Positive = Annotated[float, Field(gt=0)]
MAX_PRESSURE_BAR = 10_000  # contracts MAX_PRESSURE_BAR
ForceField = Literal["gaff", "gaff2", "glycam_06j", "extended_glycam_06j"]
SegmentType = Literal["linear_block", "linear_random", "linear_peptide", "dendrimer_from_central_unit", "dendrimer_from_rep_unit"]


class _Model(BaseModel):
    # Strict as JSON Schema is: 1.0 is no count, "true" no boolean (validated from JSON text).
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


class SystemRef(_Model):
    id: Id
    name: Name
    sanitized_name: Name


class LinearBlockData(_Model):
    repeating_unit: Smiles
    head_repeating_unit: Smiles
    tail_repeating_unit: Smiles


class DendrimerBlockData(_Model):
    central_unit: Smiles
    repeating_unit: Smiles
    capping_central_unit: Smiles
    head_repeating_unit: Smiles
    tail_repeating_unit: Smiles


class AminoacidBlockData(_Model):
    one_letter_code: Annotated[str, Field(pattern=r"^[A-Z]$")]
    three_letter_code: Annotated[str, Field(pattern=r"^[A-Za-z]{3}$")]
    smiles: Smiles


class LinearBlock(_Model):
    id: Id
    name: Name
    type: Literal["linear"]
    data: LinearBlockData


class DendrimerBlock(_Model):
    id: Id
    name: Name
    type: Literal["dendrimer"]
    data: DendrimerBlockData


class AminoacidBlock(_Model):
    id: Id
    name: Name
    type: Literal["aminoacid"]
    data: AminoacidBlockData


Block = Annotated[LinearBlock | DendrimerBlock | AminoacidBlock, Field(discriminator="type")]


class SegmentData(_Model):
    total_building_blocks: Annotated[int, Field(ge=0)]
    capping_type: Literal["synthetic", "natural"] | None = None
    generation_number: Index | None = None
    mask: list[Literal[0, 1]] | None = None


class SegmentBlock(_Model):
    building_block_id: Id
    order: Index
    occurrence: Count | None = None
    ratio: Count | None = None


class Segment(_Model):
    id: Id
    name: Name
    type: SegmentType
    data: SegmentData
    blocks: list[SegmentBlock]


class PolymerSegment(_Model):
    segment_id: Id
    occurrence: Count
    order: Index


class Tacticity(_Model):
    kind: Literal["atactic", "isotactic", "syndiotactic", "as_drawn"]
    meso_fraction: Annotated[float, Field(ge=0, le=1)] = 0.5  # atactic: meso dyads, Bernoullian


class Polymer(_Model):
    id: Id
    name: Name
    force_field: ForceField
    segments: Annotated[list[PolymerSegment], Field(min_length=1)]
    tacticity: Tacticity | None = None  # absent in jobs frozen before it existed: atactic, meso 0.5


class SetupPolymer(_Model):
    polymer_id: Id
    order: Index
    occurrence: Count


CellSides = tuple[Positive, Positive, Positive]


class _SystemSetupBase(_Model):
    potential_wall_z: bool
    construction_order: Literal["as_listed_in_components", "random"]
    polymers: Annotated[list[SetupPolymer], Field(min_length=1)]


class SetupByDensity(_SystemSetupBase):
    cell_dimension_selector: Literal["density"]
    density: Positive
    cell_sides: CellSides | None


class SetupByCellSides(_SystemSetupBase):
    cell_dimension_selector: Literal["cell_sides"]
    density: Positive | None
    cell_sides: CellSides


SystemSetup = Annotated[SetupByDensity | SetupByCellSides, Field(discriminator="cell_dimension_selector")]


class SimulationProtocol(_Model):
    simulation: Literal["MD"]
    random_seed: Annotated[int, Field(ge=-1)]
    minimization: bool
    minimization_steps: Index | None
    dynamics: bool
    dynamics_steps: Index | None
    temperature: Positive | None
    ensemble: Literal["NVE", "NVT", "NPT"] | None
    # bar, for NPT and the equilibration's last stage (absent in jobs frozen before NPT existed)
    pressure: Annotated[float, Field(gt=0, le=MAX_PRESSURE_BAR)] | None = None
    equilibration: Literal["none", "melt_21_step"] = "none"
    bit_reproducible: bool = False  # mdrun's -reprod: repeatable to the bit, slower


class BuildJob(_Model):
    system: SystemRef
    blocks: list[Block]
    segments: list[Segment]
    polymers: list[Polymer]
    system_setup: SystemSetup
    simulation_protocol: SimulationProtocol


def parse_build_job(raw: object) -> BuildJob:
    """The job (decoded JSON) as models, or INVALID_INPUT naming the first few fields that are wrong."""
    try:
        return BuildJob.model_validate_json(json.dumps(raw))
    except ValidationError as exc:
        problems = [f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}" for error in exc.errors()[:5]]
        raise EngineError("INVALID_INPUT", "The job is not a valid system description (" + "; ".join(problems) + ").") from exc


def job_file(job: dict[str, Any], workdir: Path, key: str = "file") -> Path:
    """A file named by the job, relative to the working directory unless absolute."""
    value = job.get(key)
    if not isinstance(value, str) or not value:
        raise EngineError("INVALID_INPUT", f"The job does not name the {key.replace('_', ' ')} to use.")
    path = Path(value)
    return path if path.is_absolute() else workdir / path

"""`build-system`: a polymer-builder system from its job to the results bundle. The job is read and
its force field checked, the system built in its cell (construct/, 0-30 % of the progress), the cell
checked against the cutoff, and the built molecules handed on to the shared tail: parametrise,
minimise and run the dynamics, measure, bundle (workflow.py, 30-100 %)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem

from polyforge_engine.construct.structure import BuildResult, build_structure
from polyforge_engine.events import EngineError
from polyforge_engine.job import BuildJob, parse_build_job
from polyforge_engine.parametrise.assemble import SystemModel, group_copies
from polyforge_engine.parametrise.charges import check_unit_elements
from polyforge_engine.parametrise.errors import FORCE_FIELD_NOT_SUPPORTED
from polyforge_engine.parametrise.force_fields import AtomTypeSet, atom_type_set
from polyforge_engine.runtime.cancellation import install_sigterm_handler, raise_if_cancelled
from polyforge_engine.simulate.properties import ChainKind
from polyforge_engine.simulate.protocol import Protocol, check_cell
from polyforge_engine.simulate.references import reference_for_units
from polyforge_engine.workflow import BundleOutput, SimulatedSystem, parametrise_simulate_bundle, stage_progress

DEFAULT_PRESSURE_BAR = 1.0
BUILD_SHARE = 30  # percent of the command's progress the structure build takes


def run(raw_job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command `build-system`: the job snapshot -> the bundle, viewer files, report and seed."""
    install_sigterm_handler()
    job = parse_build_job(raw_job)
    atom_types = system_atom_types(job)  # before any work: GLYCAM fails in a second, not after a build
    check_block_elements(job)
    built, build_s = build(job, workdir / "build")
    check_cell(box_nm(built), job.system_setup.potential_wall_z)  # before the costly part
    return parametrise_simulate_bundle(
        simulated_system(job, built, atom_types),
        protocol_of(job, built.seed),
        workdir,
        bundle_output(job, raw_job, built, build_s),
        progress_from=BUILD_SHARE,
    )


def build(job: BuildJob, build_dir: Path) -> tuple[BuildResult, float]:
    """The system built in `build_dir` (its stages reported as the first BUILD_SHARE %), and the seconds it took."""
    build_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    built = build_structure(job, build_dir, stage_progress((0, BUILD_SHARE)))
    build_s = time.monotonic() - started
    raise_if_cancelled()
    return built, build_s


def box_nm(built: BuildResult) -> tuple[float, float, float]:
    a, b, c = (float(side) / 10 for side in built.box)
    return a, b, c


def simulated_system(job: BuildJob, built: BuildResult, atom_types: AtomTypeSet) -> SimulatedSystem:
    """The built molecules grouped into kinds (one parametrisation each), named after their polymers,
    with what the measurement of the final structure needs of each kind."""
    molecules: list[Chem.Mol] = [built.molecule(index) for index in range(len(built.molecule_kinds))]
    grouped = group_copies(molecules)
    system = SystemModel(grouped.kinds, grouped.copies, np.asarray(built.box, dtype=float))
    labels = _kind_labels(built, grouped)
    return SimulatedSystem(system, atom_types, labels, _chain_kinds(job, built, grouped, labels))


def bundle_output(job: BuildJob, raw_job: dict[str, Any], built: BuildResult, build_s: float) -> BundleOutput:
    """The bundle named after the system, with the build's report and time in report.json."""
    build_report = built.files["report.json"]
    return BundleOutput(
        job.system.name,
        job.system.sanitized_name,
        raw_job,
        extra_report={"build": json.loads(build_report.read_text()) if build_report.exists() else built.report},
        earlier_stages_s={"build_s": build_s},
    )


def protocol_of(job: BuildJob, seed: int) -> Protocol:
    settings = job.simulation_protocol
    minimization_steps = (settings.minimization_steps or 0) if settings.minimization else 0
    dynamics_steps = (settings.dynamics_steps or 0) if settings.dynamics else 0
    if dynamics_steps and (settings.temperature is None or settings.ensemble is None):
        raise EngineError("INVALID_INPUT", "Dynamics need a temperature and an ensemble (NVE, NVT or NPT).")
    return Protocol(
        minimization_steps=minimization_steps,
        dynamics_steps=dynamics_steps,
        temperature_k=float(settings.temperature or 300.0),
        ensemble=settings.ensemble or "NVT",
        seed=seed,
        potential_wall_z=job.system_setup.potential_wall_z,
        pressure_bar=float(settings.pressure or DEFAULT_PRESSURE_BAR),
        equilibration=settings.equilibration if dynamics_steps else "none",
        bit_reproducible=settings.bit_reproducible,
    )


_BLOCK_SMILES_FIELDS = ("repeating_unit", "head_repeating_unit", "tail_repeating_unit", "central_unit", "capping_central_unit", "smiles")


def check_block_elements(job: BuildJob) -> None:
    """Every building block's SMILES holds only elements the force field types, checked before building."""
    for block in job.blocks:
        for name in _BLOCK_SMILES_FIELDS:
            smiles = getattr(block.data, name, None)
            if smiles:
                check_unit_elements(smiles, f"the {name.replace('_', ' ')} of building block {block.name}")


def system_atom_types(job: BuildJob) -> AtomTypeSet:
    """The one GAFF flavour of all polymers in the system; GLYCAM or a mix is refused up front."""
    used = {setup.polymer_id for setup in job.system_setup.polymers}
    flavours = {atom_type_set(polymer.force_field) for polymer in job.polymers if polymer.id in used}
    if len(flavours) != 1:
        raise EngineError(
            FORCE_FIELD_NOT_SUPPORTED,
            "The polymers of one system must share one force field (all GAFF or all GAFF2).",
        )
    return flavours.pop()


def _first_copies(grouped: SystemModel) -> list[int]:
    """The index of the first copy of every grouped kind."""
    return [next(index for index, copy in enumerate(grouped.copies) if copy.kind == kind) for kind in range(len(grouped.kinds))]


def _chain_kinds(job: BuildJob, built: BuildResult, grouped: SystemModel, labels: list[str]) -> list[ChainKind]:
    """What the measurement needs of each grouped kind: its molecule, the end atoms of its backbone
    (linear chains) and the literature reference of a known homopolymer."""
    blocks = {block.id: block for block in job.blocks}
    segments = {segment.id: segment for segment in job.segments}
    kinds = []
    for kind, first in enumerate(_first_copies(grouped)):
        assembled = built.kinds[built.molecule_kinds[first]]
        polymer = next((p for p in job.polymers if p.id == assembled.plan.polymer_id), None)
        units: set[str] = set()
        if polymer is not None:
            for link in polymer.segments:
                for entry in segments[link.segment_id].blocks:
                    block = blocks[entry.building_block_id]
                    units.add(getattr(block.data, "repeating_unit", "") or block.type)
        ends = getattr(assembled, "end_atoms", None)
        kinds.append(
            ChainKind(
                labels[kind],
                grouped.kinds[kind],
                (int(ends[0]), int(ends[1])) if ends is not None else None,
                reference_for_units(units) if units else None,
            )
        )
    return kinds


def _kind_labels(built: BuildResult, grouped: SystemModel) -> list[str]:
    """The polymer name of each grouped kind, found through the first copy of that kind."""
    return [f"polymer {built.kinds[built.molecule_kinds[first_copy]].plan.name}" for first_copy in _first_copies(grouped)]

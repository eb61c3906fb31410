"""`build-system` (ARCHITECTURE §6): build-structure -> parametrise -> minimise -> dynamics -> bundle,
and the parametrise-simulate-bundle tail it shares with `generate-potential`.

Progress lines carry the stage and the percent of the whole command. SIGTERM becomes CANCELLED
within seconds: every progress report and every chunk of work checks for it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem

from polyforge_engine import events
from polyforge_engine.build.structure import BuildResult, build_structure
from polyforge_engine.bundle.writer import BundleFile, write_bundle, write_start_structures
from polyforge_engine.events import EngineError
from polyforge_engine.job import BuildJob, parse_build_job
from polyforge_engine.parametrise.assemble import ParametrisedSystem, SystemModel, group_copies, parametrise_system
from polyforge_engine.parametrise.charges import check_unit_elements
from polyforge_engine.parametrise.errors import FORCE_FIELD_NOT_SUPPORTED
from polyforge_engine.parametrise.force_fields import AtomTypeSet, atom_type_set
from polyforge_engine.runtime.cancellation import install_sigterm_handler, raise_if_cancelled
from polyforge_engine.simulate.md import Protocol, SimulationReport, check_cell, run_protocol
from polyforge_engine.simulate.properties import ChainKind, measure_properties
from polyforge_engine.simulate.references import reference_for_units
from polyforge_engine.versions import tool_versions

# (stage, percent[, fields]): the fields (dynamics: simulated_ns, total_ns, remaining_s) go out as they are.
StageProgress = Callable[..., None]
DEFAULT_PRESSURE_BAR = 1.0


def stage_progress(stage_span: tuple[float, float]) -> StageProgress:
    """Report a stage's own 0-100 % as its share of the whole command, checking for cancellation."""
    low, high = stage_span

    def report(stage: str, percent: float, fields: dict[str, Any] | None = None) -> None:
        raise_if_cancelled()
        events.progress(stage, low + (high - low) * max(0.0, min(100.0, percent)) / 100, **(fields or {}))

    return report


@dataclass(frozen=True)
class SimulatedSystem:
    """What is parametrised and simulated.

    Parameters: `system` the grouped molecules and box; `atom_types` the one GAFF flavour;
    `kind_labels` one name per kind (topology and force-field files); `chain_kinds` one per kind
    when the final structure's properties are to be measured (None: not measured)."""

    system: SystemModel
    atom_types: AtomTypeSet
    kind_labels: list[str]
    chain_kinds: list[ChainKind] | None = None


@dataclass(frozen=True)
class BundleOutput:
    """How the job's output is named and what joins it besides the topology and the run.

    Parameters: `title` the system's name; `sanitized_name` the bundle's file-name stem; `raw_job`
    the job as received (kept as job.json); `extra_files` more files for the bundle; `extra_report`
    more keys for report.json; `earlier_stages_s` seconds of stages run before this tail (e.g. the
    structure build), joining report.json's `performance` before parametrisation."""

    title: str
    sanitized_name: str
    raw_job: dict[str, Any]
    extra_files: list[BundleFile] = field(default_factory=list)
    extra_report: dict[str, Any] = field(default_factory=dict)
    earlier_stages_s: dict[str, float] = field(default_factory=dict)


def parametrise_simulate_bundle(
    target: SimulatedSystem,
    md_protocol: Protocol,
    workdir: Path,
    output: BundleOutput,
    progress_from: float,
) -> dict[str, Any]:
    """The shared tail: topology files, the OpenMM protocol, then the bundle.

    Progress runs from `progress_from` to 100 (parametrising 35 % of the rest, simulating 60 %).
    Returns the result payload: files relative to `workdir` (bundle, viewer files, report), seed
    and the summary written as report.json."""
    span = 100 - progress_from
    parametrise_end = progress_from + span * 0.35
    simulate_end = progress_from + span * 0.95
    started = time.monotonic()
    parametrised = parametrise_system(
        target.system,
        target.atom_types,
        workdir / "topology",
        _named(stage_progress((progress_from, parametrise_end)), "parametrising"),
        target.kind_labels,
        output.title,
    )
    parametrisation_s = time.monotonic() - started
    simulation_dir = workdir / "simulation"
    simulation_dir.mkdir(parents=True, exist_ok=True)
    report, _ = run_protocol(
        parametrised.files.amber_prmtop,
        parametrised.files.amber_inpcrd,
        md_protocol,
        simulation_dir,
        _simulation_progress((parametrise_end, simulate_end), md_protocol),
        parametrised.files.gromacs_top,
    )
    raise_if_cancelled()
    events.progress("bundling", simulate_end)
    files = _bundle_files(workdir, output, parametrised, report, target.system)
    summary = _summary(target, md_protocol, output, parametrised, report, parametrisation_s)
    bundle = write_bundle(
        workdir, output.sanitized_name, output.title, files, summary, md_protocol, periodic=target.system.box is not None, cell_a=target.system.box
    )
    events.progress("bundling", 100)
    result_files = {"bundle": bundle.name} | _viewer_files(workdir, parametrised, report) | {"report": "report.json"}
    return {"files": result_files, "seed": md_protocol.seed, "summary": summary}


def _bundle_files(workdir: Path, output: BundleOutput, parametrised: ParametrisedSystem, report: SimulationReport, system: SystemModel) -> list[BundleFile]:
    """Everything the bundle holds besides report.json: the job as received, the caller's extra
    files, the topology files, the run's output and the start structures built from the minimum."""
    job_path = workdir / "job.snapshot.json"
    job_path.write_text(json.dumps(output.raw_job, indent=2) + "\n")
    files = [BundleFile("job.json", job_path), *output.extra_files]
    files += [BundleFile(path.name, path) for path in vars(parametrised.files).values()]
    files += [BundleFile(path.name, path) for path in report.written]
    if report.minimized_positions is not None:
        files += write_start_structures(parametrised.structure, report.minimized_positions, system.box, workdir / "simulation")
    return files


def _summary(
    target: SimulatedSystem, md_protocol: Protocol, output: BundleOutput, parametrised: ParametrisedSystem, report: SimulationReport, parametrisation_s: float
) -> dict[str, Any]:
    """report.json's content: what was simulated, with what, how it ended and how long each stage took."""
    summary: dict[str, Any] = {
        "seed": md_protocol.seed,
        "force_field": target.atom_types.upper(),
        "atoms": len(parametrised.structure.atoms),
        "molecules": len(target.system.copies),
        "charges": parametrised.charges_summary,
        "energies": {
            "potential_before_minimization_kj_mol": report.potential_energy_before_minimization_kj_mol,
            "potential_after_minimization_kj_mol": report.potential_energy_after_minimization_kj_mol,
            "final_potential_kj_mol": report.final_potential_energy_kj_mol,
        },
        "final_temperature_k": report.final_temperature_k,
        "protocol": asdict(md_protocol),
        "dynamics_stages": [asdict(stage) | {"number": number} for number, stage in enumerate(report.stages, 1)],
        "timestep_fs": report.timestep_fs,
        "platform": report.platform,
        **({"platform_note": report.platform_note} if report.platform_note else {}),
        "tool_versions": tool_versions(),
        **({"minimization": report.minimisation} if report.minimisation is not None else {}),
        "performance": {
            **{name: round(seconds, 2) for name, seconds in output.earlier_stages_s.items()},
            "parametrisation_s": round(parametrisation_s, 2),
            **(report.performance or {}),
        },
        **output.extra_report,
    }
    if target.chain_kinds is not None:
        summary["properties"] = _measured_properties(target.system, target.chain_kinds, report, parametrised.structure)
    return summary


def _viewer_files(workdir: Path, parametrised: ParametrisedSystem, report: SimulationReport) -> dict[str, str]:
    """Besides the bundle, the files the web viewer shows (contracts RESULT_VIEWER_FILES) that the
    run wrote, relative to `workdir`."""
    simulation_dir = workdir / "simulation"
    viewer = {
        "built_structure": parametrised.files.pdb,
        "minimized_structure": simulation_dir / "minimized.pdb",
        "final_structure": simulation_dir / "final.pdb",
        "energies": simulation_dir / "energies.csv",
    }
    return {key: str(path.relative_to(workdir)) for key, path in viewer.items() if path in report.written or path == parametrised.files.pdb}


def _measured_properties(system: SystemModel, chain_kinds: list[ChainKind], report: SimulationReport, structure: Any) -> dict[str, Any]:
    """Properties of the final structure (and the density over the run's last part)."""
    offsets = np.cumsum([0] + [chain_kinds[copy.kind].mol.GetNumAtoms() for copy in system.copies])
    static_density = None
    if report.final_box is not None:
        mass = sum(atom.mass for atom in structure.atoms)
        static_density = mass * 1.66053906660 / float(np.prod(report.final_box))
    energies = next((path for path in report.written if path.name == "energies.csv"), None)
    return measure_properties(
        chain_kinds,
        [(copy.kind, int(offset)) for copy, offset in zip(system.copies, offsets[:-1], strict=True)],
        report.final_positions,
        report.final_box,
        energies,
        static_density,
    )


def _simulation_progress(span: tuple[float, float], md_protocol: Protocol) -> StageProgress:
    """Minimisation then dynamics share the span in proportion to their steps."""
    low, high = span
    steps = md_protocol.minimization_steps + md_protocol.dynamics_steps
    split = low + (high - low) * (md_protocol.minimization_steps / steps if steps else 1.0)
    minimisation, dynamics = stage_progress((low, split)), stage_progress((split, high))
    return lambda stage, percent, fields=None: (minimisation if stage == "minimisation" else dynamics)(stage, percent, fields)


def _named(report: StageProgress, stage: str) -> StageProgress:
    return lambda _inner_stage, percent: report(stage, percent)


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
    )


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


_BLOCK_SMILES_FIELDS = ("repeating_unit", "head_repeating_unit", "tail_repeating_unit", "central_unit", "capping_central_unit", "smiles")


def check_block_elements(job: BuildJob) -> None:
    """Every building block's SMILES holds only elements the force field types, checked before building."""
    for block in job.blocks:
        for name in _BLOCK_SMILES_FIELDS:
            smiles = getattr(block.data, name, None)
            if smiles:
                check_unit_elements(smiles, f"the {name.replace('_', ' ')} of building block {block.name}")


def run_build_system(raw_job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command `build-system`."""
    install_sigterm_handler()
    job = parse_build_job(raw_job)
    atom_types = system_atom_types(job)  # before any work: GLYCAM fails in a second, not after a build
    check_block_elements(job)
    build_dir = workdir / "build"
    build_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    built = build_structure(job, build_dir, stage_progress((0, 30)))
    build_s = time.monotonic() - started
    raise_if_cancelled()
    a, b, c = (float(side) / 10 for side in built.box)
    check_cell((a, b, c), job.system_setup.potential_wall_z)  # nm; before the costly part
    molecules: list[Chem.Mol] = [built.molecule(index) for index in range(len(built.molecule_kinds))]
    grouped = group_copies(molecules)
    system = SystemModel(grouped.kinds, grouped.copies, np.asarray(built.box, dtype=float))
    labels = _kind_labels(built, grouped)
    chain_kinds = _chain_kinds(job, built, grouped, labels)
    build_report = build_dir / "report.json"
    return parametrise_simulate_bundle(
        SimulatedSystem(system, atom_types, labels, chain_kinds),
        protocol_of(job, built.seed),
        workdir,
        BundleOutput(
            job.system.name,
            job.system.sanitized_name,
            raw_job,
            extra_report={"build": json.loads(build_report.read_text()) if build_report.exists() else built.report},
            earlier_stages_s={"build_s": build_s},
        ),
        progress_from=30,
    )


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
    labels = []
    for kind in range(len(grouped.kinds)):
        first_copy = next(index for index, copy in enumerate(grouped.copies) if copy.kind == kind)
        labels.append(f"polymer {built.kinds[built.molecule_kinds[first_copy]].plan.name}")
    return labels

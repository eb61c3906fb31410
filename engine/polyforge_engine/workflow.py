"""Parametrise, simulate, bundle: the tail `build-system` and `generate-potential` share
(commands/build_system.py, commands/generate_potential.py). Topology files for the system, the
protocol's minimisation and dynamics (simulate/run.py), the properties of the final structure, then
report.json and the results bundle.

Progress lines carry the stage and the percent of the whole command. SIGTERM becomes CANCELLED
within seconds: every progress report and every chunk of work checks for it."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from polyforge_engine import events
from polyforge_engine.bundle.lammps import LammpsUnsupported, write_lammps_files
from polyforge_engine.bundle.writer import BundleFile, integrator_text, write_bundle, write_final_structures, write_start_structures
from polyforge_engine.parametrise.assemble import ParametrisedSystem, SystemModel, parametrise_system
from polyforge_engine.parametrise.force_fields import AtomTypeSet
from polyforge_engine.runtime.cancellation import raise_if_cancelled
from polyforge_engine.simulate.properties import ChainKind, measure_properties
from polyforge_engine.simulate.protocol import AMU_PER_A3_TO_G_PER_CM3, Progress, Protocol
from polyforge_engine.simulate.run import SimulationReport, run_protocol
from polyforge_engine.versions import tool_versions


def stage_progress(stage_span: tuple[float, float]) -> Progress:
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
    lammps, lammps_missing = _lammps_files(parametrised, report, target.system, md_protocol, output.title, workdir / "simulation")
    summary = _summary(target, md_protocol, output, parametrised, report, parametrisation_s)
    if lammps_missing is not None:
        summary["lammps_not_written"] = lammps_missing
    bundle = write_bundle(
        workdir,
        output.sanitized_name,
        output.title,
        files + lammps,
        summary,
        md_protocol,
        report.stages,
        periodic=target.system.box is not None,
        cell_a=target.system.box,
    )
    events.progress("bundling", 100)
    result_files = {"bundle": bundle.name} | _viewer_files(workdir, parametrised, report) | {"report": "report.json"}
    return {"files": result_files, "seed": md_protocol.seed, "summary": summary}


def _bundle_files(workdir: Path, output: BundleOutput, parametrised: ParametrisedSystem, report: SimulationReport, system: SystemModel) -> list[BundleFile]:
    """Everything the bundle holds besides report.json and the LAMMPS files: the job as received,
    the caller's extra files, the topology files, the run's output and the start structures built
    from the minimum."""
    job_path = workdir / "job.snapshot.json"
    job_path.write_text(json.dumps(output.raw_job, indent=2) + "\n")
    files = [BundleFile("job.json", job_path), *output.extra_files]
    files += [BundleFile(path.name, path) for path in vars(parametrised.files).values()]
    files += [BundleFile(path.name, path) for path in report.written]
    if report.minimized_positions is not None:
        files += write_start_structures(parametrised.structure, report.minimized_positions, system.box, workdir / "simulation")
    if report.final_velocities is not None:
        files += write_final_structures(parametrised.structure, report.final_positions, report.final_velocities, report.final_box, workdir / "simulation")
    return files


def _lammps_files(
    parametrised: ParametrisedSystem, report: SimulationReport, system: SystemModel, md_protocol: Protocol, title: str, where: Path
) -> tuple[list[BundleFile], str | None]:
    """The LAMMPS data file and input from the minimised structure (else the one as built), or none
    and the reason when the topology has terms they cannot express: the run's other files are
    still worth having."""
    start = report.minimized_positions if report.minimized_positions is not None else np.asarray(parametrised.structure.coordinates)
    try:
        paths = write_lammps_files(parametrised.files.amber_prmtop, start, system.box, md_protocol, report.stages, title, where)
    except LammpsUnsupported as unsupported:
        return [], str(unsupported)
    return [BundleFile(path.name, path) for path in paths], None


def _summary(
    target: SimulatedSystem, md_protocol: Protocol, output: BundleOutput, parametrised: ParametrisedSystem, report: SimulationReport, parametrisation_s: float
) -> dict[str, Any]:
    """report.json's content: what was simulated, with what, how it ended and how long each stage took."""
    ran_on_gromacs = str((report.performance or {}).get("engine") or "").startswith("GROMACS")
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
        "dynamics_stages": [
            asdict(stage) | {"number": number, "method": integrator_text(md_protocol, stage, ran_on_gromacs)} for number, stage in enumerate(report.stages, 1)
        ],
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
        static_density = mass * AMU_PER_A3_TO_G_PER_CM3 / float(np.prod(report.final_box))
    energies = next((path for path in report.written if path.name == "energies.csv"), None)
    return measure_properties(
        chain_kinds,
        [(copy.kind, int(offset)) for copy, offset in zip(system.copies, offsets[:-1], strict=True)],
        report.final_positions,
        report.final_box,
        energies,
        static_density,
    )


def _simulation_progress(span: tuple[float, float], md_protocol: Protocol) -> Progress:
    """Minimisation then dynamics share the span in proportion to their steps."""
    low, high = span
    steps = md_protocol.minimization_steps + md_protocol.dynamics_steps
    split = low + (high - low) * (md_protocol.minimization_steps / steps if steps else 1.0)
    minimisation, dynamics = stage_progress((low, split)), stage_progress((split, high))
    return lambda stage, percent, fields=None: (minimisation if stage == "minimisation" else dynamics)(stage, percent, fields)


def _named(report: Progress, stage: str) -> Progress:
    return lambda _inner_stage, percent: report(stage, percent)

"""`generate-potential`: GAFF or GAFF2 parameters, AM1-BCC charges and a minimised structure for a
structure converted from SMILES (.sdf) or uploaded (.pdb/.gro). The job's settings are read (SPEC §9
defaults), the structure read into molecules and its cell (potential/system.py), then the shared
tail parametrises, minimises and bundles them (workflow.py), and the bundle gains each kind's
force-field files (bundle/force_field_files.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyforge_engine import events
from polyforge_engine.bundle.force_field_files import add_force_field_files
from polyforge_engine.bundle.writer import BundleFile
from polyforge_engine.events import EngineError
from polyforge_engine.job import job_file
from polyforge_engine.parametrise.force_fields import atom_type_set
from polyforge_engine.potential.system import kind_labels, read_system
from polyforge_engine.runtime.cancellation import install_sigterm_handler
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.workflow import BundleOutput, SimulatedSystem, parametrise_simulate_bundle

# SPEC §9 defaults for a generated potential.
DEFAULT_FORCE_FIELD = "GAFF2"
DEFAULT_CHARGE = 0
DEFAULT_MINIMIZATION_STEPS = 5
READ_SHARE = 5  # percent of the command's progress before parametrisation
TOPOLOGY_FILES = {"topology": "topology/system.top", "molecules_itp": "topology/molecules.itp", "prmtop": "topology/system.prmtop"}


def run(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"structure_file", "force_field", "charge", "minimization_steps", "system":
    {"name", "sanitized_name"}}` -> bundle, topology and minimised structure."""
    install_sigterm_handler()
    atom_types = atom_type_set(str(job.get("force_field", DEFAULT_FORCE_FIELD)))
    charge = whole_number(job.get("charge", DEFAULT_CHARGE), "charge")
    steps = whole_number(job.get("minimization_steps", DEFAULT_MINIMIZATION_STEPS), "number of minimization steps")
    if steps < 0:
        raise EngineError("INVALID_INPUT", "The number of minimization steps must be at least 0.")
    path = job_file(job, workdir, "structure_file")
    events.progress("reading structure", 0)
    system = read_system(path, charge)
    labels = kind_labels(system.kinds)
    payload = parametrise_simulate_bundle(
        SimulatedSystem(system, atom_types, labels),
        Protocol(minimization_steps=steps, dynamics_steps=0, temperature_k=300.0, ensemble="NVT", seed=0),
        workdir,
        bundle_output(job, path),
        progress_from=READ_SHARE,
    )
    add_force_field_files(workdir / payload["files"]["bundle"], workdir / "topology", labels)
    payload["files"] |= TOPOLOGY_FILES
    return payload


def whole_number(value: Any, what: str) -> int:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise EngineError("INVALID_INPUT", f"The {what} must be a valid number.") from None
    if not number.is_integer():
        raise EngineError("INVALID_INPUT", f"The {what} must be a whole number.")
    return int(number)


def bundle_output(job: dict[str, Any], path: Path) -> BundleOutput:
    """The bundle named after the system (or the job's name), holding the converted structure when there is one."""
    system_ref = job.get("system") or {}
    title = str(system_ref.get("name") or job.get("name") or "Generated potential")
    sanitized = str(system_ref.get("sanitized_name") or "potential")
    return BundleOutput(title, sanitized, job, extra_files=[BundleFile("structure.sdf", path)] if path.suffix.lower() == ".sdf" else [])

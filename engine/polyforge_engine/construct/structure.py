"""A polymer-builder job snapshot in, an all-atom 3D system in a periodic cell out (the commands
`build-structure` and `build-system` run it).

`build_structure(job, workdir, on_progress)` returns a
`BuildResult` with one RDKit molecule per polymer kind (explicit hydrogens, PDB residue info set),
the kind of every molecule in file order, all coordinates (Å, molecules whole), the cell, the seed
used and the report; it has written system.pdb, system.gro and report.json into `workdir`.
Stages: expand sequences -> unit templates (ETKDG + MMFF, once per distinct SMILES) -> assemble
molecules -> cell -> grow and pack (dense cells: grow with softer limits and relax, or grow larger and
compress) -> measure -> write.

Example:
    job = parse_build_job(json.loads(Path("job.json").read_text()))
    result = build_structure(job, Path("work"), lambda stage, percent: print(stage, percent))
    mol = result.molecule(0)  # RDKit molecule of the first molecule, with its built coordinates
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem
from rdkit.Geometry import Point3D

from polyforge_engine.construct.assembly import AssembledPolymer, assemble
from polyforge_engine.construct.compress import compress
from polyforge_engine.construct.growth import SystemGrower, Tolerances
from polyforge_engine.construct.report import AMU_A3_TO_G_CM3, build_report, measure_contacts
from polyforge_engine.construct.rings import piercings
from polyforge_engine.construct.sequence import plan_polymers
from polyforge_engine.construct.templates import UnitTemplate, build_template
from polyforge_engine.construct.writers import write_gro, write_pdb
from polyforge_engine.events import EngineError
from polyforge_engine.job import BuildJob

ProgressCallback = Callable[[str, float], None]  # (stage, percent 0-100)

# A dense cell is first grown in the cell itself with the limits scaled by SOFT_LIMIT_SCALE
# (2.0/1.5 Å -> 1.2/0.9 Å), then relaxed to the full limits by one minimisation, much cheaper than
# compressing a cell grown larger; softer than at 0.7, where the last chains of dense PE find no room.
# Where that growth gets into a jam (bulky units such as styrene), more back-offs per unit than
# SOFT_BACKOFFS_PER_UNIT give it up early for the enlarged cells below, and so does a relaxation that
# cannot reach the limits (bench/README.md, "Builder settings").
SOFT_LIMIT_SCALE = 0.6
SOFT_BACKOFFS_PER_UNIT = 0.25
# Chains placed phantom (below) meet only themselves, with the softer limits:
# more back-offs per unit than this give that attempt up for the ones after it.
PHANTOM_BACKOFFS_PER_UNIT = 2.0
# Phantom placements tried (fresh draws each) before growth among the other chains: a push-off can end
# a hair short of the limits, and growing among the other chains takes far longer in a far wider cell
# (bench/README.md, "Builder settings").
PHANTOM_TRIES = 2
# Chains placed phantom are ideal beyond this many units along themselves: atoms farther apart along a
# chain (and its periodic images) pass through one another, as in the unperturbed chains of
# bench/chains/reference.py. Excluded volume at all ranges, with the chain's own images in the cell,
# swells the chains (bench/README.md, "Builder settings").
PHANTOM_WINDOW = 4

# Fewest Å³ a cell needs per atom: spheres 1.5 Å across (the intramolecular limit) at their densest
# packing (74 %). Below that no arrangement can keep the atoms apart.
# Growth at the full limits jams somewhere below ~25-32 Å³ per atom (e.g. polyethylene near
# 0.3 g/cm³): denser cells are grown with softer limits and relaxed (above), or else grown larger and
# compressed. If growth still jams, the next (linear) enlargement is tried.
GROWABLE_VOLUME_PER_ATOM = 32.0
RETRY_EXPANSIONS = (1.0, 1.2, 1.45, 1.8)
# Starts per stuck molecule before a cell is given up (a larger one tried, or the build failed). As
# many in every cell: a larger cell costs far more compression than a few more starts (bench/README.md, "Builder settings").
STARTS = 12

MIN_VOLUME_PER_ATOM = (np.pi / 6) * 1.5**3 / 0.74


@dataclass(frozen=True)
class BuildResult:
    kinds: list[AssembledPolymer]  # one per distinct chain (a polymer's, or each random chain's); kinds[k].mol is its RDKit molecule
    molecule_kinds: list[int]  # kind index of every molecule, in file order
    molecule_offsets: np.ndarray  # first atom of every molecule
    positions: np.ndarray  # (atoms, 3) Å
    box: np.ndarray  # (3,) Å, orthorhombic
    walls: bool
    seed: int
    report: dict[str, Any]
    files: dict[str, Path]

    def molecule(self, index: int) -> Chem.Mol:
        """A copy of molecule `index` as an RDKit molecule with its built coordinates."""
        kind = self.kinds[self.molecule_kinds[index]]
        mol = Chem.Mol(kind.mol)
        conformer = Chem.Conformer(kind.atom_count)
        start = int(self.molecule_offsets[index])
        for atom, (x, y, z) in enumerate(self.positions[start : start + kind.atom_count].tolist()):
            conformer.SetAtomPosition(atom, Point3D(x, y, z))
        mol.RemoveAllConformers()
        mol.AddConformer(conformer, assignId=True)
        return mol


def draw_seed(requested: int) -> int:
    """The job's seed, or a fresh one when it asks for -1."""
    if requested >= 0:
        return requested
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)  # a fresh SeedSequence draws one integer from the OS
    return entropy % (2**31 - 1)


def _cell(job: BuildJob, total_mass: float) -> np.ndarray:
    setup = job.system_setup
    if setup.cell_dimension_selector == "density":
        side = (total_mass * AMU_A3_TO_G_CM3 / setup.density) ** (1 / 3)
        return np.array([side, side, side])
    return np.array(setup.cell_sides, dtype=float)


def _keeps_limits(contacts: tuple[float | None, float | None, float], positions: np.ndarray, box: np.ndarray, walls: bool, tolerances: Tolerances) -> bool:
    """Whether measured contacts and positions keep every limit with the building margin to spare, so
    that rounding in the written files cannot break them."""
    inter, intra, _ = contacts
    z = positions[:, 2]
    return (
        (inter is None or inter >= tolerances.inter + tolerances.margin)
        and (intra is None or intra >= tolerances.intra + tolerances.margin)
        and (not walls or bool(((z > tolerances.wall) & (z < box[2] - tolerances.wall)).all()))
    )


def _relax(
    grower: SystemGrower,
    kinds: list[AssembledPolymer],
    order: list[int],
    offsets: np.ndarray,
    box: np.ndarray,
    walls: bool,
    tolerances: Tolerances,
    progress: ProgressCallback,
    push_off: bool = False,
) -> tuple[tuple[float | None, float | None, float], int]:
    """Compress (or only relax) what `grower` grew into `box` at the full limits; the grower is left
    holding the final positions in `box`, and their measured contacts are returned, with the number of
    bonds passing through rings (rings.py)."""
    stage = "compressing" if (grower.box > box).any() else "relaxing"
    progress(stage, 75)
    contacts: tuple[float | None, float | None, float] = (None, None, 0.0)

    def limits_kept(candidate: np.ndarray) -> bool:
        nonlocal contacts
        contacts = measure_contacts(candidate, box, walls, [k.atom_count for k in kinds], [k.close_pairs for k in kinds], order, offsets)
        return _keeps_limits(contacts, candidate, box, walls, tolerances)

    positions = compress(
        grower.positions,
        kinds,
        order,
        offsets,
        grower.box,
        box,
        walls,
        tolerances,
        lambda fraction: progress(stage, 75 + 15 * fraction),
        limits_kept,
        push_off=push_off,
        rigid_molecules=all(kinds[k].plan.is_linear for k in set(order)),
    )
    grower.move_to(positions, box)
    pierced = len(piercings(positions, kinds, order, offsets, box, walls)) if any(kinds[k].mol.GetRingInfo().NumRings() for k in set(order)) else 0
    return contacts, pierced


Contacts = tuple[float | None, float | None, float]  # (min intermolecular Å, min intramolecular Å, ...) as measured
# (linear enlargement of the cell, limit scale, phantom placement, its window along the chain or None)
Attempt = tuple[float, float, bool, int | None]


def _assemble_kinds(
    job: BuildJob, rng: np.random.Generator, progress: ProgressCallback
) -> tuple[dict[str, UnitTemplate], list[AssembledPolymer], dict[str, list[int]]]:
    """Expands the job's sequences and assembles one molecule per kind: per polymer, or per distinct
    chain of a polymer whose random segments are drawn chain by chain.

    Returns:
        The unit templates by SMILES (built once each), the kinds, and each polymer id's kind index
        per copy, in the order the setup lists the copies.
    """
    progress("expanding sequences", 0)
    templates: dict[str, UnitTemplate] = {}

    def template(smiles: str, where: str) -> UnitTemplate:
        if smiles not in templates:
            templates[smiles] = build_template(smiles, where)
        return templates[smiles]

    chains = plan_polymers(job, template, rng)
    progress("assembling molecules", 10)
    kinds: list[AssembledPolymer] = []
    copy_kinds: dict[str, list[int]] = {}
    for polymer_id, polymer_chains in chains.items():
        first = len(kinds)
        kinds += [assemble(plan, templates) for plan in polymer_chains.plans]
        copy_kinds[polymer_id] = [first + plan for plan in polymer_chains.copy_plans]
    return templates, kinds, copy_kinds


def _molecule_order(job: BuildJob, copy_kinds: dict[str, list[int]], rng: np.random.Generator) -> list[int]:
    """The kind of every molecule in construction (and file) order: by the setup's order, or shuffled."""
    order: list[int] = []
    taken = dict.fromkeys(copy_kinds, 0)
    for ref in sorted(job.system_setup.polymers, key=lambda p: p.order):
        start = taken[ref.polymer_id]
        order += copy_kinds[ref.polymer_id][start : start + ref.occurrence]
        taken[ref.polymer_id] = start + ref.occurrence
    if job.system_setup.construction_order == "random":
        order = [order[i] for i in rng.permutation(len(order))]
    return order


def _checked_cell(job: BuildJob, kinds: list[AssembledPolymer], order: list[int], tolerances: Tolerances) -> tuple[np.ndarray, int]:
    """The cell (Å) and the atom count; DENSITY_TOO_HIGH when no packing could keep the atoms apart."""
    total_atoms = sum(kinds[k].atom_count for k in order)
    total_mass = float(sum(kinds[k].masses.sum() for k in order))
    box = _cell(job, total_mass)
    if float(np.prod(box)) < total_atoms * MIN_VOLUME_PER_ATOM:
        raise EngineError(
            "DENSITY_TOO_HIGH",
            f"The cell ({box[0]:.1f} × {box[1]:.1f} × {box[2]:.1f} Å) is too small to hold {total_atoms} atoms "
            f"at {tolerances.intra} Å from each other ({total_mass * AMU_A3_TO_G_CM3 / float(np.prod(box)):.2f} g/cm³). "
            "Lower the density or enlarge the cell.",
        )
    return box, total_atoms


def _growth_attempts(box: np.ndarray, total_atoms: int, compressible: np.ndarray, kinds: list[AssembledPolymer], order: list[int]) -> list[Attempt]:
    """The growth attempts to try in turn, cheapest first.

    Dense cells jam growth at the full limits: grow in the cell with softer limits and relax, or
    failing that in a larger cell (the `compressible` axes scaled up) with at least
    GROWABLE_VOLUME_PER_ATOM and compress; a larger cell again if growth still jams.
    """
    volume_per_atom = float(np.prod(box)) / total_atoms
    first = (GROWABLE_VOLUME_PER_ATOM / volume_per_atom) ** (1 / compressible.sum())
    first = first if first > 1.1 else 1.0  # nearly growable: try the cell itself first
    attempts: list[Attempt] = [(first * factor, 1.0, False, None) for factor in RETRY_EXPANSIONS]
    linear = all(kinds[k].plan.is_linear for k in set(order))
    rings = any(kinds[k].mol.GetRingInfo().NumRings() for k in set(order))
    # Melts as the field's references build them (Auhl et al., J. Chem. Phys. 2003, 119, 12718):
    # chains with their unperturbed local statistics, placed in the cell without seeing one another,
    # then their overlaps pushed off slowly. Growth that avoids other chains (the attempts after it)
    # squeezes chains in a crowded cell (PMMA at 1.17 g/cm³ to 40 % of its unperturbed size).
    # Each chain keeps the intramolecular limit within PHANTOM_WINDOW units; molecules with rings
    # at the full limit (aPS C∞ 9.98 so, 9.5-10 in the literature; at the softer one 8.1), and their
    # rings are shrunk through the push-off, which would not undo bonds run through them.
    # Branched molecules (dendrimers) are not: they crowd themselves and have no chain statistics.
    phantom: Attempt = (1.0, 1.0 if rings else SOFT_LIMIT_SCALE, True, PHANTOM_WINDOW)
    if first > 1.0:
        attempts.insert(0, (1.0, SOFT_LIMIT_SCALE, False, None))
        if linear:
            attempts[0:0] = [phantom] * PHANTOM_TRIES
    elif linear:
        # A dilute cell whose growth jams at the full limits is jammed by the chains themselves, not
        # by crowding, which a larger cell does not relieve: a bulky side group held in one
        # conformation (poly(1,3-dimethylbutyl methacrylate)) finds no room beside its neighbours for
        # some sequences of hands, and each chain keeps its hands through its restarts. Such chains
        # are then placed as melts are, and their overlaps pushed off.
        attempts[1:1] = [phantom] * PHANTOM_TRIES
    return attempts


@dataclass(frozen=True)
class _Packed:
    """The packed molecules in the cell and how they were grown (for the report)."""

    positions: np.ndarray  # all atoms, Å
    offsets: np.ndarray  # first atom of every molecule
    contacts: Contacts | None  # measured already by the relaxation, else None (the report measures)
    grown_box: np.ndarray  # the cell growth ran in, Å
    limit_scale: float  # the scale of the limits growth kept


def _pack(
    job: BuildJob,
    kinds: list[AssembledPolymer],
    templates: dict[str, UnitTemplate],
    order: list[int],
    box: np.ndarray,
    total_atoms: int,
    rng: np.random.Generator,
    tolerances: Tolerances,
    progress: ProgressCallback,
) -> _Packed:
    """Grows the molecules into `box`, trying each growth attempt in turn until one keeps the limits.

    A jammed growth (PLACEMENT_FAILED) or a relaxation that misses the limits or leaves a bond through
    a ring moves on to the next attempt; the last attempt's result is kept whatever it measures
    (build_structure checks it).
    """
    walls = job.system_setup.potential_wall_z
    compressible = np.array([1.0, 1.0, 0.0 if walls else 1.0])
    attempts = _growth_attempts(box, total_atoms, compressible, kinds, order)
    statistics = None  # the chains' transfer tables (chain_statistics.py), computed by the first attempt
    for attempt, (expansion, limit_scale, phantom, window) in enumerate(attempts):
        last = attempt == len(attempts) - 1
        grown_box = box * (1.0 + (expansion - 1.0) * compressible)
        progress("packing", 15)
        grower = SystemGrower(
            kinds,
            templates,
            grown_box,
            walls,
            rng,
            tolerances,
            total_atoms,
            starts=STARTS,
            limit_scale=limit_scale,
            backoffs_per_unit=PHANTOM_BACKOFFS_PER_UNIT if phantom else SOFT_BACKOFFS_PER_UNIT if limit_scale < 1.0 else None,
            phantom=phantom,
            statistics=statistics,
            window=window,
        )
        statistics = grower.statistics
        try:
            positions = grower.grow(order, lambda fraction: progress("packing", 15 + 60 * fraction))
        except EngineError as exc:
            if exc.code != "PLACEMENT_FAILED" or last:
                raise
            continue
        offsets = np.array(grower.molecule_offsets, dtype=np.int64)
        if expansion == 1.0 and limit_scale == 1.0 and not phantom:
            return _Packed(positions, offsets, None, grown_box, limit_scale)
        contacts, pierced = _relax(grower, kinds, order, offsets, box, walls, tolerances, progress, push_off=phantom)
        positions = grower.positions  # each molecule's centre inside the cell
        # A bond through a ring is never kept where another cell can be tried.
        if last or (_keeps_limits(contacts, positions, box, walls, tolerances) and not pierced):
            return _Packed(positions, offsets, contacts, grown_box, limit_scale)
    raise AssertionError("the last growth attempt returns or raises")


def _check_packed(report: dict[str, Any], positions: np.ndarray, box: np.ndarray, walls: bool, tolerances: Tolerances) -> None:
    """PLACEMENT_FAILED when the measured system breaks a distance limit or leaves the walls."""
    inter, intra = report["min_intermolecular_distance"], report["min_intramolecular_nonbonded_distance"]
    walls_kept = not walls or bool(((positions[:, 2] > 0.0) & (positions[:, 2] < box[2])).all())
    if (inter is not None and inter < tolerances.inter) or (intra is not None and intra < tolerances.intra) or not walls_kept:
        raise EngineError(
            "PLACEMENT_FAILED",
            f"The molecules could not be packed into the {box[0]:.1f} × {box[1]:.1f} × {box[2]:.1f} Å cell with "
            f"atoms of different molecules at least {tolerances.inter} Å apart and atoms of one molecule at least "
            f"{tolerances.intra} Å apart. Lower the density or enlarge the cell.",
        )


def _write_results(
    workdir: Path,
    job: BuildJob,
    kinds: list[AssembledPolymer],
    order: list[int],
    positions: np.ndarray,
    box: np.ndarray,
    report: dict[str, Any],
) -> dict[str, Path]:
    """Writes system.pdb, system.gro and report.json into `workdir`; returns their paths by name.

    Written under temporary names and renamed at the end: a failed run leaves no result files behind.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    files = {name: workdir / name for name in ("system.pdb", "system.gro", "report.json")}
    partial = {name: path.with_name(path.name + ".partial") for name, path in files.items()}
    try:
        write_pdb(partial["system.pdb"], kinds, order, positions, box)
        write_gro(partial["system.gro"], job.system.name, kinds, order, positions, box)
        partial["report.json"].write_text(json.dumps(report, indent=2) + "\n")
    except BaseException:
        for path in partial.values():
            path.unlink(missing_ok=True)
        raise
    for name, path in files.items():
        os.replace(partial[name], path)
    return files


def build_structure(
    job: BuildJob,
    workdir: Path,
    on_progress: ProgressCallback | None = None,
    tolerances: Tolerances | None = None,
) -> BuildResult:
    """Builds the job's system and writes its files into `workdir` (module docstring: the stages).

    Parameters:
        job: the parsed build job.
        workdir: where system.pdb, system.gro and report.json are written.
        on_progress: called with (stage, percent 0-100) as the build goes.
        tolerances: the distance limits; the defaults unless a caller (tests, bench) sets others.

    Returns:
        The built system (BuildResult).
    """
    progress = on_progress or (lambda stage, percent: None)
    tolerances = tolerances or Tolerances()
    seed = draw_seed(job.simulation_protocol.random_seed)
    rng = np.random.default_rng(seed)

    templates, kinds, copy_kinds = _assemble_kinds(job, rng, progress)
    order = _molecule_order(job, copy_kinds, rng)
    box, total_atoms = _checked_cell(job, kinds, order, tolerances)
    packed = _pack(job, kinds, templates, order, box, total_atoms, rng, tolerances, progress)
    walls = job.system_setup.potential_wall_z

    progress("measuring", 90)
    report = build_report(
        kinds=kinds,
        molecule_kinds=order,
        molecule_offsets=packed.offsets,
        positions=packed.positions,
        box=box,
        walls=walls,
        seed=seed,
        tolerances=asdict(tolerances),
        grown_in_cell=[float(side) for side in packed.grown_box],
        grown_with_limits=[round(tolerances.inter * packed.limit_scale, 3), round(tolerances.intra * packed.limit_scale, 3)],
        contacts=packed.contacts,
        templates=templates,
    )
    _check_packed(report, packed.positions, box, walls, tolerances)

    progress("writing files", 95)
    files = _write_results(workdir, job, kinds, order, packed.positions, box, report)
    progress("done", 100)
    return BuildResult(kinds, order, packed.offsets, packed.positions, box, walls, seed, report, files)

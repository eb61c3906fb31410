"""From the job's blocks, segments and polymers to a plan per polymer: the ordered list of units
(ARCHITECTURE §5), each with its SMILES, residue, and where it hangs on the tree of junctions.

Linear polymers are a path (head cap, units, tail cap); dendrimers a tree grown shell by shell.
Units are listed in growth order: every unit after the one it hangs from, and caps right after the
unit they close, so each residue's atoms are contiguous.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from polyforge_engine.construct.templates import UnitTemplate
from polyforge_engine.events import EngineError
from polyforge_engine.job import AminoacidBlock, BuildJob, DendrimerBlock, LinearBlock, Polymer, Segment
from polyforge_engine.residues import STANDARD_RESIDUES

# Caps of peptide chains with `synthetic` capping: free amine (H on N) and free acid (OH on C).
PEPTIDE_HEAD_CAP = "[*:2][H]"
PEPTIDE_TAIL_CAP = "[*:1]O"

TemplateSource = Callable[[str, str], UnitTemplate]  # (smiles, description for messages) -> template


@dataclass(frozen=True)
class PlannedUnit:
    smiles: str
    residue: int  # residue index in the polymer; caps share the residue of the unit they close
    residue_name: str
    parent: int  # index of the unit this one hangs from; -1 for the root
    parent_site: int  # which site (marker) of the parent it bonds to
    own_site: int  # which of its own sites bonds to the parent; -1 for the root
    is_cap: bool


@dataclass(frozen=True)
class PolymerPlan:
    polymer_id: str
    name: str
    force_field: str
    units: tuple[PlannedUnit, ...]
    sequence: tuple[str, ...]  # residue names of the units, caps excluded, in order
    is_linear: bool
    # Configuration of prochiral backbone centres (chain_statistics.py): "atactic" (each dyad meso with
    # probability meso_fraction), "isotactic", "syndiotactic", or "as_drawn" (as the templates have it).
    tacticity: str = "atactic"
    meso_fraction: float = 0.5


def _name_candidates(wanted: str) -> list[str]:
    """`wanted`, then its first two characters and a digit, then its first and two digits."""
    return [wanted] + [wanted[:2] + str(d) for d in range(10)] + [wanted[:1] + f"{d:02d}" for d in range(100)]


def residue_names(job: BuildJob) -> dict[tuple[str, str], str]:
    """A three-character residue name per (block id, role), unique in the system: an aminoacid's
    three-letter code, otherwise drawn from the block's name; a clash, or a name that other programs
    read as a standard residue (MET for methyl methacrylate), gets digits."""
    names: dict[tuple[str, str], str] = {}
    taken: set[str] = set()

    def claim(key: tuple[str, str], wanted: str, reserved: frozenset[str]) -> None:
        name = next(c for c in _name_candidates(wanted) if c not in taken and c not in reserved)
        taken.add(name)
        names[key] = name

    for block in job.blocks:
        if isinstance(block, AminoacidBlock):
            claim((block.id, "unit"), block.data.three_letter_code.upper(), frozenset())
    for block in job.blocks:
        letters = re.sub(r"[^A-Za-z0-9]", "", block.name).upper() or "UNK"
        if isinstance(block, LinearBlock):
            claim((block.id, "unit"), (letters + "XXX")[:3], STANDARD_RESIDUES)
        elif isinstance(block, DendrimerBlock):
            claim((block.id, "central"), (letters + "XX")[:2] + "C", STANDARD_RESIDUES)
            claim((block.id, "repeating"), (letters + "XX")[:2] + "R", STANDARD_RESIDUES)
    return names


class _PlanBuilder:
    def __init__(self, templates: TemplateSource):
        self.templates = templates
        self.units: list[PlannedUnit] = []
        self.residue_count = 0

    def add(self, smiles: str, where: str, name: str, parent: int, parent_site: int, own_label: int, cap: bool) -> int:
        template = self.templates(smiles, where)
        own_site = -1
        if parent >= 0:
            own_site = template.sites_with_label(own_label)[0]
        if cap:
            residue = self.units[parent].residue
        else:
            residue = self.residue_count
            self.residue_count += 1
        self.units.append(PlannedUnit(smiles, residue, name, parent, parent_site, own_site, cap))
        return len(self.units) - 1


def _require_sites(template: UnitTemplate, where: str, heads: int | None, tails: int | None) -> None:
    """Check marker counts; None means "one or more"."""
    found_heads = len(template.sites_with_label(1))
    found_tails = len(template.sites_with_label(2))
    ok_heads = found_heads >= 1 if heads is None else found_heads == heads
    ok_tails = found_tails >= 1 if tails is None else found_tails == tails
    if ok_heads and ok_tails:
        return
    wanted = []
    if heads != 0:
        wanted.append("one or more [*:1]" if heads is None else f"exactly {heads} [*:1]")
    if tails != 0:
        wanted.append("one or more [*:2]" if tails is None else f"exactly {tails} [*:2]")
    only = " and ".join(f"[*:{label}]" for label, n in ((1, heads), (2, tails)) if n != 0)
    raise EngineError(
        "INVALID_SMILES",
        f"The {where} '{template.smiles}' must contain {' and '.join(wanted)} connection(s), and only {only}.",
    )


LinearEntry = LinearBlock | AminoacidBlock


def _linear_segment_blocks(
    segment: Segment, blocks: Mapping[str, LinearBlock | DendrimerBlock | AminoacidBlock], rng: np.random.Generator
) -> list[LinearEntry]:
    ordered = sorted(segment.blocks, key=lambda b: b.order)
    entries: list[LinearEntry] = []
    for ref in ordered:
        block = blocks.get(ref.building_block_id)
        if block is None:
            raise EngineError("INVALID_INPUT", f"Segment '{segment.name}' uses a building block that is not in the job.")
        if isinstance(block, DendrimerBlock):
            raise EngineError("INVALID_INPUT", f"Segment '{segment.name}' is linear but uses the dendrimer block '{block.name}'.")
        if segment.type == "linear_peptide" and not isinstance(block, AminoacidBlock):
            raise EngineError("INVALID_INPUT", f"Peptide segment '{segment.name}' uses '{block.name}', which is not an aminoacid.")
        assert isinstance(block, LinearBlock | AminoacidBlock)
        entries.append(block)
    if segment.type == "linear_random":
        ratios = [ref.ratio or 0 for ref in ordered]
        if sum(ratios) == 0 or segment.data.total_building_blocks % sum(ratios) != 0:
            raise EngineError(
                "INVALID_INPUT",
                f"Random segment '{segment.name}': {segment.data.total_building_blocks} building blocks is not a whole "
                f"multiple of the ratios' sum ({sum(ratios)}).",
            )
        multiplier = segment.data.total_building_blocks // sum(ratios)
        pool = [entry for entry, ratio in zip(entries, ratios, strict=True) for _ in range(ratio * multiplier)]
        return [pool[i] for i in rng.permutation(len(pool))]
    if segment.type == "linear_peptide" and segment.data.capping_type == "natural":
        raise EngineError(
            "INVALID_INPUT",
            f"Peptide segment '{segment.name}' asks for natural capping, which is not available; use synthetic (free amine and free acid ends).",
        )
    return [entry for entry, ref in zip(entries, ordered, strict=True) for _ in range(ref.occurrence or 1)]


def _unit_smiles(block: LinearEntry) -> tuple[str, str, str]:
    """(unit, head cap, tail cap) SMILES of a linear or aminoacid block."""
    if isinstance(block, AminoacidBlock):
        return block.data.smiles, PEPTIDE_HEAD_CAP, PEPTIDE_TAIL_CAP
    return block.data.repeating_unit, block.data.head_repeating_unit, block.data.tail_repeating_unit


def _plan_linear(polymer: Polymer, entries: list[LinearEntry], names: dict, templates: TemplateSource) -> PolymerPlan:
    builder = _PlanBuilder(templates)
    previous = -1
    for position, block in enumerate(entries):
        unit, head, tail = _unit_smiles(block)
        where = f"unit of block '{block.name}'"
        _require_sites(templates(unit, where), where, 1, 1)
        name = names[(block.id, "unit")]
        if previous < 0:
            current = builder.add(unit, where, name, -1, -1, 0, cap=False)
            head_where = f"head unit of block '{block.name}'"
            _require_sites(templates(head, head_where), head_where, 0, 1)
            builder.add(head, head_where, name, current, templates(unit, where).sites_with_label(1)[0], 2, cap=True)
        else:
            parent_site = templates(builder.units[previous].smiles, where).sites_with_label(2)[0]
            current = builder.add(unit, where, name, previous, parent_site, 1, cap=False)
        if position == len(entries) - 1:
            tail_where = f"tail unit of block '{block.name}'"
            _require_sites(templates(tail, tail_where), tail_where, 1, 0)
            builder.add(tail, tail_where, name, current, templates(unit, where).sites_with_label(2)[0], 1, cap=True)
        previous = current
    sequence = tuple(u.residue_name for u in builder.units if not u.is_cap)
    return PolymerPlan(polymer.id, polymer.name, polymer.force_field, tuple(builder.units), sequence, is_linear=True)


def _plan_dendrimer(polymer: Polymer, segment: Segment, block: DendrimerBlock, names: dict, templates: TemplateSource) -> PolymerPlan:
    data = block.data
    generation = segment.data.generation_number or 0
    from_core = segment.type == "dendrimer_from_central_unit"
    core_smiles = data.central_unit if from_core else data.repeating_unit
    core_where = f"{'central' if from_core else 'repeating'} unit of block '{block.name}'"
    rep_where = f"repeating unit of block '{block.name}'"
    cap_where = f"capping central unit of block '{block.name}'"
    tail_where = f"tail unit of block '{block.name}'"
    head_where = f"head unit of block '{block.name}'"
    _require_sites(templates(data.repeating_unit, rep_where), rep_where, 1, None)
    _require_sites(templates(data.tail_repeating_unit, tail_where), tail_where, 1, 0)
    if from_core:
        _require_sites(templates(core_smiles, core_where), core_where, 0, None)
    core_tails = templates(core_smiles, core_where).sites_with_label(2)
    mask = list(segment.data.mask) if segment.data.mask is not None else [1] * len(core_tails)
    if len(mask) != len(core_tails):
        raise EngineError(
            "INVALID_INPUT",
            f"Dendrimer segment '{segment.name}': the mask has {len(mask)} entries but the {core_where} has {len(core_tails)} [*:2] connection points.",
        )
    if not any(mask):
        raise EngineError("INVALID_INPUT", f"Dendrimer segment '{segment.name}': at least one connection point must be selected.")
    if not all(mask):
        _require_sites(templates(data.capping_central_unit, cap_where), cap_where, 1, 0)

    builder = _PlanBuilder(templates)
    rep_name = names[(block.id, "repeating")]
    queue: deque[tuple[int, int]] = deque()  # (unit index, shell) of units whose branches are still to grow

    def add_branching(smiles: str, where: str, name: str, parent: int, parent_site: int, shell: int) -> None:
        index = builder.add(smiles, where, name, parent, parent_site, 1, cap=False)
        tails = templates(smiles, where).sites_with_label(2)
        if shell == generation:  # outermost shell: tail units close every [*:2]
            for site in tails:
                builder.add(data.tail_repeating_unit, tail_where, name, index, site, 1, cap=True)
        else:
            queue.append((index, shell))

    if from_core:
        core = builder.add(core_smiles, core_where, names[(block.id, "central")], -1, -1, 0, cap=False)
        core_shell = -1  # the central unit is not a shell: shell 0 hangs on it
    else:
        core = builder.add(core_smiles, core_where, rep_name, -1, -1, 0, cap=False)
        core_shell = 0
        _require_sites(templates(data.head_repeating_unit, head_where), head_where, 0, 1)
        builder.add(data.head_repeating_unit, head_where, rep_name, core, templates(core_smiles, core_where).sites_with_label(1)[0], 2, cap=True)
    for site, grows in zip(core_tails, mask, strict=True):
        if not grows:
            builder.add(data.capping_central_unit, cap_where, builder.units[core].residue_name, core, site, 1, cap=True)
        elif core_shell == generation:
            builder.add(data.tail_repeating_unit, tail_where, rep_name, core, site, 1, cap=True)
    pending_core_sites = [site for site, grows in zip(core_tails, mask, strict=True) if grows and core_shell < generation]
    for site in pending_core_sites:
        add_branching(data.repeating_unit, rep_where, rep_name, core, site, core_shell + 1)
    while queue:
        parent, shell = queue.popleft()
        for site in templates(data.repeating_unit, rep_where).sites_with_label(2):
            add_branching(data.repeating_unit, rep_where, rep_name, parent, site, shell + 1)
    sequence = tuple(u.residue_name for u in builder.units if not u.is_cap)
    return PolymerPlan(polymer.id, polymer.name, polymer.force_field, tuple(builder.units), sequence, is_linear=False)


def _with_tacticity(plan: PolymerPlan, polymer: Polymer) -> PolymerPlan:
    if polymer.tacticity is None:
        return plan
    return replace(plan, tacticity=polymer.tacticity.kind, meso_fraction=polymer.tacticity.meso_fraction)


@dataclass(frozen=True)
class PolymerChains:
    """The chains one polymer contributes: a single plan all its copies share, or, when a random
    segment draws every chain's sequence separately, one plan per distinct sequence drawn."""

    plans: tuple[PolymerPlan, ...]
    copy_plans: tuple[int, ...]  # the plan of each copy, in the order the setup lists the copies


def _copies_in_setup(job: BuildJob) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ref in job.system_setup.polymers:
        counts[ref.polymer_id] = counts.get(ref.polymer_id, 0) + ref.occurrence
    return counts


def _distinct(plans: list[PolymerPlan]) -> PolymerChains:
    """Copies that drew the same sequence share one plan (and so one molecule kind)."""
    index: dict[tuple[str, ...], int] = {}
    distinct: list[PolymerPlan] = []
    copy_plans: list[int] = []
    for plan in plans:
        key = tuple(unit.smiles for unit in plan.units)
        if key not in index:
            index[key] = len(distinct)
            distinct.append(plan)
        copy_plans.append(index[key])
    return PolymerChains(tuple(distinct), tuple(copy_plans))


def plan_polymers(job: BuildJob, templates: TemplateSource, rng: np.random.Generator) -> dict[str, PolymerChains]:
    """The chains of every polymer the system setup uses, keyed by polymer id.

    A random segment's order is drawn from `rng` (the job's seeded generator) for every chain and every
    use of the segment in it, so the copies of a statistical copolymer differ; each draw holds every
    block exactly ratio × multiplier times. Other polymers are one plan all copies share.
    """
    blocks = {block.id: block for block in job.blocks}
    segments = {segment.id: segment for segment in job.segments}
    polymers = {polymer.id: polymer for polymer in job.polymers}
    names = residue_names(job)
    copies = _copies_in_setup(job)
    expanded: dict[str, list[LinearEntry]] = {}
    chains: dict[str, PolymerChains] = {}
    for ref in sorted(job.system_setup.polymers, key=lambda p: p.order):
        polymer = polymers.get(ref.polymer_id)
        if polymer is None:
            raise EngineError("INVALID_INPUT", "The system setup uses a polymer that is not in the job.")
        if polymer.id in chains:
            continue
        refs = sorted(polymer.segments, key=lambda s: s.order)
        used = []
        for seg_ref in refs:
            segment = segments.get(seg_ref.segment_id)
            if segment is None:
                raise EngineError("INVALID_INPUT", f"Polymer '{polymer.name}' uses a segment that is not in the job.")
            if not segment.blocks:
                raise EngineError("EMPTY_SEGMENT", f"Segment '{segment.name}' has no building blocks, so there is nothing to build.")
            used.append((segment, seg_ref.occurrence))
        dendrimers = [segment for segment, _ in used if segment.type.startswith("dendrimer")]
        if dendrimers:
            segment = dendrimers[0]
            if len(used) != 1 or used[0][1] != 1:
                raise EngineError("INVALID_INPUT", f"Polymer '{polymer.name}': a dendrimer segment must be the polymer's only segment, used once.")
            block = blocks.get(segment.blocks[0].building_block_id)
            if len(segment.blocks) != 1 or not isinstance(block, DendrimerBlock):
                raise EngineError("INVALID_INPUT", f"Dendrimer segment '{segment.name}' must use exactly one dendrimer building block.")
            plan = _with_tacticity(_plan_dendrimer(polymer, segment, block, names, templates), polymer)
            chains[polymer.id] = PolymerChains((plan,), (0,) * copies[polymer.id])
            continue
        random = any(segment.type == "linear_random" for segment, _ in used)
        plans = []
        for _ in range(copies[polymer.id] if random else 1):
            entries: list[LinearEntry] = []
            for segment, occurrence in used:
                for _ in range(occurrence):
                    if segment.type == "linear_random" or segment.id not in expanded:
                        expanded[segment.id] = _linear_segment_blocks(segment, blocks, rng)
                    if not expanded[segment.id]:
                        raise EngineError("EMPTY_SEGMENT", f"Segment '{segment.name}' has no building blocks, so there is nothing to build.")
                    entries += expanded[segment.id]
            plans.append(_with_tacticity(_plan_linear(polymer, entries, names, templates), polymer))
        chains[polymer.id] = _distinct(plans) if random else PolymerChains((plans[0],), (0,) * copies[polymer.id])
    return chains
